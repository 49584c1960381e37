/**
 * The search page's query string: the API's `StorySearchQuery` (docs/api.md, "Search —
 * /api/stories/search and /api/search") with the page's names, `q` for the text and one `sort`
 * for the four orders the page offers, checked by the app's validator so a bad value is a 400
 * page naming the field (docs/decisions.md, "Search page").
 */
import { Type, type Static } from '@sinclair/typebox';
import { StorySearchQuery, SuggestionQuery, type StorySearchSortKey } from '../../schemas/search.js';
import { TAG_KINDS, TAG_KIND_FIELDS } from '../../schemas/tag.js';

/** The orders the page offers, each one `sortBy` and `sortDir` of the API. */
export const SEARCH_PAGE_SORTS = {
  relevance: { label: 'Relevance', sortBy: 'relevance', sortDir: 'desc' },
  newest: { label: 'Newest', sortBy: 'createdAt', sortDir: 'desc' },
  title: { label: 'Title', sortBy: 'title', sortDir: 'asc' },
  rating: { label: 'Rating', sortBy: 'rating', sortDir: 'desc' },
} as const satisfies Record<string, { label: string; sortBy: StorySearchSortKey; sortDir: 'asc' | 'desc' }>;
export type SearchPageSort = keyof typeof SEARCH_PAGE_SORTS;
const SORT_NAMES = Object.keys(SEARCH_PAGE_SORTS) as SearchPageSort[];

// The page always asks for facets, so `facets` is not one of its fields.
const { query: _query, sortBy: _sortBy, sortDir: _sortDir, facets: _facets, ...filters } = StorySearchQuery.properties;

export const SearchPageQuery = Type.Object({
  q: Type.String({ default: '', description: 'Search text; "*" matches every story' }),
  ...filters,
  sort: Type.Optional(Type.Unsafe<SearchPageSort>(Type.String({ enum: SORT_NAMES, description: `One of ${SORT_NAMES.join(', ')}` }))),
});
export type SearchPageQuery = Static<typeof SearchPageQuery>;

/** The suggestion box's text, as the header and page inputs send it (`q`), with the API's bounds. */
export const SuggestionPageQuery = Type.Object({ q: Type.String({ default: '', maxLength: 200 }) });
export type SuggestionPageQuery = Static<typeof SuggestionPageQuery>;
/** As many suggestions as fit under a box on a phone; within `SuggestionQuery`'s limit. */
export const SUGGESTION_COUNT = Math.min(8, SuggestionQuery.properties.limit.maximum ?? 8);

/**
 * A GET form sends every field, empty ones too (`minRating=&tags=`): an empty value is a field
 * left blank, so it is removed before validation instead of failing as "not an integer".
 */
export function dropBlankFields(query: unknown): void {
  if (query === null || typeof query !== 'object') return;
  const fields = query as Record<string, unknown>;
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'q') continue;
    if (value === '') delete fields[name];
    else if (Array.isArray(value)) {
      const kept = value.filter((item) => item !== '');
      if (kept.length === 0) delete fields[name];
      else fields[name] = kept;
    }
  }
}

/** Whether the reader asked for anything: text or a filter. Blank text with a filter searches every story. */
export function asksForResults(query: SearchPageQuery): boolean {
  return (
    query.q.trim() !== '' ||
    query.authors !== undefined ||
    query.tags !== undefined ||
    TAG_KINDS.some((kind) => query[TAG_KIND_FIELDS[kind].list] !== undefined) ||
    query.minRating !== undefined ||
    query.maxRating !== undefined
  );
}

/** The API's query for the page's: blank text becomes `*`, as the API takes it. */
export function toStorySearchQuery(query: SearchPageQuery): StorySearchQuery {
  const sort = SEARCH_PAGE_SORTS[query.sort ?? 'relevance'];
  return {
    query: query.q.trim() === '' ? '*' : query.q,
    page: query.page,
    size: query.size,
    authors: query.authors,
    tags: query.tags,
    ...Object.fromEntries(TAG_KINDS.map((kind) => [TAG_KIND_FIELDS[kind].list, query[TAG_KIND_FIELDS[kind].list]])),
    minRating: query.minRating,
    maxRating: query.maxRating,
    sortBy: sort.sortBy,
    sortDir: sort.sortDir,
    facets: true,
  };
}

/**
 * The text with every word in quotes, which neither engine corrects (docs/decisions.md, "Typo
 * tolerance"): the "search for exactly these words" link after a correction.
 */
export function exactWordsText(text: string): string {
  const words = text.replace(/"/g, ' ').trim();
  return words === '' ? text : `"${words}"`;
}
