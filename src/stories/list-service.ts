/**
 * The story lists (docs/api.md, "Stories — /api/stories"): the paged list and its author and tag
 * scopes, a series' stories, recent and top-rated (orders in docs/decisions.md, "Lists and
 * pagination"). Each list picks its ids first and then renders just those stories as JSON in one
 * query (./present.ts).
 */
import type { Db } from '../db/open.js';
import { BadRequest, NotFound, type ErrorDetails } from '../errors.js';
import { findAuthorById } from '../authors/repository.js';
import { findSeriesById } from '../series/repository.js';
import { findTagByName } from '../tags/repository.js';
import { pageWindow, sortDirection } from '../lib/pagination.js';
import { jsonPage, type JsonBytes } from '../lib/json-bytes.js';
import type { StoryListQuery } from '../schemas/story.js';
import type { ReadingStatus } from '../schemas/reading-status.js';
import { TAG_KINDS, TAG_KIND_FIELDS, type TagKind, type TagKindOneField } from '../schemas/tag.js';
import {
  countFilteredStories,
  countStories,
  filteredStoryIds,
  seriesStoryIds,
  sortedStoryIds,
  topRatedStoryIds,
  type StoryFilter,
  type StoryScope,
} from './page-queries.js';
import { loadStoriesJsonArray, loadStoryCards } from './repository.js';
import type { StoryCard } from './present.js';
import { presentStories } from './service.js';

/** One page of the scope; `createdAt` is the default key and `desc` the default direction (docs/api.md, "Sorting"). */
function storyPage(db: Db, scope: StoryScope, query: StoryListQuery): JsonBytes {
  const sortBy = query.sortBy ?? 'createdAt';
  const direction = sortDirection(query.sortDir, 'desc');
  const total = countStories(db, scope);
  const window = pageWindow(query);
  const ids = window.offset < total ? sortedStoryIds(db, scope, sortBy, direction, window, total) : [];
  return jsonPage(ids.length, total, query, (before, after) => loadStoriesJsonArray(db, ids, before, after));
}

/** `GET /api/stories`. */
export function listStories(db: Db, query: StoryListQuery): JsonBytes {
  return storyPage(db, { kind: 'all' }, query);
}

/** `GET /api/stories/author/{authorId}`: 404 when there is no such author. */
export function listStoriesByAuthor(db: Db, authorId: string, query: StoryListQuery): JsonBytes {
  if (findAuthorById(db, authorId) === undefined) throw new NotFound(`Author not found with id: ${authorId}`);
  return storyPage(db, { kind: 'author', authorId }, query);
}

/** `GET /api/stories/tags/{tagName}`: the name matched by its fold (docs/decisions.md, "Name keys (case folding)"); 404 when unknown. */
export function listStoriesByTag(db: Db, tagName: string, query: StoryListQuery): JsonBytes {
  const tag = findTagByName(db, tagName);
  if (tag === undefined) throw new NotFound(`Tag not found with name: ${tagName.trim()}`);
  return storyPage(db, { kind: 'tag', tagId: tag.id }, query);
}

/** `GET /api/stories/series/{seriesId}`: every story, by volume (unnumbered last); 404 when unknown. */
export function listSeriesStories(db: Db, seriesId: string): JsonBytes {
  if (findSeriesById(db, seriesId) === undefined) throw new NotFound(`Series not found with id: ${seriesId}`);
  return presentStories(db, seriesStoryIds(db, seriesId));
}

/** `GET /api/stories/recent`: newest first. */
export function recentStories(db: Db, limit: number): JsonBytes {
  return presentStories(db, sortedStoryIds(db, { kind: 'all' }, 'createdAt', 'desc', { limit, offset: 0 }));
}

/** `GET /api/stories/top-rated`: rated stories only, best first, newer first among equals. */
export function topRatedStories(db: Db, limit: number): JsonBytes {
  return presentStories(db, topRatedStoryIds(db, limit));
}

/**
 * The same lists as cards for the pages (src/web/library): the same id queries, rendered by
 * `loadStoryCards` (no story texts) and parsed, with the total for the paging links.
 */
export interface StoryCardPage {
  cards: StoryCard[];
  total: number;
}

/** The filter as the API's scope when it is one (all, one author, one tag), so it pages down that index. */
function scopeOf(filter: StoryFilter): StoryScope | undefined {
  const { authorId, seriesId, tagId, tagIds, minRating, readingStatus, favourite } = filter;
  if (seriesId !== undefined || tagIds !== undefined || minRating !== undefined || readingStatus !== undefined || favourite !== undefined) return undefined;
  if (authorId !== undefined && tagId !== undefined) return undefined;
  if (authorId !== undefined) return { kind: 'author', authorId };
  if (tagId !== undefined) return { kind: 'tag', tagId };
  return { kind: 'all' };
}

/**
 * The ids of one page of the stories that pass the filter, in the query's order (defaults as the
 * API's), and how many pass: what {@link storyCardPage} renders as cards, for the pages and the
 * OPDS feeds (src/opds) alike.
 */
export function storyIdPage(db: Db, filter: StoryFilter, query: StoryListQuery): { ids: string[]; total: number } {
  const sortBy = query.sortBy ?? 'createdAt';
  const direction = sortDirection(query.sortDir, 'desc');
  const window = pageWindow(query);
  const scope = scopeOf(filter);
  const total = scope === undefined ? countFilteredStories(db, filter) : countStories(db, scope);
  if (window.offset >= total) return { ids: [], total };
  const ids = scope === undefined ? filteredStoryIds(db, filter, sortBy, direction, window) : sortedStoryIds(db, scope, sortBy, direction, window, total);
  return { ids, total };
}

