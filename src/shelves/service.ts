/**
 * Shelf rules and writes (docs/api.md, "Shelves — /api/shelves"; docs/decisions.md, "Shelves"): a
 * manual shelf holds stories in the reader's order, a smart shelf a saved search whose stories
 * are whatever it finds now. Names are unique case-insensitively, like series names. Every
 * write is one `writeTransaction`; shelves are not in the search documents, but the shelf's EPUB
 * records are deleted with it in the same transaction.
 */
import type { Db, Tx } from '../db/open.js';
import { writeTransaction } from '../db/transaction.js';
import { deleteBookRenditions } from '../epub/repository.js';
import { BadRequest, Conflict, invalidField, NotFound, type ErrorDetails } from '../errors.js';
import { jsonPage, type JsonBytes } from '../lib/json-bytes.js';
import { cleanName } from '../lib/names.js';
import { pageWindow, sortDirection, toPage, type PageOf, type PageRequest } from '../lib/pagination.js';
import type { SearchEngine } from '../search/engine.js';
import { checkedSearchFilters, storySearchRequest } from '../search/service.js';
import {
  SHELF_STORIES_MAX,
  type ShelfCreateBody,
  type ShelfDto,
  type ShelfListQuery,
  type ShelfUpdateBody,
  type SmartShelfQuery,
} from '../schemas/shelf.js';
import { loadStoriesJsonArray, missingStoryIds } from '../stories/repository.js';
import { storyNotFound } from '../stories/service.js';
import { collect, throwIfInvalid } from '../validation.js';
import { presentShelf, savedQuery } from './present.js';
import * as repo from './repository.js';

export function shelfNotFound(id: string): NotFound {
  return new NotFound(`Shelf not found with id: ${id}`);
}

function nameConflict(name: string): Conflict {
  return new Conflict(`A shelf named "${name}" already exists`, { name: 'is already used by another shelf' });
}

function smartShelfStories(id: string): Conflict {
  return new Conflict(`Shelf ${id} is a smart shelf: its stories are whatever its search finds`, { kind: 'must be manual to hold chosen stories' });
}

/** A name as stored: trimmed and NFC; blank is a 400 (the schema caps the length). */
function cleanShelfName(raw: string): string {
  const name = cleanName(raw);
  if (name === '') throw invalidField('name', 'must not be blank');
  return name;
}

/**
 * A saved search as stored: the search's own filter rules checked (a 400 naming `query.<field>`),
 * the name lists split and trimmed as the search reads them, `sortDir` lowercased, blank and
 * absent parts left out.
 */
export function normalizedQuery(query: SmartShelfQuery): SmartShelfQuery {
  let lists: { authors?: string[]; tags?: string[] };
  try {
    lists = checkedSearchFilters(query);
  } catch (error) {
    if (!(error instanceof BadRequest) || error.details === undefined) throw error;
    throw new BadRequest('Validation failed', Object.fromEntries(Object.entries(error.details).map(([field, message]) => [`query.${field}`, message])));
  }
  const text = query.query?.trim() ?? '';
  const saved: SmartShelfQuery = {};
  if (text !== '' && text !== '*') saved.query = text;
  if (lists.authors !== undefined) saved.authors = lists.authors;
  if (lists.tags !== undefined) saved.tags = lists.tags;
  if (query.minRating !== undefined) saved.minRating = query.minRating;
  if (query.maxRating !== undefined) saved.maxRating = query.maxRating;
  if (query.readingStatus !== undefined) saved.readingStatus = query.readingStatus;
  if (query.favourite !== undefined) saved.favourite = query.favourite;
  if (query.sortBy !== undefined) saved.sortBy = query.sortBy;
  if (query.sortDir !== undefined) saved.sortDir = query.sortDir.toLowerCase();
  return saved;
}

/** The kind a body leaves the shelf with, and the offences of its `kind` and `query` together. */
function kindIssues(details: ErrorDetails, kind: 'manual' | 'smart' | undefined, query: SmartShelfQuery | undefined, wasSmart: boolean): void {
  const smart = kind === undefined ? wasSmart : kind === 'smart';
  if (!smart && query !== undefined) details.query = 'only a smart shelf has a query';
  if (kind === 'smart' && !wasSmart && query === undefined) details.query = 'is required for a smart shelf';
}

/** The rule offences of a shelf body's schema-valid fields, for the route's `bodyRules` (src/validation.ts). */
export function shelfBodyIssues(body: Partial<ShelfUpdateBody>): ErrorDetails {
  const details: ErrorDetails = {};
  const { name, query } = body;
  if (name !== undefined) collect(details, () => cleanShelfName(name));
  if (query !== undefined) collect(details, () => normalizedQuery(query));
  return details;
}

