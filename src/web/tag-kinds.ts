/**
 * How the pages name tag kinds (docs/decisions.md, "Tag kinds"): one heading each, in the order
 * an archive's work page lists them, the reader's own tags (no kind) last.
 */
import { TAG_KINDS, type TagKind } from '../schemas/tag.js';

export const TAG_KIND_LABELS: Readonly<Record<TagKind, string>> = {
  fandom: 'Fandoms',
  relationship: 'Relationships',
  character: 'Characters',
  warning: 'Warnings',
  category: 'Categories',
  rating: 'Rating',
  freeform: 'Additional tags',
};

/** The heading of the reader's own tags, the ones without a kind. */
export const OWN_TAGS_LABEL = 'Tags';

/**
 * `tags` in groups by kind, in `TAG_KINDS` order then the tags without a kind (or of a kind this
 * version does not know), each group in the order given; empty groups are left out.
 */
export function groupTagsByKind<T extends { kind: string | null }>(tags: readonly T[]): Array<{ kind: TagKind | null; label: string; tags: T[] }> {
  const kinds: ReadonlyArray<TagKind | null> = [...TAG_KINDS, null];
  const known = (kind: string | null): TagKind | null => ((TAG_KINDS as readonly string[]).includes(kind ?? '') ? (kind as TagKind) : null);
  return kinds
    .map((kind) => ({ kind, label: kind === null ? OWN_TAGS_LABEL : TAG_KIND_LABELS[kind], tags: tags.filter((tag) => known(tag.kind) === kind) }))
    .filter((group) => group.tags.length > 0);
}
