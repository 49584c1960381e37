import { and, asc, count, desc, eq, gt, ne, sql, type SQL } from 'drizzle-orm';
import { namedListShape, namedListWhere, nameKeyContainsParams, type NamedListFilter } from '../db/name-filter.js';
import { defineStatements, defineStatementShapes } from '../db/statements.js';
import type { Db, DbOrTx } from '../db/open.js';
import { series, type SeriesRow } from '../db/schema.js';
import { newId, nextUpdatedAt, nowIso } from '../lib/clock.js';
import { cleanName, nameKey } from '../lib/names.js';
import type { SortDirection } from '../lib/pagination.js';
import type { SeriesSortKey } from '../schemas/series.js';

const SORT_COLUMNS = { name: series.nameKey, createdAt: series.createdAt, storyCount: series.storyCount } as const;

/** ORDER BY for a series list, from the `(key, id)` indexes; ties broken by id (docs/decisions.md, "Lists and pagination"). */
function seriesOrder(sortBy: SeriesSortKey, direction: SortDirection): SQL[] {
  const by = direction === 'asc' ? asc : desc;
  return [by(SORT_COLUMNS[sortBy]), by(series.id)];
}

const byId = defineStatements((db: DbOrTx) => db.select().from(series).where(eq(series.id, sql.placeholder('id'))).prepare());

export function findSeriesById(db: DbOrTx, id: string): SeriesRow | undefined {
  return byId(db).get({ id });
}

const byNameKey = defineStatements((db: DbOrTx) => db.select().from(series).where(eq(series.nameKey, sql.placeholder('key'))).prepare());

/** Case-insensitive (after trimming) exact-name lookup, through the unique `name_key`. */
export function findSeriesByName(db: DbOrTx, name: string): SeriesRow | undefined {
  return byNameKey(db).get({
    key: nameKey(name),
  });
}

export function insertSeries(db: DbOrTx, values: { name: string; description?: string | null }): SeriesRow {
  const now = nowIso();
  return db
    .insert(series)
    .values({ id: newId(), name: cleanName(values.name), nameKey: nameKey(values.name), description: values.description ?? null, createdAt: now, updatedAt: now })
    .returning()
    .get();
}

/** The series with this name (case-insensitively), created when there is none (docs/decisions.md, "Shapes and values"). */
export function findOrCreateSeries(db: DbOrTx, name: string): SeriesRow {
  return findSeriesByName(db, name) ?? insertSeries(db, { name });
}

/** True when another series (not `exceptId`) already has this name, case-insensitively. */
export function seriesNameTaken(db: DbOrTx, name: string, exceptId?: string): boolean {
  const key = eq(series.nameKey, nameKey(name));
  const condition = exceptId === undefined ? key : and(key, ne(series.id, exceptId));
  return db.select({ id: series.id }).from(series).where(condition).get() !== undefined;
}

/**
 * Sets the given columns and bumps `updatedAt` (the rule of src/lib/clock.ts); undefined when
 * there is no such series.
 */
export function updateSeriesRow(db: DbOrTx, id: string, changes: { name?: string; description?: string | null }): SeriesRow | undefined {
  const previous = db.select({ updatedAt: series.updatedAt }).from(series).where(eq(series.id, id)).get();
  if (previous === undefined) return undefined;
  const values: Partial<typeof series.$inferInsert> = { updatedAt: nextUpdatedAt(previous.updatedAt) };
  if (changes.name !== undefined) {
    values.name = cleanName(changes.name);
    values.nameKey = nameKey(changes.name);
  }
  if (changes.description !== undefined) values.description = changes.description;
  return db.update(series).set(values).where(eq(series.id, id)).returning().get();
}

/** Deletes the series; its stories are unlinked by the foreign key's ON DELETE SET NULL. */
export function deleteSeriesRow(db: DbOrTx, id: string): boolean {
  return db.delete(series).where(eq(series.id, id)).run().changes > 0;
}

export type SeriesListFilter = NamedListFilter;

/** The statements of one shape of series page (sort, direction, name filter), prepared once per connection. */
const seriesPageShapes = defineStatementShapes();