function loadShelf(db: Db | Tx, id: string): repo.ShelfWithCount {
  const row = repo.findShelfById(db, id);
  if (row === undefined) throw shelfNotFound(id);
  return row;
}

/** GET /api/shelves/{id}. */
export function getShelf(db: Db, id: string): ShelfDto {
  return presentShelf(loadShelf(db, id));
}

/** GET /api/shelves: by name A to Z unless a sort is asked for (other keys newest first). */
export function listShelves(db: Db, query: ShelfListQuery): PageOf<ShelfDto> {
  const sortBy = query.sortBy ?? 'name';
  const direction = sortDirection(query.sortDir, sortBy === 'name' ? 'asc' : 'desc');
  const { rows, total } = repo.listShelves(db, sortBy, direction, pageWindow(query));
  return toPage(rows.map(presentShelf), total, query);
}

/** Manual shelves by name, for the pages' "add to shelf" choices. */
export function manualShelfChoices(db: Db): { id: string; name: string }[] {
  return repo.manualShelves(db, SHELF_CHOICES_MAX);
}
/** Shelves offered in one "add to shelf" list at most. */
const SHELF_CHOICES_MAX = 500;

/** POST /api/shelves: a name taken (case-insensitively) is a 409; a smart shelf needs its query. */
export function createShelf(db: Db, body: ShelfCreateBody): ShelfDto {
  const details: ErrorDetails = {};
  const name = collect(details, () => cleanShelfName(body.name));
  const query = body.query === undefined ? undefined : collect(details, () => normalizedQuery(body.query!));
  kindIssues(details, body.kind, body.query, false);
  throwIfInvalid(details);
  return writeTransaction(db, (tx) => {
    if (repo.shelfNameTaken(tx, name!)) throw nameConflict(name!);
    const id = repo.insertShelf(tx, {
      name: name!,
      description: body.description ?? null,
      kind: body.kind,
      query: body.kind === 'smart' ? JSON.stringify(query) : null,
    });
    return presentShelf(loadShelf(tx, id));
  });
}

/**
 * PUT /api/shelves/{id}: partial; `description: null` clears; `query` replaces the saved search.
 * A manual shelf turned smart lets its stories go; a smart one turned manual starts empty.
 */
export function updateShelf(db: Db, id: string, body: ShelfUpdateBody): ShelfDto {
  const details: ErrorDetails = {};
  const name = body.name === undefined ? undefined : collect(details, () => cleanShelfName(body.name!));
  const query = body.query === undefined ? undefined : collect(details, () => normalizedQuery(body.query!));
  throwIfInvalid(details);
  return writeTransaction(db, (tx) => {
    const current = loadShelf(tx, id);
    kindIssues(details, body.kind, body.query, current.kind === 'smart');
    throwIfInvalid(details);
    if (name !== undefined && repo.shelfNameTaken(tx, name, id)) throw nameConflict(name);
    const kind = body.kind ?? current.kind;
    if (kind === 'smart' && current.kind === 'manual') repo.replaceShelfStories(tx, id, []);
    repo.updateShelfRow(tx, id, {
      name,
      description: body.description,
      kind: body.kind,
      query: kind === 'manual' ? null : query === undefined ? undefined : JSON.stringify(query),
    });
    return presentShelf(loadShelf(tx, id));
  });
}

/** DELETE /api/shelves/{id}: its stories stay in the library; the records of its EPUB go with it. */
export function deleteShelf(db: Db, id: string): void {
  writeTransaction(db, (tx) => {
    if (!repo.deleteShelfRow(tx, id)) throw shelfNotFound(id);
    deleteBookRenditions(tx, 'shelf', id);
  });
}

/** A manual shelf, for a write to its stories: 404 when absent, 409 when smart. */
function manualShelf(tx: Tx, id: string): void {
  const shelf = loadShelf(tx, id);
  if (shelf.kind === 'smart') throw smartShelfStories(id);
}

/** The 400 of story ids that name no story, every one named. */
export function unknownStories(field: string, missing: readonly string[]): BadRequest {
  return new BadRequest('Validation failed', { [field]: `no story has ${missing.length === 1 ? 'this id' : 'these ids'}: ${missing.join(', ')}` });
}

/** Stamps the shelf as changed: its stories are part of it. */
function touch(tx: Tx, id: string): void {
  repo.updateShelfRow(tx, id, {});
}

