/**
 * The `search-reindex` job kind (docs/decisions.md, "Settings page"; docs/architecture.md,
 * "Background jobs"): the settings page's reindex, run by the job runner like an import, so
 * `GET /api/jobs` shows it and its progress. The work is the API's own (`reindex` in
 * ./service.ts); `POST /api/search/reindex` still answers when it is done, and a rebuild either
 * starts while the other runs is shared, not run twice.
 */
import fp from 'fastify-plugin';
import type { Db } from '../db/open.js';
import type { JobRow } from '../jobs/repository.js';
import type { JobContext, JobHandler, JobRunner } from '../jobs/runner.js';
import type { JobError } from '../schemas/job.js';
import type { SearchEngine } from './engine.js';
import { RebuildInterrupted, rebuildProgress, rebuildRowCount } from './embedded/rebuild.js';
import { reindex } from './service.js';

export const REINDEX_KIND = 'search-reindex';

/**
 * How often a running reindex records its progress for `/api/jobs`: rows done (stories, authors,
 * series and tags) of the rows there were when the embedded rebuild began.
 */
const PROGRESS_EVERY_MS = 500;

/** A reindex job's state: empty until it has finished, then what the reindex said. */
interface ReindexState {
  message?: string;
}

export type ReindexStatus =
  | { state: 'idle' }
  /** Queued or running; `done` of `total` rows indexed, when the embedded rebuild has counted them. */
  | { state: 'running'; startedAt: Date; done?: number; total?: number }
  | { state: 'finished'; startedAt: Date; finishedAt: Date; message: string }
  | { state: 'failed'; startedAt: Date; finishedAt: Date; message: string }
  | { state: 'cancelled'; startedAt: Date; finishedAt: Date };

type Settled = { error: unknown } | { message: string };

const pause = (ms: number) => new Promise<undefined>((resolve) => setTimeout(resolve, ms, undefined).unref());
const abortion = (signal: AbortSignal) =>
  new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));

/**
 * Runs one reindex, recording the embedded rebuild's progress every {@link PROGRESS_EVERY_MS}
 * and the reindex's sentence at the end. A half-refilled index is worse than a whole one, so a
 * cancel does not stop the rebuild: the job waits for it and is then `cancelled`. A shutdown
 * does stop it (between two batches, src/search/embedded/rebuild.ts); the job then goes back to
 * the queue and the next start rebuilds the index again, whole.
 */
export function reindexHandler(engine: SearchEngine, db: Db): JobHandler<Record<string, never>, ReindexState> {
  return {
    async run(context: JobContext<Record<string, never>, ReindexState>) {
      const outcome: Promise<Settled> = reindex(engine).then(
        (result) => ({ message: result.message }),
        (error: unknown) => ({ error }),
      );
      let recorded = { done: 0, total: 0 };
      for (;;) {
        const settled = await Promise.race([outcome, pause(PROGRESS_EVERY_MS)]);
        if (settled !== undefined) {
          if ('message' in settled) {
            if (context.signal.aborted) return;
            // Every row is indexed now: those counted while it ran, or as many as there are when it was too quick to see.
            const total = Math.max(recorded.total, rebuildRowCount(db));
            context.commit({ state: { message: settled.message }, done: total - recorded.done, total });
            return;
          }
          // The app is closing: wait for the runner to stop this job, which queues it again.
          if (settled.error instanceof RebuildInterrupted) return abortion(context.signal);
          throw settled.error;
        }
        const progress = rebuildProgress(db);
        if (context.signal.aborted || progress === undefined || (progress.done === recorded.done && progress.total === recorded.total)) continue;
        context.commit({ state: {}, done: progress.done - recorded.done, total: progress.total });
        recorded = progress;
      }
    },
  };
}

/**
 * Queues a reindex unless one is queued or running already (false then: one at a time). The
 * runner starts it once the jobs queued before it are done.
 */
export function startReindex(jobs: JobRunner): boolean {
  const last = jobs.last(REINDEX_KIND);
  if (last !== undefined && (last.status === 'queued' || last.status === 'running')) return false;
  jobs.enqueue(REINDEX_KIND, {});
  return true;
}

/** What the last reindex job is doing or did, for the settings page; live rows done while it runs. */
export function reindexStatus(jobs: JobRunner, db: Db): ReindexStatus {
  const last = jobs.last(REINDEX_KIND);
  if (last === undefined) return { state: 'idle' };
  const startedAt = new Date(last.startedAt ?? last.createdAt);
  const finishedAt = new Date(last.finishedAt ?? last.createdAt);
  switch (last.status) {
    case 'queued':
    case 'running': {
      const progress = last.status === 'running' ? rebuildProgress(db) : undefined;
      return progress === undefined ? { state: 'running', startedAt } : { state: 'running', startedAt, done: progress.done, total: progress.total };
    }
    case 'done':
      return { state: 'finished', startedAt, finishedAt, message: (JSON.parse(last.state) as ReindexState).message ?? 'Search index rebuilt' };
    case 'failed':
      return { state: 'failed', startedAt, finishedAt, message: failure(last) };
    case 'cancelled':
      return { state: 'cancelled', startedAt, finishedAt };
  }
}

/** The reason a failed job gives: the runner records it as its last error. */
function failure(row: JobRow): string {
  return (JSON.parse(row.errors) as JobError[]).at(-1)?.error ?? 'unknown error';
}

/** Registers the `search-reindex` job kind with the app's runner. */
export const reindexJobPlugin = fp(
  async (app) => {
    app.jobs.register(REINDEX_KIND, reindexHandler(app.searchEngine, app.db));
  },
  { name: 'storyshelf-search-reindex', fastify: '5.x', dependencies: ['storyshelf-jobs', 'storyshelf-search'] },
);
