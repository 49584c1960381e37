/**
 * What each OPDS feed shows (docs/api.md, "OPDS catalog"; docs/decisions.md, "OPDS catalog"), taken from
 * the same list, progress and search services the API and the pages use, paged 50 at a time
 * with the API's 0-based `page`. The feeds' markup is ./present.ts.
 */
import type { Db } from '../db/open.js';
import { getAuthor, listAuthors } from '../authors/service.js';
import { listSeries } from '../series/service.js';
import { listShelves, shelfStoryIdPage } from '../shelves/service.js';
import { getTag, listTags } from '../tags/service.js';
import type { TagKind } from '../schemas/tag.js';
import { ratedStoryIdPage, seriesStoryIdList, storyIdPage } from '../stories/list-service.js';
import { continueReadingIds } from '../stories/progress-service.js';
import type { StoryFilter } from '../stories/page-queries.js';
import { answerStorySearch } from '../search/service.js';
import type { SearchEngine } from '../search/engine.js';
import type { StorySortKey } from '../schemas/story.js';
import { pageWindow, type SortDirection } from '../lib/pagination.js';
import type { OpdsSort } from '../schemas/opds.js';
import type { ReadingStatus } from '../schemas/reading-status.js';
import { latestStoryUpdate, loadOpdsStories, type OpdsStory } from './repository.js';
import { updatedStoryIds } from '../follow/updates-service.js';

/** Entries per feed page (docs/decisions.md, "OPDS catalog"). */
export const OPDS_PAGE_SIZE = 50;

/** Before the first story, the feeds still need an `updated`: the start of the epoch. */
const EPOCH = '1970-01-01T00:00:00.000Z';

/** One page of an acquisition feed. */
export interface StoryPage {
  stories: OpdsStory[];
  total: number;
  page: number;
}

/** A thing a navigation feed leads to (an author, a series, a tag, a shelf). */
export interface NavigationItem {
  id: string;
  name: string;
  /** Null for a smart shelf: its stories are counted only by running its search. */
  storyCount: number | null;
  updated: string;
}

/** One page of a navigation feed. */
export interface NavigationPage {
  items: NavigationItem[];
  total: number;
  page: number;
}

/** The order of each sort facet of the all-stories feed; `title` (A–Z) is the default. */
export const SORT_ORDERS: Readonly<Record<OpdsSort, { sortBy: StorySortKey; sortDir: SortDirection }>> = {
  added: { sortBy: 'createdAt', sortDir: 'desc' },
  updated: { sortBy: 'updatedAt', sortDir: 'desc' },
  title: { sortBy: 'title', sortDir: 'asc' },
  rating: { sortBy: 'rating', sortDir: 'desc' },
  words: { sortBy: 'wordCount', sortDir: 'desc' },
};

function filteredPage(db: Db, filter: StoryFilter, order: { sortBy: StorySortKey; sortDir: SortDirection }, page: number): StoryPage {
  const { ids, total } = storyIdPage(db, filter, { page, size: OPDS_PAGE_SIZE, ...order });
  return { stories: loadOpdsStories(db, ids), total, page };
}

/** Every story in a facet's order. */
export function allStories(db: Db, sort: OpdsSort, page: number): StoryPage {
  return filteredPage(db, {}, SORT_ORDERS[sort], page);
}

/**
 * The stories that gained chapters after they were made (a refresh, a re-import, an append),
 * newest arrival first (docs/decisions.md, "Sources › Telling the reader").
 */
export function updated(db: Db, page: number): StoryPage {
  const { ids, total } = updatedStoryIds(db, pageWindow({ page, size: OPDS_PAGE_SIZE }));
  return { stories: loadOpdsStories(db, ids), total, page };
}

/** Rated stories only, best first. */
export function topRated(db: Db, page: number): StoryPage {
  const { ids, total } = ratedStoryIdPage(db, { page, size: OPDS_PAGE_SIZE });
  return { stories: loadOpdsStories(db, ids), total, page };
}

/** An author's stories, newest first, with the author's name; 404 when there is no such author. */
export function authorStories(db: Db, authorId: string, page: number): StoryPage & { name: string } {
  const { name } = getAuthor(db, authorId);
  return { ...filteredPage(db, { authorId }, SORT_ORDERS.added, page), name };
}

/** A tag's stories, newest first, with the tag's name; 404 when there is no such tag. */
export function tagStories(db: Db, tagId: string, page: number): StoryPage & { name: string } {
  const { name } = getTag(db, tagId);
  return { ...filteredPage(db, { tagId }, SORT_ORDERS.added, page), name };
}

/** A series' stories in volume order (unnumbered last), with its name; 404 when there is no such series. */
export function seriesStories(db: Db, seriesId: string, page: number): StoryPage & { name: string } {
  const { name, ids } = seriesStoryIdList(db, seriesId);
  const { offset, limit } = pageWindow({ page, size: OPDS_PAGE_SIZE });
  return { stories: loadOpdsStories(db, ids.slice(offset, offset + limit)), total: ids.length, page, name };
}

