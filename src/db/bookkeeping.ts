import type { Db, Tx } from './open.js';
import { openTransaction } from './statements.js';

/**
 * Runs a bookkeeping write, one that changes no story, author, series, tag or link (which of the
 * two to use: src/db/transaction.ts), as one `BEGIN IMMEDIATE` transaction, for the reason given
 * there: the write lock is waited for, never refused. No sync step: nothing the search documents
 * are built from changes. Synchronous, like every better-sqlite3 transaction.
 *
 * A file of its own, apart from `writeTransaction`: that one imports the search sync, and the
 * search code's own writes (the outbox, the rebuild, the term counts) use this one, so in one
 * file the two made an import circle through db/ and search/.
 */
export function bookkeepingTransaction<T>(db: Db, write: (tx: Tx) => T): T {
  return openTransaction(db, write, 'immediate');
}
