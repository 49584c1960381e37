import type { Db } from './open.js';
import { syncSearchDocuments } from '../search/sync.js';

/** The transaction object Drizzle hands to `db.transaction()` callbacks. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** A Drizzle database or an open transaction: repository functions take either. */
export type DbOrTx = Db | Tx;

/**
 * Runs one write as a single SQLite transaction and, before it commits, brings the search
 * documents of everything it touched up to date (triggers record what changed). So the index
 * can never disagree with the tables, whatever the write was. Synchronous, as better-sqlite3
 * transactions must be: nothing inside may await (STYLE.md, habit 8).
 */
export function writeTransaction<T>(db: Db, write: (tx: Tx) => T): T {
  return db.transaction((tx) => {
    const result = write(tx);
    syncSearchDocuments(tx);
    return result;
  });
}
