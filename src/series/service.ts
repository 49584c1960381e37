import type { Db } from '../db/open.js';
import type { SeriesRow } from '../db/schema.js';
import { writeTransaction } from '../db/transaction.js';
import { Conflict, invalidField, NotFound, type ErrorDetails } from '../errors.js';
import { cleanName, nameKey } from '../lib/names.js';
import { pageWindow, sortDirection, toPage, type PageOf } from '../lib/pagination.js';
import type { SeriesCreateBody, SeriesDto, SeriesListQuery, SeriesSearchQuery, SeriesStats, SeriesUpdateBody } from '../schemas/series.js';
import { collect } from '../validation.js';
import { presentSeries } from './present.js';
import * as repo from './repository.js';

export function seriesNotFound(id: string): NotFound {
  return new NotFound(`Series not found with id: ${id}`);
}

function nameConflict(name: string): Conflict {
  return new Conflict(`A series named "${name}" already exists`, { name: 'is already used by another series' });
}

/** A name as stored: trimmed and NFC; blank is a 400 (the schema caps the length). */
export function cleanSeriesName(raw: string, field = 'name'): string {
  const name = cleanName(raw);
  if (name === '') throw invalidField(field, 'must not be blank');
  return name;
}

/** The rule offences of a series body's schema-valid fields, for the route's `bodyRules` (src/validation.ts). */
export function seriesBodyIssues(body: SeriesUpdateBody): ErrorDetails {
  const details: ErrorDetails = {};
  const name = body.name;
  if (name !== undefined) collect(details, () => cleanSeriesName(name));
  return details;
}

/** GET /api/series/{id}. */
export function getSeries(db: Db, id: string): SeriesDto {
  const row = repo.findSeriesById(db, id);
  if (row === undefined) throw seriesNotFound(id);
  return presentSeries(row);
}

/**
 * GET /api/series and /api/series/search: default `name` ascending, other keys descending
 * unless `sortDir` says otherwise; the search filters by a case-insensitive substring of the name.
 * `only.withStories` leaves out series without stories (the OPDS catalog).
 */
export function listSeries(db: Db, query: SeriesListQuery | SeriesSearchQuery, only: { withStories?: boolean } = {}): PageOf<SeriesDto> {
  const sortBy = query.sortBy ?? 'name';
  const direction = sortDirection(query.sortDir, sortBy === 'name' ? 'asc' : 'desc');
  const filter = { ...only, ...('query' in query ? { nameContains: nameKey(query.query) } : {}) };
  const { rows, total } = repo.listSeries(db, filter, sortBy, direction, pageWindow(query));
  return toPage(rows.map(presentSeries), total, query);
}

/** POST /api/series: a name already taken (case-insensitively) is a 409. */
export function createSeries(db: Db, body: SeriesCreateBody): SeriesDto {
  const name = cleanSeriesName(body.name);
  return writeTransaction(db, (tx) => {
    if (repo.seriesNameTaken(tx, name)) throw nameConflict(name);
    return presentSeries(repo.insertSeries(tx, { name, description: body.description ?? null }));
  });
}

/** PUT /api/series/{id}: partial; `description: null` clears; a colliding rename is a 409. */
export function updateSeries(db: Db, id: string, body: SeriesUpdateBody): SeriesDto {
  const name = body.name === undefined ? undefined : cleanSeriesName(body.name);
  return writeTransaction(db, (tx) => {
    if (repo.findSeriesById(tx, id) === undefined) throw seriesNotFound(id);
    if (name !== undefined && repo.seriesNameTaken(tx, name, id)) throw nameConflict(name);
    return presentSeries(repo.updateSeriesRow(tx, id, { name, description: body.description }) as SeriesRow);
  });
}

/** DELETE /api/series/{id}: its stories are kept and lose the link (docs/decisions.md, "Deleting"). */
export function deleteSeries(db: Db, id: string): void {
  writeTransaction(db, (tx) => {
    if (!repo.deleteSeriesRow(tx, id)) throw seriesNotFound(id);
  });
}

export function seriesWithStories(db: Db, limit: number): SeriesDto[] {
  return repo.seriesWithStories(db, limit).map(presentSeries);
}

export function popularSeries(db: Db, limit: number): SeriesDto[] {
  return repo.popularSeries(db, limit).map(presentSeries);
}

export function emptySeries(db: Db): SeriesDto[] {
  return repo.emptySeries(db).map(presentSeries);
}

export function seriesStats(db: Db): SeriesStats {
  return repo.seriesStats(db);
}
