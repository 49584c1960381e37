import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../db/transaction.js';
import { series, type SeriesRow } from '../db/schema.js';
import { newId, nowIso } from '../lib/clock.js';
import { cleanName, nameKey } from '../lib/names.js';

export function findSeriesById(db: DbOrTx, id: string): SeriesRow | undefined {
  return db.select().from(series).where(eq(series.id, id)).get();
}

/** Case-insensitive (after trimming) exact-name lookup, through the unique `name_key`. */
export function findSeriesByName(db: DbOrTx, name: string): SeriesRow | undefined {
  return db.select().from(series).where(eq(series.nameKey, nameKey(name))).get();
}

export function insertSeries(db: DbOrTx, values: { name: string; description?: string | null }): SeriesRow {
  const now = nowIso();
  return db
    .insert(series)
    .values({ id: newId(), name: cleanName(values.name), nameKey: nameKey(values.name), description: values.description ?? null, createdAt: now, updatedAt: now })
    .returning()
    .get();
}

/** The series with this name (case-insensitively), created when there is none (spec 4.2 rule 2). */
export function findOrCreateSeries(db: DbOrTx, name: string): SeriesRow {
  return findSeriesByName(db, name) ?? insertSeries(db, { name });
}
