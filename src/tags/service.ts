import type { Db } from '../db/open.js';
import type { TagRow } from '../db/schema.js';
import { writeTransaction } from '../db/transaction.js';
import { Conflict, invalidField, NotFound } from '../errors.js';
import { nameKey, storedTagName } from '../lib/names.js';
import { pageWindow, sortDirection, toPage, type PageOf } from '../lib/pagination.js';
import type { TagDto, TagKind, TagSearchQuery, TagListQuery } from '../schemas/tag.js';
import { presentTag } from './present.js';
import * as repo from './repository.js';

/** A tag name as stored: trimmed, NFC, lowercased (docs/decisions.md, "Shapes and values"); blank is a 400. */
export function cleanTagName(raw: string, field = 'name'): string {
  const name = storedTagName(raw);
  if (name === '') throw invalidField(field, 'must not be blank');
  return name;
}

export function tagNotFound(id: string): NotFound {
  return new NotFound(`Tag not found with id: ${id}`);
}

function nameConflict(name: string): Conflict {
  return new Conflict(`A tag named "${name}" already exists`, { name: 'is already used by another tag' });
}

export function getTag(db: Db, id: string): TagDto {
  const row = repo.findTagById(db, id);
  if (row === undefined) throw tagNotFound(id);
  return presentTag(row);
}

/**
 * GET /api/tags and /api/tags/search; `only.withStories` leaves out unused tags and `only.kind`
 * the tags of other kinds (the OPDS catalog).
 */
export function listTags(db: Db, query: TagListQuery | TagSearchQuery, only: { withStories?: boolean; kind?: TagKind } = {}): PageOf<TagDto> {
  const sortBy = query.sortBy ?? 'name';
  const direction = sortDirection(query.sortDir, sortBy === 'name' ? 'asc' : 'desc');
  const filter = { ...only, ...('query' in query ? { nameContains: nameKey(query.query) } : {}) };
  const { rows, total } = repo.listTags(db, filter, sortBy, direction, pageWindow(query));
  return toPage(rows.map(presentTag), total, query);
}

/** Creates a tag; a name that folds like another tag's (docs/decisions.md, "Name keys (case folding)") is a 409. */
export function createTag(db: Db, rawName: string): TagDto {
  const name = cleanTagName(rawName);
  return writeTransaction(db, (tx) => {
    if (repo.tagNameTaken(tx, name)) throw nameConflict(name);
    return presentTag(repo.insertTag(tx, name));
  });
}

export function updateTag(db: Db, id: string, rawName: string | undefined): TagDto {
  return writeTransaction(db, (tx) => {
    const current = repo.findTagById(tx, id);
    if (current === undefined) throw tagNotFound(id);
    if (rawName === undefined) return presentTag(current);
    const name = cleanTagName(rawName);
    if (name === current.name) return presentTag(current);
    if (repo.tagNameTaken(tx, name, id)) throw nameConflict(name);
    return presentTag(repo.renameTag(tx, id, name) as TagRow);
  });
}

/** Deletes the tag; its links to stories go with it (foreign-key cascade). */
export function deleteTag(db: Db, id: string): void {
  writeTransaction(db, (tx) => {
    if (!repo.deleteTag(tx, id)) throw tagNotFound(id);
  });
}

export function autocompleteTags(db: Db, text: string, limit: number): TagDto[] {
  const prefix = nameKey(text);
  return repo.autocompleteTags(db, prefix, limit).map(presentTag);
}

export function popularTags(db: Db, limit: number): TagDto[] {
  return repo.popularTags(db, limit).map(presentTag);
}

/** Each kind's `limit` most used tags, names and story counts (the library page's lists: docs/decisions.md, "Tag kinds"). */
export function mostUsedTagsByKind(db: Db, limit: number): Array<{ kind: TagKind; name: string; storyCount: number }> {
  return repo.mostUsedTagsByKind(db, limit);
}

export function unusedTags(db: Db): TagDto[] {
  return repo.unusedTags(db).map(presentTag);
}

export function tagStats(db: Db): { totalTags: number; usedTags: number; unusedTags: number } {
  return repo.tagStats(db);
}
