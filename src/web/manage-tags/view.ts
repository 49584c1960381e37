import type { ErrorDetails } from '../../errors.js';
import type { PageOf } from '../../lib/pagination.js';
import type { TagDto } from '../../schemas/tag.js';
import { tagHref } from '../layout/links.js';
import type { PageModel } from '../render.js';

export interface TagRowView {
  id: string;
  name: string;
  /** "3 stories", "1 story", "unused". */
  countText: string;
  /** The tag's stories page (`/tags/{name}`, percent-encoded). */
  href: string;
  renameAction: string;
  deleteHref: string;
  /** What the rename field shows: the name, or what was typed when the rename failed. */
  renameValue: string;
  /** Why the rename failed, shown beside this tag's field. */
  renameError: string | undefined;
}

export interface TagsView extends PageModel {
  rows: TagRowView[];
  unusedOnly: boolean;
  /** "Showing 1–50 of 812 tags". */
  countText: string;
  previousHref: string | undefined;
  nextHref: string | undefined;
  /** This page's address, where a rename returns to. */
  here: string;
  /** Set when a rename failed: the summary links to the field. */
  errorSummary: { id: string; message: string } | undefined;
}

export interface RenameFailure {
  tagId: string;
  typed: string;
  details: ErrorDetails;
}

function countText(count: number): string {
  if (count === 0) return 'unused';
  return count === 1 ? '1 story' : `${count} stories`;
}

export function tagsHref(page: number, unusedOnly: boolean): string {
  const query = new URLSearchParams();
  if (unusedOnly) query.set('unused', '1');
  if (page > 0) query.set('page', String(page));
  const text = query.toString();
  return text === '' ? '/tags' : `/tags?${text}`;
}

function rowView(tag: TagDto, failure: RenameFailure | undefined): TagRowView {
  const path = `/tags/${encodeURIComponent(tag.id)}`;
  const failed = failure?.tagId === tag.id ? failure : undefined;
  return {
    id: tag.id,
    name: tag.name,
    countText: countText(tag.storyCount),
    href: tagHref(tag.name),
    renameAction: `${path}/rename`,
    deleteHref: `${path}/delete`,
    renameValue: failed?.typed ?? tag.name,
    renameError: failed === undefined ? undefined : Object.values(failed.details).join('; '),
  };
}

/** The tag management page: one page of all tags by name, or every unused tag. */
export function tagsView(page: PageOf<TagDto>, unusedOnly: boolean, failure?: RenameFailure): TagsView {
  const rows = page.content.map((tag) => rowView(tag, failure));
  const first = page.number * page.size;
  const failedRow = rows.find((row) => row.renameError !== undefined);
  return {
    title: 'Manage tags',
    rows,
    unusedOnly,
    countText:
      page.totalElements === 0
        ? unusedOnly ? 'No unused tags.' : 'No tags yet.'
        : `Showing ${first + 1}–${first + rows.length} of ${page.totalElements} ${unusedOnly ? 'unused tags' : 'tags'}`,
    previousHref: page.first ? undefined : tagsHref(page.number - 1, unusedOnly),
    nextHref: page.last ? undefined : tagsHref(page.number + 1, unusedOnly),
    here: tagsHref(page.number, unusedOnly),
    errorSummary: failedRow === undefined ? undefined : { id: `tag-name-${failedRow.id}`, message: `${failedRow.name}: ${failedRow.renameError ?? ''}` },
  };
}

export interface TagDeleteView extends PageModel {
  name: string;
  countText: string;
  action: string;
}

export function tagDeleteView(tag: TagDto): TagDeleteView {
  return { title: `Delete the tag ${tag.name}?`, name: tag.name, countText: countText(tag.storyCount), action: `/tags/${encodeURIComponent(tag.id)}/delete` };
}
