import type { Db, Tx } from './open.js';
import { syncSearchDocuments } from '../search/embedded/sync.js';
import { openTransaction } from './statements.js';

/**
 * Which to use: a write that changes a story, author, series, tag or one of their links goes
 * through {@link writeTransaction}, so the search index follows it; a write that changes none of
 * them (the token deny list, the Typesense outbox, the index's own rebuild, reading progress) goes through
 * `bookkeepingTransaction` (bookkeeping.ts). Nothing else opens a transaction on the library connection.
 *
 * Runs one write as a single SQLite transaction and, before it commits, brings the search
 * documents of everything it touched up to date (triggers record what changed). So the index
 * can never disagree with the tables, whatever the write was. Synchronous, as better-sqlite3
 * transactions must be: nothing inside may await (docs/architecture.md, "Ten habits", 8).
 *
 * `BEGIN IMMEDIATE`: the write lock is taken before the first read. A deferred transaction
 * reads first (does the story exist? is the name taken?) and must then upgrade its read to a
 * write, which SQLite refuses at once with SQLITE_BUSY, without waiting, while another
 * connection holds the write side: the WAL checkpoint worker's RESTART does (src/db/checkpoints.ts).
 * The soak found writes failing with 500 'database is locked' that way. An immediate transaction
 * waits for the lock (busy_timeout) before it has read anything, and then goes through.
 */
export function writeTransaction<T>(db: Db, write: (tx: Tx) => T): T {
  return openTransaction(
    db,
    (tx) => {
      const result = write(tx);
      syncSearchDocuments(tx);
      return result;
    },
    'immediate',
  );
}