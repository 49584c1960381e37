import type Database from 'better-sqlite3';
import type { DbOrTx } from './transaction.js';

/**
 * The better-sqlite3 connection under a Drizzle database or transaction. The search code runs
 * its hot statements prepared once per connection (PERFORMANCE-NOTES.md: a Drizzle query
 * rebuilt per call costs ~5x a prepared one); a transaction is the same connection, so those
 * statements take part in it. Drizzle exposes `$client` on the database only, so for a
 * transaction this reads its session's client (checked, so an upgrade that moves it fails loudly).
 */
export function sqliteClient(db: DbOrTx): Database.Database {
  if ('$client' in db) return db.$client;
  const client = (db as unknown as { session?: { client?: unknown } }).session?.client;
  if (client === undefined || client === null || typeof (client as Database.Database).prepare !== 'function') {
    throw new Error('The SQLite connection of this Drizzle transaction could not be found');
  }
  return client as Database.Database;
}

/** Prepares each statement once per connection, on first use. */
export function statementCache<T>(build: (client: Database.Database) => T): (client: Database.Database) => T {
  const cache = new WeakMap<Database.Database, T>();
  return (client) => {
    let statements = cache.get(client);
    if (statements === undefined) {
      statements = build(client);
      cache.set(client, statements);
    }
    return statements;
  };
}