/**
 * One page of the rated stories, best first (then id, as the rating sort of the lists): the
 * rated part of the `(rating, id)` index, read from its nearer end, so a late page costs what the
 * first does (a `minRating` filter sorts every rated story instead: 120 ms for page 50 of
 * 16,000). For the OPDS top-rated feed (src/opds).
 */
export function ratedStoryIdPage(db: Db, query: { page: number; size: number }): { ids: string[]; total: number } {
  const total = countFilteredStories(db, { minRating: 1 });
  const window = pageWindow(query);
  if (window.offset >= total) return { ids: [], total };
  const rated = { limit: Math.min(window.limit, total - window.offset), offset: window.offset };
  return { ids: sortedStoryIds(db, { kind: 'all' }, 'rating', 'desc', rated, countStories(db, { kind: 'all' })), total };
}

/** One page of cards of the stories that pass the filter, in the query's order (defaults as the API's). */
export function storyCardPage(db: Db, filter: StoryFilter, query: StoryListQuery): StoryCardPage {
  const { ids, total } = storyIdPage(db, filter, query);
  return { cards: loadStoryCards(db, ids), total };
}

/** A series' stories as cards, by volume (unnumbered last); 404 when unknown. */
export function seriesStoryCards(db: Db, seriesId: string): StoryCard[] {
  if (findSeriesById(db, seriesId) === undefined) throw new NotFound(`Series not found with id: ${seriesId}`);
  return loadStoryCards(db, seriesStoryIds(db, seriesId));
}

/** A series' name and its story ids by volume (unnumbered last), as the cards above order them; 404 when unknown. */
export function seriesStoryIdList(db: Db, seriesId: string): { name: string; ids: string[] } {
  const found = findSeriesById(db, seriesId);
  if (found === undefined) throw new NotFound(`Series not found with id: ${seriesId}`);
  return { name: found.name, ids: seriesStoryIds(db, seriesId) };
}

/** The newest stories as cards. */
export function recentStoryCards(db: Db, limit: number): StoryCard[] {
  return loadStoryCards(db, sortedStoryIds(db, { kind: 'all' }, 'createdAt', 'desc', { limit, offset: 0 }));
}

/** The best rated stories as cards. */
export function topRatedStoryCards(db: Db, limit: number): StoryCard[] {
  return loadStoryCards(db, topRatedStoryIds(db, limit));
}

/** Cards of the stories with these ids (continue reading), in that order. */
export function storyCards(db: Db, ids: readonly string[]): StoryCard[] {
  return loadStoryCards(db, ids);
}

/**
 * The library's filters as a page's query names them: ids for author and series, a name for the
 * tag and for each tag kind's filter (`fandom`, …, `contentRating`: docs/decisions.md, "Tag kinds").
 */
export interface StoryFilterQuery extends Partial<Record<TagKindOneField, string>> {
  author?: string;
  series?: string;
  tag?: string;
  minRating?: number;
  readingStatus?: ReadingStatus;
  favourite?: boolean;
}

/**
 * The filter the query asks for, with the names to show; an unknown author, series or tag, or a
 * kind's name that is no tag of that kind, is one 400 naming each field. `tag` and the kinds'
 * names are all required: one of them alone is the tag's scope, several are `tagIds`.
 */
export function resolveStoryFilter(
  db: Db,
  query: StoryFilterQuery,
): { filter: StoryFilter; authorName?: string; seriesName?: string; tagName?: string; kindNames: Partial<Record<TagKind, string>> } {
  const details: ErrorDetails = {};
  const author = query.author === undefined ? undefined : findAuthorById(db, query.author);
  if (query.author !== undefined && author === undefined) details.author = 'no author has this id';
  const found = query.series === undefined ? undefined : findSeriesById(db, query.series);
  if (query.series !== undefined && found === undefined) details.series = 'no series has this id';
  const tag = query.tag === undefined ? undefined : findTagByName(db, query.tag);
  if (query.tag !== undefined && tag === undefined) details.tag = 'no tag has this name';
  const tagIds = new Set(tag === undefined ? [] : [tag.id]);
  const kindNames: Partial<Record<TagKind, string>> = {};
  for (const kind of TAG_KINDS) {
    const field = TAG_KIND_FIELDS[kind].one;
    const name = query[field];
    if (name === undefined) continue;
    const kindTag = findTagByName(db, name);
    if (kindTag === undefined || kindTag.kind !== kind) details[field] = `no ${kind} tag has this name`;
    else {
      tagIds.add(kindTag.id);
      kindNames[kind] = kindTag.name;
    }
  }
  if (Object.keys(details).length > 0) throw new BadRequest('Validation failed', details);
  const [firstTag, ...moreTags] = tagIds;
  return {
    filter: {
      authorId: author?.id,
      seriesId: found?.id,
      tagId: firstTag,
      ...(moreTags.length === 0 ? {} : { tagIds: moreTags }),
      minRating: query.minRating,
      readingStatus: query.readingStatus,
      favourite: query.favourite,
    },
    authorName: author?.name,
    seriesName: found?.name,
    tagName: tag?.name,
    kindNames,
  };
}

/** A tag's stories as cards, the tag found by its fold; 404 when unknown. Returns the tag's stored name. */
export function tagStoryCardPage(db: Db, tagName: string, query: StoryListQuery): StoryCardPage & { name: string } {
  const tag = findTagByName(db, tagName);
  if (tag === undefined) throw new NotFound(`Tag not found with name: ${tagName.trim()}`);
  return { ...storyCardPage(db, { tagId: tag.id }, query), name: tag.name };
}