/** The stories being read, most recently read first: one page of at most {@link OPDS_PAGE_SIZE}. */
export function continueReading(db: Db): StoryPage {
  const stories = loadOpdsStories(db, continueReadingIds(db, OPDS_PAGE_SIZE));
  return { stories, total: stories.length, page: 0 };
}

/**
 * The reader's lists (docs/decisions.md, "Reading status"): the stories with one reading status,
 * or the favourites, newest first, through the story search's filters (the same answer as
 * `GET /api/stories/search?query=*&readingStatus=…&sortBy=createdAt`).
 */
export async function readerList(db: Db, engine: SearchEngine, filter: ReaderListFilter, page: number): Promise<StoryPage> {
  const result = await answerStorySearch(engine, { query: '*', page, size: OPDS_PAGE_SIZE, sortBy: 'createdAt', sortDir: 'desc', ...filter });
  return { stories: loadOpdsStories(db, result.results.map((story) => story.id)), total: result.totalHits, page };
}

/** Which of the reader's lists: one status, or the favourites. */
export type ReaderListFilter = { readingStatus: ReadingStatus } | { favourite: true };

/** The story search (`/api/stories/search`'s rules: relevance first, blank matches every story). */
export async function search(db: Db, engine: SearchEngine, query: string, page: number): Promise<StoryPage> {
  const result = await answerStorySearch(engine, { query, page, size: OPDS_PAGE_SIZE });
  // The engine's own rows are enough for the ids; the entries are read as every feed reads them.
  return { stories: loadOpdsStories(db, result.results.map((story) => story.id)), total: result.totalHits, page };
}

/** Authors A–Z, only those with stories: an empty author would lead to an empty feed. */
export function authors(db: Db, page: number): NavigationPage {
  const result = listAuthors(db, { page, size: OPDS_PAGE_SIZE, sortBy: 'name' }, { withStories: true });
  const items = result.content.map((author) => ({ id: author.id, name: author.name, storyCount: author.storyCount, updated: author.updatedAt }));
  return { items, total: result.totalElements, page };
}

/** Series A–Z, only those with stories. */
export function series(db: Db, page: number): NavigationPage {
  const result = listSeries(db, { page, size: OPDS_PAGE_SIZE, sortBy: 'name' }, { withStories: true });
  const items = result.content.map((found) => ({ id: found.id, name: found.name, storyCount: found.storyCount, updated: found.createdAt }));
  return { items, total: result.totalElements, page };
}

/** Tags, most used first, only those some story has. */
export function tags(db: Db, page: number): NavigationPage {
  return tagsOfKind(db, page);
}

/** The "By fandom" feed: tags of kind `fandom`, most used first, only those some story has (docs/decisions.md, "OPDS catalog"). */
export function fandoms(db: Db, page: number): NavigationPage {
  return tagsOfKind(db, page, 'fandom');
}

function tagsOfKind(db: Db, page: number, kind?: TagKind): NavigationPage {
  const result = listTags(db, { page, size: OPDS_PAGE_SIZE, sortBy: 'storyCount' }, kind === undefined ? { withStories: true } : { withStories: true, kind });
  const items = result.content.map((tag) => ({ id: tag.id, name: tag.name, storyCount: tag.storyCount, updated: tag.updatedAt }));
  return { items, total: result.totalElements, page };
}

/** Shelves A–Z, manual and smart alike. */
export function shelves(db: Db, page: number): NavigationPage {
  const result = listShelves(db, { page, size: OPDS_PAGE_SIZE, sortBy: 'name' });
  const items = result.content.map((shelf) => ({ id: shelf.id, name: shelf.name, storyCount: shelf.storyCount, updated: shelf.updatedAt }));
  return { items, total: result.totalElements, page };
}

/** A shelf's stories in its order (a smart shelf's as its search finds them now), with its name; 404 when there is no such shelf. */
export async function shelfStories(db: Db, engine: SearchEngine, shelfId: string, page: number): Promise<StoryPage & { name: string }> {
  const { shelf, ids, total } = await shelfStoryIdPage(db, engine, shelfId, { page, size: OPDS_PAGE_SIZE });
  return { stories: loadOpdsStories(db, ids), total, page, name: shelf.name };
}

/** The catalog root's `updated`: the newest change to any story. */
export function libraryUpdated(db: Db): string {
  return latestStoryUpdate(db) ?? EPOCH;
}

/** A feed's `updated`: its newest entry's, else the library's. */
export function newest(db: Db, stamps: readonly string[]): string {
  let latest: string | undefined;
  for (const stamp of stamps) if (latest === undefined || stamp > latest) latest = stamp;
  return latest ?? libraryUpdated(db);
}
