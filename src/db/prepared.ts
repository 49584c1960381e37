import { sqliteClient } from '../search/sqlite-client.js';
import type { DbOrTx } from './transaction.js';

const cache = new WeakMap<object, Map<string, unknown>>();

/**
 * A statement (a Drizzle `.prepare()`d query or a raw better-sqlite3 one) built once per
 * connection and reused for the connection's life: building a Drizzle query and preparing it
 * costs 35-65 us per call against 6-13 us prepared (PERFORMANCE-NOTES.md). Keyed by the
 * connection, so a statement first built inside a transaction serves later ones too (better-sqlite3
 * has one connection: a transaction is the same session). `key` names the statement's shape and
 * must be unique across the app ("domain:what"); `build` must depend on nothing else.
 */
export function prepared<T>(db: DbOrTx, key: string, build: () => T): T {
  const client = sqliteClient(db);
  let statements = cache.get(client);
  if (statements === undefined) {
    statements = new Map();
    cache.set(client, statements);
  }
  let statement = statements.get(key) as T | undefined;
  if (statement === undefined) {
    statement = build();
    statements.set(key, statement);
  }
  return statement;
}
