/**
 * The story lists (docs/api.md, "Stories — /api/stories"): the paged list and its author and tag
 * scopes, a series' stories, recent and top-rated (orders in docs/decisions.md, "Lists and
 * pagination"). Each list picks its ids first and then renders just those stories as JSON in one
 * query (./present.ts).
 */
import type { Db } from '../db/open.js';
import { NotFound } from '../errors.js';
import { findAuthorById } from '../authors/repository.js';
import { findSeriesById } from '../series/repository.js';
import { findTagByName } from '../tags/repository.js';
import { pageWindow, sortDirection } from '../lib/pagination.js';
import { jsonPage, type JsonBytes } from '../lib/json-bytes.js';
import type { StoryListQuery } from '../schemas/story.js';
import { countStories, seriesStoryIds, sortedStoryIds, topRatedStoryIds, type StoryScope } from './page-queries.js';
import { loadStoriesJsonArray } from './repository.js';
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
