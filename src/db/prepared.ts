import { LruCache } from '../lib/lru.js';
import { sqliteClient } from './sqlite-client.js';
import type { DbOrTx } from './transaction.js';

/**
 * Most statements kept per connection. Today's keys are a fixed set of about 110 (the story
 * lists' scope x sort x direction x part, a few counts and lookups), so none is ever dropped;
 * the bound keeps a key built from request text from growing the cache without end (each
 * prepared statement holds tens of KB). A dropped statement is prepared again on its next use.
 */
export const PREPARED_MAX = 256;

const cache = new WeakMap<object, LruCache<string, unknown>>();

/**
 * A statement (a Drizzle `.prepare()`d query or a raw better-sqlite3 one) built once per
 * connection and reused while it is among the {@link PREPARED_MAX} most recently used: building
 * a Drizzle query and preparing it costs 35-65 us per call against 6-13 us prepared
 * (PERFORMANCE-NOTES.md). Keyed by the
 * connection, so a statement first built inside a transaction serves later ones too (better-sqlite3
 * has one connection: a transaction is the same session). `key` names the statement's shape and
 * must be unique across the app ("domain:what"); `build` must depend on nothing else.
 */
export function prepared<T>(db: DbOrTx, key: string, build: () => T): T {
  const client = sqliteClient(db);
  let statements = cache.get(client);
  if (statements === undefined) {
    statements = new LruCache(PREPARED_MAX);
    cache.set(client, statements);
  }
  return statements.getOrCreate(key, build) as T;
}