/**
 * PUT /api/shelves/{id}/stories: the manual shelf holds exactly these stories, in this order (a
 * repeated id keeps its first place); ids that name no story are one 400 naming them all.
 */
export function setShelfStories(db: Db, id: string, storyIds: readonly string[]): ShelfDto {
  const distinct = [...new Set(storyIds)];
  return writeTransaction(db, (tx) => {
    manualShelf(tx, id);
    const missing = missingStoryIds(tx, distinct);
    if (missing.length > 0) throw unknownStories('storyIds', missing);
    repo.replaceShelfStories(tx, id, distinct);
    touch(tx, id);
    return presentShelf(loadShelf(tx, id));
  });
}

/** The 400 of a manual shelf that would hold more than {@link SHELF_STORIES_MAX}. */
export function shelfFull(field: string): BadRequest {
  return invalidField(field, `a shelf holds at most ${SHELF_STORIES_MAX} stories`);
}

/**
 * Adds stories (that exist) after the shelf's last, inside the caller's transaction: those already
 * on it keep their place; past {@link SHELF_STORIES_MAX} is a 400 on `field`. The bulk edit
 * (src/bulk/service.ts) adds its stories through it too.
 */
export function appendToShelf(tx: Tx, id: string, storyIds: readonly string[], field: string): number {
  const added = repo.appendShelfStories(tx, id, storyIds);
  if (added > 0 && repo.shelfStoryCount(tx, id) > SHELF_STORIES_MAX) throw shelfFull(field);
  if (added > 0) touch(tx, id);
  return added;
}

/** Takes stories off a shelf inside the caller's transaction; returns how many were on it. */
export function removeFromShelf(tx: Tx, id: string, storyIds: readonly string[]): number {
  const removed = repo.removeShelfStories(tx, id, storyIds);
  if (removed > 0) touch(tx, id);
  return removed;
}

/** POST /api/shelves/{id}/stories/{storyId}: after the last; already on the shelf changes nothing. */
export function addShelfStory(db: Db, id: string, storyId: string): ShelfDto {
  return writeTransaction(db, (tx) => {
    manualShelf(tx, id);
    if (missingStoryIds(tx, [storyId]).length > 0) throw storyNotFound(storyId);
    appendToShelf(tx, id, [storyId], 'storyId');
    return presentShelf(loadShelf(tx, id));
  });
}

/** DELETE /api/shelves/{id}/stories/{storyId}: not on the shelf changes nothing. */
export function removeShelfStory(db: Db, id: string, storyId: string): ShelfDto {
  return writeTransaction(db, (tx) => {
    manualShelf(tx, id);
    removeFromShelf(tx, id, [storyId]);
    return presentShelf(loadShelf(tx, id));
  });
}

/** A shelf and one page of its story ids in its order, with how many it holds. */
export interface ShelfIdPage {
  shelf: ShelfDto;
  ids: string[];
  total: number;
}

/**
 * One page of the shelf's story ids: a manual shelf's in its order, a smart shelf's as its saved
 * search finds them now, through the search service with the saved filters and sort (relevance,
 * best first, when it names none). 404 when there is no shelf.
 */
export async function shelfStoryIdPage(db: Db, engine: SearchEngine, id: string, request: PageRequest): Promise<ShelfIdPage> {
  const row = loadShelf(db, id);
  const shelf = presentShelf(row);
  const window = pageWindow(request);
  if (row.kind === 'manual') return { shelf, ids: window.offset < row.storyCount ? repo.shelfStoryIds(db, id, window) : [], total: row.storyCount };
  const saved = savedQuery(row) ?? {};
  const { authors, tags } = checkedSearchFilters(saved);
  const result = await engine.searchStories(
    storySearchRequest({
      query: saved.query ?? '*',
      page: request.page,
      size: request.size,
      authors,
      tags,
      minRating: saved.minRating,
      maxRating: saved.maxRating,
      readingStatus: saved.readingStatus,
      favourite: saved.favourite,
      sortBy: saved.sortBy,
      sortDir: sortDirection(saved.sortDir, 'desc'),
    }),
  );
  return { shelf, ids: result.results.map((story) => story.id), total: result.totalHits };
}

/** GET /api/shelves/{id}/stories: the paged envelope of `StoryDto`s (docs/api.md, "Lists and paging"). */
export async function shelfStoriesPage(db: Db, engine: SearchEngine, id: string, request: PageRequest): Promise<JsonBytes> {
  const { ids, total } = await shelfStoryIdPage(db, engine, id, request);
  return jsonPage(ids.length, total, request, (before, after) => loadStoriesJsonArray(db, ids, before, after));
}
