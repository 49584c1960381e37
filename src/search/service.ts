/**
 * The search use cases between the routes and the engine: query-string forms become engine
 * requests, and results get the SearchResultDto echo fields (docs/api.md, "Fields › Search
 * results").
 */
import { performance } from 'node:perf_hooks';
import { BadRequest, invalidField } from '../errors.js';
import { pageWindow, sortDirection } from '../lib/pagination.js';
import {
  SEARCH_FILTER_VALUES_MAX,
  type AuthorFullTextQuery,
  type AuthorSearchResult,
  type ReindexResult,
  type StorySearchQuery,
  type StorySearchResult,
} from '../schemas/search.js';
import type { SearchEngine, SearchPage } from './engine.js';

/**
 * `tags=a&tags=b`, `tags=a,b` or both: trimmed names, blanks dropped (docs/decisions.md, "Lists and
 * pagination"). Undefined when nothing is left, so an empty filter filters nothing.
 */
export function nameList(values: readonly string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  const names = values.flatMap((value) => value.split(',')).map((name) => name.trim()).filter((name) => name !== '');
  return names.length === 0 ? undefined : names;
}

/**
 * The `authors` and `tags` filters as name lists, each at most {@link SEARCH_FILTER_VALUES_MAX}
 * names after splitting: the schema bounds the values (100 of up to 1,000 characters), but commas
 * inside them could still make ~50,000 names, each a key to fold and look up. One 400 names
 * every field over the bound.
 */
function filterNames(query: StorySearchQuery): { authors?: string[]; tags?: string[] } {
  const lists = { authors: nameList(query.authors), tags: nameList(query.tags) };
  const details: Record<string, string> = {};
  for (const [field, names] of Object.entries(lists)) {
    if (names !== undefined && names.length > SEARCH_FILTER_VALUES_MAX) details[field] = `must name at most ${SEARCH_FILTER_VALUES_MAX} ${field} in all`;
  }
  if (Object.keys(details).length > 0) throw new BadRequest('Validation failed', details);
  return lists;
}

function withEcho<T>(result: SearchPage<T>, query: string, started: number) {
  return { ...result, query, searchTimeMs: Math.round(performance.now() - started) };
}

export async function searchStories(engine: SearchEngine, query: StorySearchQuery): Promise<StorySearchResult> {
  const started = performance.now();
  // Both engines compute page * size: a page too far out for an exact offset is a 400 here.
  pageWindow(query);
  if (query.minRating !== undefined && query.maxRating !== undefined && query.minRating > query.maxRating) {
    throw invalidField('minRating', 'must not be greater than maxRating');
  }
  const { authors, tags } = filterNames(query);
  const result = await engine.searchStories({
    query: query.query,
    page: query.page,
    size: query.size,
    authors,
    tags,
    minRating: query.minRating,
    maxRating: query.maxRating,
    sortBy: query.sortBy ?? 'relevance',
    sortDir: sortDirection(query.sortDir, 'desc'),
  });
  return withEcho(result, query.query, started);
}

export async function searchAuthors(engine: SearchEngine, query: AuthorFullTextQuery): Promise<AuthorSearchResult> {
  const started = performance.now();
  pageWindow(query);
  const result = await engine.searchAuthors({
    query: query.q,
    page: query.page,
    size: query.size,
    sortBy: query.sortBy ?? 'name',
    sortDir: sortDirection(query.sortOrder, 'asc'),
  });
  return withEcho(result, query.q, started);
}

export async function reindex(engine: SearchEngine): Promise<ReindexResult> {
  const { storiesCount, detail } = await engine.reindex();
  const message = `Search index rebuilt: ${storiesCount} ${storiesCount === 1 ? 'story' : 'stories'} indexed`;
  return { message: detail === undefined ? message : `${message}. ${detail}`, storiesCount };
}
