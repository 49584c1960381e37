/**
 * The search worker pool (docs/decisions.md, "Search worker pool"): a few threads, each with its
 * own read-only connection to the library database, that run the embedded engine's reads
 * (./reads.ts) so a search never holds the event loop. Writes stay on the main connection.
 */
import { ServiceUnavailable } from '../../errors.js';
import { WorkerGone, WorkerPool, WorkerPoolBusy, WorkerTaskTimeout } from '../../lib/worker-pool.js';

/**
 * A search that runs longer than this is stopped (its thread replaced) and answered 503. The
 * slowest measured at 100,000 stories is ~0.3 s (a word in every story), and a 3-letter prefix at
 * 1,000,000 stories 3.5 s (docs/performance.md, "Search"): 10 s is only ever a runaway.
 */
export const SEARCH_TASK_TIMEOUT_MS = 10_000;

/**
 * Each thread's V8 heap: a task holds one page of results (20-250 rows with snippets, a few
 * hundred KB), so 64 MB of old generation is ample, and a thread that somehow needs more dies
 * and is replaced instead of growing the process. The young generation is held to 12 MB (4 MB
 * semi-spaces, what `npm start` gives the main thread): V8's default lets each thread's grow to
 * 48 MB between scavenges of the short-lived rows and strings a search makes.
 */
const SEARCH_WORKER_HEAP = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 12 };

export interface SearchPoolOptions {
  /** The library database file (the main connection's `name`). */
  file: string;
  threads: number;
  queueMax: number;
  taskTimeoutMs?: number;
  onThreadError?: (error: unknown) => void;
}

export function createSearchPool(options: SearchPoolOptions): WorkerPool {
  return new WorkerPool({
    callerUrl: import.meta.url,
    modulePath: './search-worker.js',
    size: options.threads,
    queueMax: options.queueMax,
    taskTimeoutMs: options.taskTimeoutMs ?? SEARCH_TASK_TIMEOUT_MS,
    workerData: { file: options.file },
    resourceLimits: SEARCH_WORKER_HEAP,
    onThreadError: options.onThreadError,
  });
}

/** The pool's own failures as the client sees them: 503, try again (nothing was written). */
export function searchPoolError(error: unknown): unknown {
  if (error instanceof WorkerPoolBusy) return new ServiceUnavailable('Too many searches at once; try again shortly');
  if (error instanceof WorkerTaskTimeout) return new ServiceUnavailable('The search took too long and was stopped; try a more specific query');
  if (error instanceof WorkerGone) return new ServiceUnavailable('The search was interrupted; try again');
  return error;
}
