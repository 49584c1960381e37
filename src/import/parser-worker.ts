/**
 * The parser worker thread of ./parser-pool.ts: answers each request with the outcome of
 * ./parse.ts, so parsing and sanitizing never block the event loop. Never imported.
 */
import { serveWorkerTasks } from '../lib/worker-pool.js';
import { listArchive, parseArchiveEntries, parseFile } from './parse.js';

serveWorkerTasks({ parseFile, listArchive, parseArchiveEntries });
