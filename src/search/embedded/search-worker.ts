/**
 * A search worker thread (docs/decisions.md, "Search worker pool"): opens its own read-only
 * connection to the library database and answers the pool's tasks with the embedded engine's
 * read operations (./reads.ts). Started by ./search-pool.ts, never imported.
 */
import { workerData } from 'node:worker_threads';
import { openReadOnlyDatabase } from '../../db/open.js';
import { serveWorkerTasks } from '../../lib/worker-pool.js';
import { embeddedReads } from './reads.js';

const { file } = workerData as { file: string };
const db = openReadOnlyDatabase(file);
serveWorkerTasks(embeddedReads(db), () => db.$client.close());
