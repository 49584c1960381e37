/**
 * The rows of following a source (docs/decisions.md, "Sources"): `story_sources`, one per story
 * that follows its source, and `story_updates`, the log of what each import or refresh changed.
 */
import { and, asc, desc, eq, inArray, isNotNull, lte } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../db/open.js';
import { storySources, storyUpdates } from '../../db/schema.js';

export type SourceRow = typeof storySources.$inferSelect;
export type UpdateRow = typeof storyUpdates.$inferSelect;

/** Titles listed per kind in an update's details; the counts say how many there were. */
const DETAIL_TITLES_MAX = 50;

/** The story following the work with this uid, if any. */
export function storyOfUid(db: DbOrTx, uid: string): string | undefined {
  return db.select({ storyId: storySources.storyId }).from(storySources).where(eq(storySources.uid, uid)).limit(1).get()?.storyId;
}

export function sourceOf(db: DbOrTx, storyId: string): SourceRow | undefined {
  return db.select().from(storySources).where(eq(storySources.storyId, storyId)).get();
}

export function insertSource(tx: Tx, row: typeof storySources.$inferInsert): void {
  tx.insert(storySources).values(row).run();
}

/** Changes how a story follows its source (a hand-imported file's work that FanFicFare then downloaded). */
export function updateSource(tx: Tx, storyId: string, patch: Partial<Omit<SourceRow, 'storyId' | 'createdAt'>>): void {
  tx.update(storySources).set(patch).where(eq(storySources.storyId, storyId)).run();
}

/** After a check: when it was, the next one (null: none scheduled), and the failure count and message. */
export function recordCheck(tx: Tx, storyId: string, check: { at: string; nextCheckAt: string | null; error: string | null }): void {
  const current = sourceOf(tx, storyId);
  if (current === undefined) return;
  tx.update(storySources)
    .set({
      lastCheckedAt: check.at,
      nextCheckAt: check.nextCheckAt,
      failures: check.error === null ? 0 : current.failures + 1,
      lastError: check.error,
    })
    .where(eq(storySources.storyId, storyId))
    .run();
}

/** Moves the next check of these sources to `nextCheckAt` (the schedule claims them before checking). */
export function postponeChecks(tx: Tx, storyIds: readonly string[], nextCheckAt: string): void {
  if (storyIds.length === 0) return;
  tx.update(storySources).set({ nextCheckAt }).where(inArray(storySources.storyId, [...storyIds])).run();
}

/** The followed sources due at `now`, soonest first: one walk of the `next_check_at` index. */
export function dueSources(db: DbOrTx, now: string, limit: number): SourceRow[] {
  return db
    .select()
    .from(storySources)
    .where(and(isNotNull(storySources.nextCheckAt), lte(storySources.nextCheckAt, now), eq(storySources.follow, true)))
    .orderBy(asc(storySources.nextCheckAt))
    .limit(limit)
    .all();
}

export interface UpdateDetails {
  added: string[];
  updated: string[];
  kept: string[];
  gone: string[];
}

/** Logs an update (in the caller's transaction, with the change it describes). */
export function insertUpdate(
  tx: Tx,
  row: { storyId: string; at: string; origin: 'import' | 'refresh' | 'schedule' | 'file'; sourceUrl: string | null; details: UpdateDetails },
): number {
  const cut = (titles: string[]) => titles.slice(0, DETAIL_TITLES_MAX);
  const inserted = tx
    .insert(storyUpdates)
    .values({
      storyId: row.storyId,
      at: row.at,
      origin: row.origin,
      sourceUrl: row.sourceUrl,
      addedChapters: row.details.added.length,
      updatedChapters: row.details.updated.length,
      keptChapters: row.details.kept.length,
      goneChapters: row.details.gone.length,
      details: JSON.stringify({ added: cut(row.details.added), updated: cut(row.details.updated), kept: cut(row.details.kept), gone: cut(row.details.gone) }),
    })
    .returning({ id: storyUpdates.id })
    .get();
  return inserted.id;
}

/** A story's updates, newest first. */
export function listUpdates(db: DbOrTx, storyId: string, limit: number): UpdateRow[] {
  return db.select().from(storyUpdates).where(eq(storyUpdates.storyId, storyId)).orderBy(desc(storyUpdates.at), desc(storyUpdates.id)).limit(limit).all();
}
