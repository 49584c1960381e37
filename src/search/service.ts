/**
 * The search use cases between the routes and the engine: query-string forms become engine
 * requests, complete with their defaults (filled here only, so both engines see the same
 * request), and results get the SearchResultDto echo fields (docs/api.md, "Fields › Search
 * results").
 */
import { performance } from 'node:perf_hooks';
import { BadRequest } from '../errors.js';
import { pageWindow, sortDirection } from '../lib/pagination.js';
import {
  SEARCH_FILTER_VALUES_MAX,
  type AuthorFullTextQuery,
  type AuthorSearchResult,
  type ReindexResult,
  type StorySearchQuery,
  type StorySearchResult,
} from '../schemas/search.js';
import { TAG_KINDS, TAG_KIND_FIELDS, type TagKindListField } from '../schemas/tag.js';
import type { AuthorSearchRequest, SearchEngine, SearchPage, StorySearchRequest, TagKindNames } from './engine.js';

/**
 * `tags=a&tags=b`, `tags=a,b` or both: trimmed names, blanks dropped (docs/decisions.md, "Lists and
 * pagination"). Undefined when nothing is left, so an empty filter filters nothing.
 */
export function nameList(values: readonly string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  const names = values.flatMap((value) => value.split(',')).map((name) => name.trim()).filter((name) => name !== '');
  return names.length === 0 ? undefined : names;
}

/** The filters of a story search as the query string (or a smart shelf's saved search) gives them. */
export type StorySearchFilters = Pick<StorySearchQuery, 'authors' | 'tags' | 'minRating' | 'maxRating'> &
  Partial<Pick<StorySearchQuery, TagKindListField>>;

/**
 * The filter rules a schema cannot say, one 400 naming every offending field: `minRating` not
 * above `maxRating`, and the `authors`, `tags` and tag kind filters (`fandoms`, …) at most
 * {@link SEARCH_FILTER_VALUES_MAX} names each after splitting (the schema bounds the values, 100 of
 * up to 1,000 characters, but commas inside them could still make ~50,000 names, each a key to
 * fold and look up). Returns the name lists, the kinds' by kind. Smart shelves check their saved
 * search with it too (src/shelves/service.ts).
 */
export function checkedSearchFilters(query: StorySearchFilters): { authors?: string[]; tags?: string[]; tagsByKind?: TagKindNames } {
  const details: Record<string, string> = {};
  if (query.minRating !== undefined && query.maxRating !== undefined && query.minRating > query.maxRating) {
    details.minRating = 'must not be greater than maxRating';
  }
  const lists: Record<string, string[] | undefined> = { authors: nameList(query.authors), tags: nameList(query.tags) };
  const tagsByKind: TagKindNames = {};
  for (const kind of TAG_KINDS) {
    const field = TAG_KIND_FIELDS[kind].list;
    const names = nameList(query[field]);
    lists[field] = names;
    if (names !== undefined) tagsByKind[kind] = names;
  }
  for (const [field, names] of Object.entries(lists)) {
    if (names !== undefined && names.length > SEARCH_FILTER_VALUES_MAX) details[field] = `must name at most ${SEARCH_FILTER_VALUES_MAX} ${field} in all`;
  }
  // Each kind's name is one more required tag: together they stay within what `tags` alone may ask (one plan condition each).
  const tagFields = ['tags', ...TAG_KINDS.map((kind) => TAG_KIND_FIELDS[kind].list)].filter((field) => lists[field] !== undefined);
  const required = tagFields.reduce((sum, field) => sum + (lists[field]?.length ?? 0), 0);
  if (required > SEARCH_FILTER_VALUES_MAX) {
    for (const field of tagFields) details[field] ??= `tags and the tag kind filters must name at most ${SEARCH_FILTER_VALUES_MAX} tags in all`;
  }
  if (Object.keys(details).length > 0) throw new BadRequest('Validation failed', details);
  return { authors: lists.authors, tags: lists.tags, ...(Object.keys(tagsByKind).length === 0 ? {} : { tagsByKind }) };
}

/** A page when none is asked for, and its size (the query schema's defaults too). */
const DEFAULT_PAGE = 0;
const DEFAULT_SIZE = 20;

type Defaulted = 'page' | 'size' | 'sortBy' | 'sortDir';
/** A story search as callers may give it: page, size and sort may be left out. */
export type StorySearchInput = Omit<StorySearchRequest, Defaulted> & Partial<Pick<StorySearchRequest, Defaulted>>;
/** An author search as callers may give it: page, size and sort may be left out. */
export type AuthorSearchInput = Omit<AuthorSearchRequest, Defaulted> & Partial<Pick<AuthorSearchRequest, Defaulted>>;

/** The complete story search: first page of 20, by relevance, best first. */
export function storySearchRequest(input: StorySearchInput): StorySearchRequest {
  return { ...input, page: input.page ?? DEFAULT_PAGE, size: input.size ?? DEFAULT_SIZE, sortBy: input.sortBy ?? 'relevance', sortDir: input.sortDir ?? 'desc' };
}

/** The complete author search: first page of 20, by name, A to Z. */
export function authorSearchRequest(input: AuthorSearchInput): AuthorSearchRequest {
  return { ...input, page: input.page ?? DEFAULT_PAGE, size: input.size ?? DEFAULT_SIZE, sortBy: input.sortBy ?? 'name', sortDir: input.sortDir ?? 'asc' };
}

function withEcho<T>(result: SearchPage<T>, query: string, started: number) {
  return { ...result, query, searchTimeMs: Math.round(performance.now() - started) };
}

export async function answerStorySearch(engine: SearchEngine, query: StorySearchQuery): Promise<StorySearchResult> {
  const started = performance.now();
  // Both engines compute page * size: a page too far out for an exact offset is a 400 here.
  pageWindow(query);
  const { authors, tags, tagsByKind } = checkedSearchFilters(query);
  const result = await engine.searchStories(
    storySearchRequest({
      query: query.query,
      page: query.page,
      size: query.size,
      authors,
      tags,
      tagsByKind,
      minRating: query.minRating,
      maxRating: query.maxRating,
      readingStatus: query.readingStatus,
      favourite: query.favourite,
      sortBy: query.sortBy,
      sortDir: sortDirection(query.sortDir, 'desc'),
      facets: query.facets === true ? true : undefined,
    }),
  );
  // Without a correction or facets the body keeps exactly the SearchResultDto fields.
  const { correctedQuery, facets, ...page } = result;
  return {
    ...withEcho(page, query.query, started),
    ...(correctedQuery === undefined ? {} : { correctedQuery, typoCorrected: true as const }),
    ...(facets === undefined || query.facets !== true ? {} : { facets }),
  };
}

export async function answerAuthorSearch(engine: SearchEngine, query: AuthorFullTextQuery): Promise<AuthorSearchResult> {
  const started = performance.now();
  pageWindow(query);
  const result = await engine.searchAuthors(
    authorSearchRequest({ query: query.q, page: query.page, size: query.size, sortBy: query.sortBy, sortDir: sortDirection(query.sortOrder, 'asc') }),
  );
  return withEcho(result, query.q, started);
}

export async function reindex(engine: SearchEngine): Promise<ReindexResult> {
  const { storiesCount, detail } = await engine.reindex();
  const message = `Search index rebuilt: ${storiesCount} ${storiesCount === 1 ? 'story' : 'stories'} indexed`;
  return { message: detail === undefined ? message : `${message}. ${detail}`, storiesCount };
}
