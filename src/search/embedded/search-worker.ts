/**
 * A search worker thread (docs/decisions.md, "Search worker pool"): opens its own read-only
 * connection to the library database and answers the pool's tasks with the embedded engine's
 * read operations (./reads.ts). Started by ./search-pool.ts, never imported.
 */
import { workerData } from 'node:worker_threads';
import { openReadOnlyDatabase } from '../../db/open.js';
import { lowerThreadPriority } from '../../lib/thread-priority.js';
import { serveWorkerTasks } from '../../lib/worker-pool.js';
import { embeddedReads } from './reads.js';

/**
 * A search yields the cores to the event loop when all are busy: story reads beside common-word
 * searches went from p99 8.5 to 5.4 ms with it (docs/decisions.md, "Search worker pool").
 */
const SEARCH_THREAD_NICENESS = 10;

const { file } = workerData as { file: string };
lowerThreadPriority(SEARCH_THREAD_NICENESS);
const db = openReadOnlyDatabase(file);
serveWorkerTasks(embeddedReads(db), () => db.$client.close());
