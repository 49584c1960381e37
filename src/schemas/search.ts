/**
 * Search contracts (docs/api.md, "Search — /api/stories/search and /api/search"; docs/decisions.md,
 * "Search"): the story search and suggestion queries, the author full-text query, the
 * SearchResultDto envelope, StorySearchDto, and the reindex and health bodies.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { AuthorDto } from './author.js';
import { DateTime, Nullable, Rating, Uuid } from './common.js';
import { READING_STATUSES, ReadingStatus } from './reading-status.js';
import { TAG_KINDS, TAG_KIND_FIELDS, type TagKind, type TagKindListField } from './tag.js';
import { FACET_VALUES_MAX } from './values.js';

const Page = Type.Integer({ minimum: 0, default: 0, description: '0-based page number' });
const Size = Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100' });
const SortDir = Type.String({ pattern: '^(?:[aA][sS][cC]|[dD][eE][sS][cC])$', description: 'asc or desc' });
/** Values of one search filter (`authors`, `tags`): a query string is not a place for more. */
export const SEARCH_FILTER_VALUES_MAX = 100;
/** Per value; a comma-separated value holds several names. */
export const SEARCH_FILTER_VALUE_MAX = 1000;
/** Repeated keys (`tags=a&tags=b`) or one comma-separated value (`tags=a,b`), or both. */
export const SearchNameList = Type.Array(Type.String({ maxLength: SEARCH_FILTER_VALUE_MAX }), { maxItems: SEARCH_FILTER_VALUES_MAX });

/** A kind's filter (docs/decisions.md, "Tag kinds"): tag names as `tags` takes them, each a tag of that kind. */
const kindFilter = (kind: TagKind) =>
  Type.Optional(
    Type.Array(Type.String({ maxLength: SEARCH_FILTER_VALUE_MAX }), {
      maxItems: SEARCH_FILTER_VALUES_MAX,
      description: `Names of tags of kind ${kind}, every one required (as tags); a name that is no ${kind} tag matches nothing`,
    }),
  );

/** The story search's filter of each tag kind: `fandoms`, `relationships`, … (TAG_KIND_FIELDS). */
export const TagKindFilters = {
  [TAG_KIND_FIELDS.fandom.list]: kindFilter('fandom'),
  [TAG_KIND_FIELDS.relationship.list]: kindFilter('relationship'),
  [TAG_KIND_FIELDS.character.list]: kindFilter('character'),
  [TAG_KIND_FIELDS.warning.list]: kindFilter('warning'),
  [TAG_KIND_FIELDS.category.list]: kindFilter('category'),
  [TAG_KIND_FIELDS.rating.list]: kindFilter('rating'),
  [TAG_KIND_FIELDS.freeform.list]: kindFilter('freeform'),
} satisfies Record<TagKindListField, unknown>;

export const STORY_SEARCH_SORT_KEYS = ['relevance', 'createdAt', 'updatedAt', 'title', 'rating', 'wordCount', 'authorName'] as const;
export type StorySearchSortKey = (typeof STORY_SEARCH_SORT_KEYS)[number];
/** `sortBy` of a story search (also a smart shelf's saved search: src/schemas/shelf.ts). */
export const StorySearchSort = Type.Unsafe<StorySearchSortKey>(
  Type.String({ enum: [...STORY_SEARCH_SORT_KEYS], description: `One of ${STORY_SEARCH_SORT_KEYS.join(', ')}` }),
);
/** `sortDir` of a story search: asc or desc in any letter case. */
export const SearchSortDir = SortDir;

export const StorySearchQuery = Type.Object({
  query: Type.String({ description: 'Search text; "*" or blank matches every story. Operators are taken as plain words.' }),
  page: Page,
  size: Size,
  authors: Type.Optional(SearchNameList),
  tags: Type.Optional(SearchNameList),
  ...TagKindFilters,
  minRating: Type.Optional(Rating),
  maxRating: Type.Optional(Rating),
  sortBy: Type.Optional(StorySearchSort),
  sortDir: Type.Optional(SortDir),
  readingStatus: Type.Optional(ReadingStatus),
  favourite: Type.Optional(Type.Boolean({ description: 'true: favourites only; false: the stories not marked favourite' })),
  facets: Type.Optional(
    Type.Boolean({ description: 'true: add author, tag (all and per kind), rating and reading counts over every matching story (top 20 of each)' }),
  ),
});
export type StorySearchQuery = Static<typeof StorySearchQuery>;

export const SuggestionQuery = Type.Object({
  query: Type.String({ description: 'Partial text' }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 5 }),
});
export type SuggestionQuery = Static<typeof SuggestionQuery>;

export const AUTHOR_SEARCH_SORT_KEYS = ['name', 'storyCount', 'authorRating', 'averageStoryRating', 'createdAt'] as const;
export type AuthorSearchSortKey = (typeof AUTHOR_SEARCH_SORT_KEYS)[number];

export const AuthorFullTextQuery = Type.Object({
  q: Type.String({ default: '*', description: 'Search text over name, notes and URLs; "*" or blank lists every author' }),
  page: Page,
  size: Size,
  sortBy: Type.Optional(
    Type.Unsafe<AuthorSearchSortKey>(Type.String({ enum: [...AUTHOR_SEARCH_SORT_KEYS], description: `One of ${AUTHOR_SEARCH_SORT_KEYS.join(', ')}` })),
  ),
  sortOrder: Type.Optional(SortDir),
});
export type AuthorFullTextQuery = Static<typeof AuthorFullTextQuery>;

