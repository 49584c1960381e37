/**
 * Shelf contracts (docs/api.md, "Shelves — /api/shelves"; docs/decisions.md, "Shelves"): the DTO,
 * the create and update bodies with a smart shelf's saved search, the story list of a manual
 * shelf, and the paged list.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable, PageQuery, Paged, sortedPageQuery, Uuid } from './common.js';
import { StorySearchQuery } from './search.js';

export const SHELF_NAME_MAX = 255;
export const SHELF_DESCRIPTION_MAX = 1000;
/** The search text a smart shelf saves: a search box's worth, not a document. */
export const SHELF_QUERY_TEXT_MAX = 500;
/**
 * Stories one manual shelf holds, and so the longest `storyIds` a PUT may give: a reading list,
 * not a second library (a body of 2,000 ids is ~80 KB).
 */
export const SHELF_STORIES_MAX = 2000;

export const SHELF_KINDS = ['manual', 'smart'] as const;
export type ShelfKind = (typeof SHELF_KINDS)[number];
const ShelfKindSchema = Type.Union(SHELF_KINDS.map((kind) => Type.Literal(kind)));

/**
 * A smart shelf's saved search: the parameters of `GET /api/stories/search`, by the same names
 * and with the same schema pieces (paging and facets aside, which belong to a request, not to a
 * shelf); `query` absent or blank matches every story.
 */
export const SmartShelfQuery = Type.Composite([
  Type.Object({ query: Type.Optional(Type.String({ maxLength: SHELF_QUERY_TEXT_MAX, description: 'Search text; absent, blank or "*" matches every story' })) }),
  Type.Pick(StorySearchQuery, ['authors', 'tags', 'minRating', 'maxRating', 'readingStatus', 'favourite', 'sortBy', 'sortDir']),
]);
export type SmartShelfQuery = Static<typeof SmartShelfQuery>;

export const ShelfDto = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  kind: ShelfKindSchema,
  query: Nullable(SmartShelfQuery),
  storyCount: Nullable(Type.Integer({ description: 'A manual shelf\'s stories; null for a smart shelf (its stories are whatever its search finds now)' })),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type ShelfDto = Static<typeof ShelfDto>;

export const ShelfPage = Paged(ShelfDto);

export const SHELF_SORT_KEYS = ['name', 'createdAt'] as const;
export type ShelfSortKey = (typeof SHELF_SORT_KEYS)[number];

export const ShelfListQuery = sortedPageQuery(SHELF_SORT_KEYS);
export type ShelfListQuery = Static<typeof ShelfListQuery>;

/** `GET /api/shelves/{id}/stories`: the order is the shelf's own (a manual shelf's, or its search's). */
export const ShelfStoriesQuery = PageQuery;
export type ShelfStoriesQuery = Static<typeof ShelfStoriesQuery>;

const ShelfName = Type.String({ maxLength: SHELF_NAME_MAX });
const ShelfDescription = Type.String({ maxLength: SHELF_DESCRIPTION_MAX });

/** A smart shelf needs `query`; a manual shelf has none. `description: null` is taken as absent. */
export const ShelfCreateBody = Type.Object({
  name: ShelfName,
  description: Type.Optional(Nullable(ShelfDescription)),
  kind: ShelfKindSchema,
  query: Type.Optional(SmartShelfQuery),
});
export type ShelfCreateBody = Static<typeof ShelfCreateBody>;

/**
 * Partial: absent fields are untouched, `description: null` clears. `query` replaces the whole
 * saved search. Turning a manual shelf smart needs a `query` and lets its stories go; turning a
 * smart shelf manual drops its search and starts it empty.
 */
export const ShelfUpdateBody = Type.Object({
  name: Type.Optional(ShelfName),
  description: Type.Optional(Nullable(ShelfDescription)),
  kind: Type.Optional(ShelfKindSchema),
  query: Type.Optional(SmartShelfQuery),
});
export type ShelfUpdateBody = Static<typeof ShelfUpdateBody>;

/** `PUT /api/shelves/{id}/stories`: the manual shelf's stories, exactly these, in this order. */
export const ShelfStoryIdsBody = Type.Object({
  storyIds: Type.Array(Uuid, { maxItems: SHELF_STORIES_MAX, description: `At most ${SHELF_STORIES_MAX}; a repeated id keeps its first place` }),
});
export type ShelfStoryIdsBody = Static<typeof ShelfStoryIdsBody>;

export const ShelfStoryParams = Type.Object({ id: Uuid, storyId: Uuid });
export type ShelfStoryParams = Static<typeof ShelfStoryParams>;