function seriesPageStatements(db: DbOrTx, sortBy: SeriesSortKey, direction: SortDirection, filter: SeriesListFilter) {
  return seriesPageShapes(db, `${sortBy}:${direction}:${namedListShape(filter)}`, () => {
    const where = namedListWhere(series, filter);
    return {
      rows: db
        .select()
        .from(series)
        .where(where)
        .orderBy(...seriesOrder(sortBy, direction))
        .limit(sql.placeholder('limit'))
        .offset(sql.placeholder('offset'))
        .prepare(),
      total: db.select({ total: count() }).from(series).where(where).prepare(),
    };
  });
}

export function listSeries(
  db: DbOrTx,
  filter: SeriesListFilter,
  sortBy: SeriesSortKey,
  direction: SortDirection,
  window: { limit: number; offset: number },
): { rows: SeriesRow[]; total: number } {
  const statements = seriesPageStatements(db, sortBy, direction, filter);
  const pattern = nameKeyContainsParams(filter.nameContains);
  const rows = statements.rows.all({ ...pattern, limit: window.limit, offset: window.offset });
  const total = statements.total.get(pattern)?.total ?? 0;
  return { rows, total };
}

/** Series that have stories, by name. */
export function seriesWithStories(db: DbOrTx, limit: number): SeriesRow[] {
  return db.select().from(series).where(gt(series.storyCount, 0)).orderBy(asc(series.nameKey)).limit(limit).all();
}

/** Most stories first, then by name; only series with stories. */
export function popularSeries(db: DbOrTx, limit: number): SeriesRow[] {
  return db
    .select()
    .from(series)
    .where(gt(series.storyCount, 0))
    .orderBy(desc(series.storyCount), asc(series.nameKey))
    .limit(limit)
    .all();
}

/** Series no story belongs to, by name. */
export function emptySeries(db: DbOrTx): SeriesRow[] {
  return db.select().from(series).where(eq(series.storyCount, 0)).orderBy(asc(series.nameKey)).all();
}

export function seriesStats(db: DbOrTx): { totalSeries: number; seriesWithStories: number; emptySeries: number } {
  const row = db
    .select({ totalSeries: count(), seriesWithStories: sql<number>`coalesce(sum(${series.storyCount} > 0), 0)` })
    .from(series)
    .get();
  const totalSeries = row?.totalSeries ?? 0;
  const withStories = Number(row?.seriesWithStories ?? 0);
  return { totalSeries, seriesWithStories: withStories, emptySeries: totalSeries - withStories };
}

/** A story next to another in its series, by volume (the story page's previous/next links). */
export interface VolumeNeighbour {
  id: string;
  title: string;
  volume: number;
}

const volumeNeighbourRows = defineStatements((db: Db) =>
  db.$client.prepare<[{ seriesId: string; volume: number; createdAt: string }], { dir: 'previous' | 'next'; id: string; title: string; volume: number }>(
    `SELECT * FROM (SELECT 'previous' AS dir, id, title, volume FROM stories
       WHERE series_id = @seriesId AND volume IS NOT NULL AND (volume, created_at) < (@volume, @createdAt)
       ORDER BY volume DESC, created_at DESC LIMIT 1)
     UNION ALL
     SELECT * FROM (SELECT 'next' AS dir, id, title, volume FROM stories
       WHERE series_id = @seriesId AND (volume, created_at) > (@volume, @createdAt)
       ORDER BY volume, created_at LIMIT 1)`,
  ),
);

/**
 * The stories just before and after a volume of a series, ordered by `(volume, createdAt)`: one
 * statement, two seeks on `stories_series_idx` (series_id, volume, created_at). Stories without a
 * volume have no place in the order and are never neighbours.
 */
export function volumeNeighbours(
  db: Db,
  seriesId: string,
  volume: number,
  createdAt: string,
): { previous: VolumeNeighbour | undefined; next: VolumeNeighbour | undefined } {
  const rows = volumeNeighbourRows(db).all({ seriesId, volume, createdAt });
  const pick = (dir: 'previous' | 'next') => {
    const row = rows.find((candidate) => candidate.dir === dir);
    return row === undefined ? undefined : { id: row.id, title: row.title, volume: row.volume };
  };
  return { previous: pick('previous'), next: pick('next') };
}
