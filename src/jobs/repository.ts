/** The `jobs` table's queries (docs/decisions.md, "Jobs"); the runner owns every status change. */
import { and, count, desc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/open.js';
import { jobs } from '../db/schema.js';
import type { JobStatus } from '../schemas/job.js';

export type JobRow = typeof jobs.$inferSelect;

export const FINISHED: readonly JobStatus[] = ['done', 'failed', 'cancelled'];

export function insertJob(db: DbOrTx, row: { id: string; kind: string; params: string; total: number; createdAt: string }): void {
  db.insert(jobs).values({ ...row, status: 'queued' }).run();
}

export function findJob(db: DbOrTx, id: string): JobRow | undefined {
  return db.select().from(jobs).where(eq(jobs.id, id)).get();
}

/** The job of this kind queued last (rowid order, as the queue), or undefined when there is none. */
export function lastJobOfKind(db: DbOrTx, kind: string): JobRow | undefined {
  return db.select().from(jobs).where(eq(jobs.kind, kind)).orderBy(desc(sql`${jobs}.rowid`)).limit(1).get();
}

export function listJobs(db: DbOrTx, limit: number): JobRow[] {
  return db.select().from(jobs).orderBy(desc(jobs.createdAt), desc(jobs.id)).limit(limit).all();
}

export function countQueued(db: DbOrTx): number {
  return db.select({ n: count() }).from(jobs).where(eq(jobs.status, 'queued')).get()?.n ?? 0;
}

/** Jobs of these kinds left `running` by a process that stopped: queued again, to resume from their state. */
export function requeueRunning(db: DbOrTx, kinds: readonly string[]): number {
  return db.update(jobs).set({ status: 'queued' }).where(and(eq(jobs.status, 'running'), inArray(jobs.kind, [...kinds]))).run().changes;
}

/** The first queued job of these kinds in queue order, now `running`; undefined when there is none. */
export function claimNext(db: DbOrTx, kinds: readonly string[], now: string): JobRow | undefined {
  if (kinds.length === 0) return undefined;
  const next = db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.status, 'queued'), inArray(jobs.kind, [...kinds])))
    // Queue order is insertion order (the rowid: the largest so far plus one). Two jobs queued in
    // the same millisecond share `created_at`, and their random ids used to decide which ran first.
    .orderBy(sql`${jobs}.rowid`)
    .limit(1)
    .get();
  if (next === undefined) return undefined;
  db.update(jobs)
    .set({ status: 'running', startedAt: sql`coalesce(${jobs.startedAt}, ${now})` })
    .where(and(eq(jobs.id, next.id), eq(jobs.status, 'queued')))
    .run();
  return findJob(db, next.id);
}

/** Records progress of a running job; false (nothing written) when it is no longer running (cancelled). */
export function recordProgress(
  db: DbOrTx,
  id: string,
  progress: { done: number; failed: number; errors: string; state: string; total?: number; result?: string },
): boolean {
  const set: Partial<JobRow> = { done: progress.done, failed: progress.failed, errors: progress.errors, state: progress.state };
  if (progress.total !== undefined) set.total = progress.total;
  if (progress.result !== undefined) set.result = progress.result;
  return db.update(jobs).set(set).where(and(eq(jobs.id, id), eq(jobs.status, 'running'))).run().changes > 0;
}

/** Moves a job from one of `from` to `to`; false when it was in none of them. */
export function moveJob(
  db: DbOrTx,
  id: string,
  from: readonly JobStatus[],
  to: JobStatus,
  extra: { finishedAt?: string; errors?: string; failed?: number } = {},
): boolean {
  return db
    .update(jobs)
    .set({ status: to, ...extra })
    .where(and(eq(jobs.id, id), inArray(jobs.status, [...from])))
    .run().changes > 0;
}

/** Deletes finished jobs beyond the newest `keep` (by finish time); returns how many went. */
export function pruneFinished(db: DbOrTx, keep: number): number {
  const kept = db
    .select({ id: jobs.id })
    .from(jobs)
    .where(inArray(jobs.status, [...FINISHED]))
    .orderBy(desc(jobs.finishedAt), desc(jobs.id))
    .limit(keep)
    .all()
    .map((row) => row.id);
  return db
    .delete(jobs)
    .where(and(inArray(jobs.status, [...FINISHED]), kept.length > 0 ? notInArray(jobs.id, kept) : sql`1 = 1`))
    .run().changes;
}

/** Ids of the jobs not yet finished (queued or running), any kind. */
export function unfinishedJobIds(db: DbOrTx): string[] {
  return db
    .select({ id: jobs.id })
    .from(jobs)
    .where(notInArray(jobs.status, [...FINISHED]))
    .all()
    .map((row) => row.id);
}

/** The queued or running jobs of one kind, oldest first. */
export function unfinishedJobsOfKind(db: DbOrTx, kind: string): JobRow[] {
  return db
    .select()
    .from(jobs)
    .where(and(eq(jobs.kind, kind), notInArray(jobs.status, [...FINISHED])))
    .orderBy(jobs.createdAt, jobs.id)
    .all();
}
