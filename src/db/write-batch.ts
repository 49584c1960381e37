import type Database from 'better-sqlite3';
import type { Db, Tx } from './open.js';
import { defineStatements, sqliteClient } from './statements.js';
import { writeTransaction } from './transaction.js';

/**
 * Group commit (docs/decisions.md, "Writes"): the writes that requests hand over within one turn
 * of the event loop run in one write transaction, each in its own savepoint, and commit together.
 *
 * Why: a story create's transaction costs ~3.0 ms of CPU on its own and ~2.1 ms when ten share
 * one (docs/performance.md, "Creates, grouped"). What ten creates share is the fixed part of a
 * commit (BEGIN IMMEDIATE, the WAL frames of index pages they all touch, one FTS5 segment flush
 * and its merge work instead of ten, one pass of the search sync) — under load, when creates
 * queue, which is exactly when the saving matters; alone, a write waits one `setImmediate` turn.
 *
 * Each write is all or nothing on its own, as it was in a transaction of its own: it runs in a
 * savepoint, and a write that throws (a 404, a 400, a constraint) is rolled back to it and its
 * promise rejects with that error, while the others go on. What cannot be rolled back alone (the
 * search sync before the commit, or the commit itself failing) rejects every write of the batch,
 * none of which then happened. Writes run in the order they were handed over, so a later write
 * sees an earlier one (a second create naming the same new author finds it). A batch is at most
 * {@link WRITES_PER_BATCH} writes; the rest wait for the next turn.
 */
export const WRITES_PER_BATCH = 32;

interface Pending {
  write: (tx: Tx) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  outcome?: { ok: true; value: unknown } | { ok: false; error: unknown };
}

const savepoints = defineStatements((client: Database.Database) => ({
  open: client.prepare('SAVEPOINT batched_write'),
  release: client.prepare('RELEASE batched_write'),
  rollback: client.prepare('ROLLBACK TO batched_write'),
}));

/** The writes waiting for their turn, per connection (two apps in one process share nothing). */
const queues = new WeakMap<Database.Database, { pending: Pending[]; scheduled: boolean }>();

/**
 * Runs `write` in a write transaction shared with the other writes handed over in this turn of
 * the event loop; resolves with its result once the transaction committed. `write` is
 * synchronous, as in {@link writeTransaction}.
 */
export function batchedWrite<T>(db: Db, write: (tx: Tx) => T): Promise<T> {
  const client = sqliteClient(db);
  let queue = queues.get(client);
  if (queue === undefined) {
    queue = { pending: [], scheduled: false };
    queues.set(client, queue);
  }
  const target = queue;
  return new Promise<T>((resolve, reject) => {
    target.pending.push({ write, resolve: resolve as (value: unknown) => void, reject });
    if (!target.scheduled) {
      target.scheduled = true;
      setImmediate(() => runBatches(db, target));
    }
  });
}

function runBatches(db: Db, queue: { pending: Pending[]; scheduled: boolean }): void {
  const batch = queue.pending.splice(0, WRITES_PER_BATCH);
  if (queue.pending.length > 0) setImmediate(() => runBatches(db, queue));
  else queue.scheduled = false;
  try {
    writeTransaction(db, (tx) => {
      const s = savepoints(sqliteClient(tx));
      for (const pending of batch) {
        s.open.run();
        try {
          pending.outcome = { ok: true, value: pending.write(tx) };
          s.release.run();
        } catch (error) {
          s.rollback.run();
          s.release.run();
          pending.outcome = { ok: false, error };
        }
      }
    });
  } catch (error) {
    // Nothing of the batch committed: a write that had failed on its own keeps its own error.
    for (const pending of batch) pending.reject(pending.outcome?.ok === false ? pending.outcome.error : error);
    return;
  }
  for (const { outcome, resolve, reject } of batch) {
    if (outcome?.ok === true) resolve(outcome.value);
    else reject(outcome?.error);
  }
}
