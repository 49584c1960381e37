// @ts-check
/**
 * The WAL checkpoint worker thread (started by ./checkpoints.ts, never imported): its own
 * connection to the library database runs `wal_checkpoint(PASSIVE)` every `intervalMs` while the
 * WAL holds anything, warns the main thread of a failed checkpoint, and on `stop` closes its
 * connection and ends. It loads better-sqlite3 and nothing of the app.
 *
 * Plain JavaScript (type-checked through JSDoc), started as is from src/ and dist/ alike and
 * without the process's flags (src/lib/module-worker.ts): every app starts one, and under tsx a
 * TypeScript worker would cost each start ~0.22 s of CPU and ~1 s before it could stop, for a
 * file that needs no TypeScript.
 */
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** @typedef {{ started: true } | { warning: string } | { stopped: true }} CheckpointWorkerMessage */

const port = parentPort;
if (port === null) throw new Error('The checkpoint worker runs in a worker thread only');
const { file, intervalMs } = /** @type {{ file: string; intervalMs: number }} */ (workerData);
const db = new Database(file, { fileMustExist: true });
/** @param {CheckpointWorkerMessage} message */
const post = (message) => port.postMessage(message);
/** @type {NodeJS.Timeout | undefined} */
let timer;
let stopped = false;

function walBytes() {
  try {
    return fs.statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}

function tick() {
  if (stopped) return;
  try {
    if (walBytes() > 0) db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    post({ warning: error instanceof Error ? error.message : String(error) });
  }
  timer = setTimeout(tick, intervalMs);
}

port.on('message', (message) => {
  if (message !== 'stop') return;
  stopped = true;
  clearTimeout(timer);
  db.close();
  post({ stopped: true });
  port.close();
});
post({ started: true });
timer = setTimeout(tick, intervalMs);
