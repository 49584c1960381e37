import Database from 'better-sqlite3';
import { LruCache } from '../lib/lru.js';
import type { DbOrTx } from './open.js';

/**
 * The per-connection statement cache. Building a Drizzle query and preparing it costs 35-65 us
 * per call against 6-13 us prepared (docs/performance.md, "Measured facts the code relies on"), so hot statements are prepared once
 * per connection and reused; a transaction is the same connection (better-sqlite3 has one
 * session), so a statement first built inside one serves later ones too.
 *
 * One key rule: a statement is found by its definition, never by a name. Each
 * {@link defineStatements} or {@link defineStatementShapes} call at module level makes a fresh
 * `Symbol`, and the cache is keyed by that symbol, so two definitions cannot share a slot
 * however they are named: a collision, which used to hand back another query's statement
 * silently, cannot be written. Shape keys exist only inside one definition, next to the code
 * that builds from them.
 */

/** A Drizzle database, an open transaction, or the better-sqlite3 connection under them. */
export type Connection = DbOrTx | Database.Database;

/**
 * Most shapes one {@link defineStatementShapes} definition keeps per connection. Today's fixed
 * shape sets are far smaller (the story lists' scope x sort x direction x part is about 100), so
 * none is ever dropped; the bound keeps a shape built from request input from growing the cache
 * without end (each prepared statement holds tens of KB). A dropped shape is prepared again on
 * its next use.
 */
export const PREPARED_MAX = 256;

/**
 * The better-sqlite3 connection under a Drizzle database or transaction. Drizzle exposes
 * `$client` on the database only, so for a transaction this reads its session's client
 * (checked, so an upgrade that moves it fails loudly).
 */
export function sqliteClient(db: DbOrTx): Database.Database {
  if ('$client' in db) return db.$client;
  const client = (db as unknown as { session?: { client?: unknown } }).session?.client;
  if (client === undefined || client === null || typeof (client as Database.Database).prepare !== 'function') {
    throw new Error('The SQLite connection of this Drizzle transaction could not be found');
  }
  return client as Database.Database;
}

function clientOf(connection: Connection): Database.Database {
  return connection instanceof Database ? connection : sqliteClient(connection);
}

/** Each connection's statements, under the symbol of the definition that built them. */
const cache = new WeakMap<Database.Database, Map<symbol, unknown>>();

function slot<T>(connection: Connection, key: symbol, create: () => T): T {
  const client = clientOf(connection);
  let slots = cache.get(client);
  if (slots === undefined) {
    slots = new Map();
    cache.set(client, slots);
  }
  if (!slots.has(key)) slots.set(key, create());
  return slots.get(key) as T;
}

/**
 * Statements (one, or an object of them) prepared once per connection, on first use, by
 * `build` from the connection it is first asked with. Define at module level; `build` must
 * depend on nothing but that connection.
 */
export function defineStatements<C extends Connection, T>(build: (connection: C) => T): (connection: C) => T {
  const key = Symbol('statements');
  return (connection) => slot(connection, key, () => build(connection));
}

/** Statements whose text depends on a shape (filters, sort), kept per connection and LRU-bounded. */
export interface StatementShapes<T> {
  /** The statement for `shape`, prepared by `build` on first use; `build` must depend on `shape` only. */
  <S extends T>(connection: Connection, shape: string, build: () => S): S;
  /** How many shapes the connection keeps now (for tests and diagnostics). */
  count(connection: Connection): number;
}

/**
 * A family of statements told apart by a shape key, at most `maxShapes` per connection (the
 * least recently used is dropped). Define at module level; shape keys need to be unique within
 * the family only.
 */
export function defineStatementShapes<T = unknown>(maxShapes = PREPARED_MAX): StatementShapes<T> {
  const key = Symbol('statement shapes');
  const shapes = (connection: Connection) => slot(connection, key, () => new LruCache<string, T>(maxShapes));
  const get = <S extends T>(connection: Connection, shape: string, build: () => S): S => shapes(connection).getOrCreate(shape, build) as S;
  return Object.assign(get, { count: (connection: Connection) => shapes(connection).size });
}
