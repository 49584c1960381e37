/**
 * Queries for reading progress (docs/decisions.md, "Reading progress"): one row per started
 * story in `reading_progress`, read by story id and, for continue-reading, by `updated_at`.
 */
import { and, desc, eq, gt, inArray, lt, max, sql } from 'drizzle-orm';
import type { Db, DbOrTx, Tx } from '../db/open.js';
import { readingProgress, type ReadingProgressRow } from '../db/schema.js';
import { defineStatements } from '../db/statements.js';
import { FINISHED_PROGRESS } from '../schemas/reading-progress.js';

const byStory = defineStatements((db: DbOrTx) =>
  db.select().from(readingProgress).where(eq(readingProgress.storyId, sql.placeholder('storyId'))).prepare(),
);

/** The story's saved progress row, or undefined when none was ever saved. */
export function findProgress(db: DbOrTx, storyId: string): ReadingProgressRow | undefined {
  return byStory(db).get({ storyId });
}

const latest = defineStatements((tx: Tx) => tx.select({ updatedAt: max(readingProgress.updatedAt) }).from(readingProgress).prepare());

/** The newest `updated_at` of any story's progress (the index's last entry), or undefined when none is saved. */
export function latestProgressStamp(tx: Tx): string | undefined {
  return latest(tx).get()?.updatedAt ?? undefined;
}

const upsert = defineStatements((tx: Tx) =>
  tx
    .insert(readingProgress)
    .values({
      storyId: sql.placeholder('storyId'),
      progress: sql.placeholder('progress'),
      position: sql.placeholder('position'),
      updatedAt: sql.placeholder('updatedAt'),
      chapter: sql.placeholder('chapter'),
    })
    .onConflictDoUpdate({
      target: readingProgress.storyId,
      set: {
        progress: sql`excluded.progress`,
        position: sql`excluded.position`,
        updatedAt: sql`excluded.updated_at`,
        chapter: sql`excluded.chapter`,
      },
    })
    .prepare(),
);

/** Stores the row whatever was there before (last write wins); no `chapter` is chapter unknown (null). */
export function saveProgressRow(tx: Tx, row: Omit<ReadingProgressRow, 'chapter' | 'chaptersAddedAt'> & { chapter?: number | null }): void {
  upsert(tx).run({ chapter: null, ...row });
}

const startedIds = defineStatements((db: Db) =>
  db
    .select({ storyId: readingProgress.storyId })
    .from(readingProgress)
    .where(and(gt(readingProgress.progress, 0), lt(readingProgress.progress, FINISHED_PROGRESS)))
    .orderBy(desc(readingProgress.updatedAt), desc(readingProgress.storyId))
    .limit(sql.placeholder('limit'))
    .prepare(),
);

/**
 * The ids of stories started but not finished (0 < progress < {@link FINISHED_PROGRESS}), most
 * recently read first (then id, so equal stamps keep one order), walked down
 * `reading_progress_updated_at_idx`.
 */
export function startedStoryIds(db: Db, limit: number): string[] {
  return startedIds(db)
    .all({ limit })
    .map((row) => row.storyId);
}

/** The saved progress (and chapter) of each of these stories that has one, by story id: one statement for the lot. */
export function findProgressOf(db: Db, storyIds: readonly string[]): Map<string, { progress: number; chapter: number | null }> {
  if (storyIds.length === 0) return new Map();
  const rows = db
    .select({ storyId: readingProgress.storyId, progress: readingProgress.progress, chapter: readingProgress.chapter })
    .from(readingProgress)
    .where(inArray(readingProgress.storyId, [...storyIds]))
    .all();
  return new Map(rows.map((row) => [row.storyId, { progress: row.progress, chapter: row.chapter }]));
}

/** The most recently saved progress row among these stories, or undefined when none has one (KOReader sync: which story of a book was read last). */
export function newestProgressAmong(db: Db, storyIds: readonly string[]): ReadingProgressRow | undefined {
  if (storyIds.length === 0) return undefined;
  return db
    .select()
    .from(readingProgress)
    .where(inArray(readingProgress.storyId, [...storyIds]))
    .orderBy(desc(readingProgress.updatedAt), desc(readingProgress.storyId))
    .limit(1)
    .get();
}