export const StorySearchDto = Type.Object({
  id: Uuid,
  title: Type.String(),
  summary: Nullable(Type.String()),
  authorId: Nullable(Uuid),
  authorName: Nullable(Type.String()),
  seriesId: Nullable(Uuid),
  seriesName: Nullable(Type.String()),
  volume: Nullable(Type.Integer()),
  rating: Nullable(Type.Integer()),
  wordCount: Type.Integer(),
  coverPath: Nullable(Type.String()),
  sourceUrl: Nullable(Type.String()),
  tagNames: Type.Array(Type.String(), { description: 'Sorted by name' }),
  createdAt: DateTime,
  updatedAt: DateTime,
  readingStatus: Nullable(ReadingStatus),
  finishedAt: Nullable(DateTime),
  readCount: Type.Integer({ minimum: 0 }),
  favourite: Type.Boolean(),
  snippet: Nullable(
    Type.String({ description: 'Excerpt of the best-matching text: matches in <mark>, everything else HTML-escaped; null for "*"' }),
  ),
  chapter: Nullable(
    Type.Object(
      { index: Type.Integer({ minimum: 1 }), title: Type.String() },
      {
        description:
          "The chapter the snippet's words were found in (1-based, as GET /api/stories/{id}/chapters/{index}); null when they matched the title, summary, description or a name, for \"*\", and on Typesense",
      },
    ),
  ),
});
export type StorySearchDto = Static<typeof StorySearchDto>;

/** SearchResultDto (docs/api.md, "Fields › Search results") for any result item. */
export function SearchResult<T extends TSchema>(item: T) {
  return Type.Object({
    results: Type.Array(item),
    totalHits: Type.Integer(),
    page: Type.Integer({ description: 'The 0-based page asked for' }),
    perPage: Type.Integer({ description: 'The page size used' }),
    query: Type.String(),
    searchTimeMs: Type.Integer(),
  });
}

export { FACET_VALUES_MAX };

const FacetName = Type.Object({ name: Type.String(), count: Type.Integer({ minimum: 1 }) });
const KindFacet = Type.Array(FacetName, { maxItems: FACET_VALUES_MAX, description: 'Most stories first, then by name' });

/** Counts over the whole result set, not the page (docs/decisions.md, "Search facets"). */
export const SearchFacets = Type.Object({
  authors: Type.Array(FacetName, { maxItems: FACET_VALUES_MAX, description: 'Most stories first, then by name' }),
  tags: Type.Array(FacetName, { maxItems: FACET_VALUES_MAX, description: 'Most stories first, then by name' }),
  tagKinds: Type.Object(
    {
      fandom: KindFacet,
      relationship: KindFacet,
      character: KindFacet,
      warning: KindFacet,
      category: KindFacet,
      rating: KindFacet,
      freeform: KindFacet,
    } satisfies Record<TagKind, unknown>,
    { description: `The tags of each kind (${TAG_KINDS.join(', ')}) counted as tags are; every kind present, [] when it has none` },
  ),
  ratings: Type.Array(Type.Object({ rating: Rating, count: Type.Integer({ minimum: 1 }) }), {
    maxItems: 5,
    description: 'Highest rating first; unrated stories are not counted',
  }),
  readingStatuses: Type.Array(Type.Object({ readingStatus: ReadingStatus, count: Type.Integer({ minimum: 1 }) }), {
    maxItems: READING_STATUSES.length,
    description: `In the order ${READING_STATUSES.join(', ')}; stories without a status are not counted`,
  }),
  favourites: Type.Integer({ minimum: 0, description: 'How many matching stories are favourites' }),
  approximate: Type.Optional(
    Type.Literal(true, { description: 'Present when the search matched so many stories that the counts were estimated from an even sample' }),
  ),
});
export type SearchFacets = Static<typeof SearchFacets>;

export const StorySearchResult = Type.Composite([
  SearchResult(StorySearchDto),
  Type.Object({
    correctedQuery: Type.Optional(
      Type.String({ description: 'Present only when the exact text found nothing and these results match it with typos corrected' }),
    ),
    typoCorrected: Type.Optional(Type.Literal(true, { description: 'Present (true) exactly when correctedQuery is' })),
    facets: Type.Optional(SearchFacets),
  }),
]);
export type StorySearchResult = Static<typeof StorySearchResult>;

export const AuthorSearchResult = SearchResult(AuthorDto);
export type AuthorSearchResult = Static<typeof AuthorSearchResult>;

export const SuggestionList = Type.Array(Type.String());

export const ReindexResult = Type.Object({ message: Type.String(), storiesCount: Type.Integer() });
export type ReindexResult = Static<typeof ReindexResult>;

export const SEARCH_ENGINES = ['embedded', 'typesense'] as const;
export type SearchEngineKind = (typeof SEARCH_ENGINES)[number];

export const SearchHealth = Type.Object({
  status: Type.Union([Type.Literal('healthy'), Type.Literal('unhealthy')]),
  message: Type.String(),
  engine: Type.Union(SEARCH_ENGINES.map((engine) => Type.Literal(engine))),
  error: Type.Optional(Type.String()),
  /** Typesense only: changes waiting in the outbox. */
  pendingChanges: Type.Optional(Type.Integer()),
});
export type SearchHealth = Static<typeof SearchHealth>;
