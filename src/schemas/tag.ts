import { Type, type Static } from '@sinclair/typebox';
import { DateTime, limitQuery, Nullable, Paged, SearchText, sortedPageQuery, Uuid } from './common.js';
import { TAG_KINDS } from './values.js';

export { TAG_KINDS };

export const TAG_NAME_MAX = 100;

export type TagKind = (typeof TAG_KINDS)[number];
/** What a tag says of a work at its source (docs/decisions.md, "Tag kinds"); null for the reader's own tags. */
export const TagKindSchema = Type.Union(TAG_KINDS.map((kind) => Type.Literal(kind)));

/**
 * The query fields that filter by each kind (docs/decisions.md, "Tag kinds"): `list` in the story
 * search (names, every one required, like `tags`), `one` on the library page (one name). The
 * source's content rating is `contentRatings`/`contentRating`, apart from the reader's stars.
 */
export const TAG_KIND_FIELDS = {
  fandom: { list: 'fandoms', one: 'fandom' },
  relationship: { list: 'relationships', one: 'relationship' },
  character: { list: 'characters', one: 'character' },
  warning: { list: 'warnings', one: 'warning' },
  category: { list: 'categories', one: 'category' },
  rating: { list: 'contentRatings', one: 'contentRating' },
  freeform: { list: 'freeforms', one: 'freeform' },
} as const satisfies Record<TagKind, { list: string; one: string }>;
/** A kind's story search filter: `fandoms`, `relationships`, … */
export type TagKindListField = (typeof TAG_KIND_FIELDS)[TagKind]['list'];
/** A kind's library page filter: `fandom`, `relationship`, … */
export type TagKindOneField = (typeof TAG_KIND_FIELDS)[TagKind]['one'];

export const TagDto = Type.Object({
  id: Uuid,
  name: Type.String(),
  storyCount: Type.Integer(),
  createdAt: DateTime,
  updatedAt: DateTime,
  kind: Nullable(TagKindSchema),
});
export type TagDto = Static<typeof TagDto>;

export const TagPage = Paged(TagDto);

export const TAG_SORT_KEYS = ['name', 'createdAt', 'storyCount'] as const;
export type TagSortKey = (typeof TAG_SORT_KEYS)[number];

export const TagListQuery = sortedPageQuery(TAG_SORT_KEYS);
export type TagListQuery = Static<typeof TagListQuery>;

export const TagSearchQuery = sortedPageQuery(TAG_SORT_KEYS, { query: SearchText });
export type TagSearchQuery = Static<typeof TagSearchQuery>;

export const TagAutocompleteQuery = limitQuery(10, { query: Type.String({ maxLength: TAG_NAME_MAX }) });
export const TagPopularQuery = limitQuery(20);

const TagName = Type.String({ maxLength: TAG_NAME_MAX });

export const TagCreateBody = Type.Object({ name: TagName });
export type TagCreateBody = Static<typeof TagCreateBody>;

export const TagUpdateBody = Type.Object({ name: Type.Optional(TagName) });
export type TagUpdateBody = Static<typeof TagUpdateBody>;

export const TagStats = Type.Object({
  totalTags: Type.Integer(),
  usedTags: Type.Integer(),
  unusedTags: Type.Integer(),
});
