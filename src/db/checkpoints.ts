/**
 * WAL checkpoints off the event loop.
 *
 * SQLite's automatic checkpoint runs inside the commit that crosses 1,000 WAL pages, on the
 * connection that committed: it copies those pages into the database file and fsyncs it, and
 * with better-sqlite3 that blocks the whole event loop. A story create writes ~90 pages (row,
 * indexes, search documents, suggestions), so a checkpoint came every ~11 creates and took ~4 ms
 * per create on average, every other request waiting behind it (docs/performance.md).
 *
 * Instead, a worker thread with its own connection runs `wal_checkpoint(PASSIVE)` every
 * {@link CHECKPOINT_INTERVAL_MS}: it copies what has been committed without ever taking a lock
 * the main connection waits for. A passive checkpoint cannot let the WAL start over while writes
 * keep coming, so the main connection keeps its own automatic checkpoint, at
 * {@link RESTART_WAL_BYTES} instead of 4 MB: by then the worker has copied nearly everything, the
 * main connection's checkpoint (run after a commit, when it holds no transaction) finishes the
 * rest, and the next write starts the WAL from the beginning (`journal_size_limit` trims the
 * file). (A RESTART checkpoint from the worker would hold the write lock while it waits for
 * readers, and a request's read-then-write transaction would fail with SQLITE_BUSY.) Durability
 * is SQLite's own: the same checkpoints, mostly run from another thread.
 *
 * If the worker cannot start or dies, the main connection goes back to checkpointing itself. The
 * worker is ./checkpoint-worker.mjs, started like every worker of ours (src/lib/module-worker.ts).
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../lib/module-worker.js';
import type { WarnLog } from '../lib/warn-log.js';
import type { CheckpointWorkerMessage } from './checkpoint-worker.mjs';
import type { Db } from './open.js';

export const CHECKPOINT_INTERVAL_MS = 200;
export const RESTART_WAL_BYTES = 128 * 1024 * 1024;
/** The WAL is trimmed to this size when it starts over (SQLite's `journal_size_limit`). */
export const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;
const STOP_TIMEOUT_MS = 5_000;

export interface Checkpointer {
  /** Stops the worker and closes its connection (the main connection checkpoints every 1,000 pages again). */
  stop(): Promise<void>;
}

/**
 * Starts checkpointing `file` (the database `db` is open on) from a worker thread, and moves the
 * main connection's automatic checkpoint out to `restartBytes` of WAL while the worker runs.
 */
export function startCheckpointer(
  db: Db,
  file: string,
  log: WarnLog,
  { intervalMs = CHECKPOINT_INTERVAL_MS, restartBytes = RESTART_WAL_BYTES }: { intervalMs?: number; restartBytes?: number } = {},
): Checkpointer {
  const client = db.$client;
  client.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  const selfCheckpoint = () => {
    if (client.open) client.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
  };
  let worker: Worker;
  try {
    worker = startModuleWorker(import.meta.url, './checkpoint-worker.mjs', {
      workerData: { file, intervalMs },
      // Its own small heap: it only ever runs one pragma.
      resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 },
    });
  } catch (error) {
    log.warn({ err: error }, 'could not start the WAL checkpoint worker; checkpointing on the main thread');
    return { stop: async () => undefined };
  }
  const pageSize = Number(client.pragma('page_size', { simple: true }));
  client.pragma(`wal_autocheckpoint = ${Math.max(1, Math.ceil(restartBytes / pageSize))}`);
  let stopping = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('message', (message: CheckpointWorkerMessage) => {
    if ('warning' in message) log.warn({ error: message.warning }, 'a background WAL checkpoint failed');
  });
  worker.on('error', (error) => log.warn({ err: error }, 'the WAL checkpoint worker failed; checkpointing on the main thread'));
  void exited.then(() => {
    if (!stopping) selfCheckpoint();
  });
  // Never keeps the process alive on its own.
  worker.unref();
  return {
    stop: async () => {
      if (stopping) return exited;
      stopping = true;
      selfCheckpoint();
      worker.postMessage('stop');
      const timer = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
