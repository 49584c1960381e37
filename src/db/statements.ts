import Database from 'better-sqlite3';
import { LruCache } from '../lib/lru.js';
import type { Db, DbOrTx, Tx } from './open.js';

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
 * without end. A dropped shape is prepared again on its next use.
 */
export const PREPARED_MAX = 256;

/**
 * Most estimated bytes of prepared statements one shape family keeps per connection (see
 * {@link estimatedStatementBytes}). A count alone bounds memory only at the largest statement's
 * size: a search filtered by 100 tags prepares a ~9,000-character statement holding ~55 KB, so
 * 256 of them on each of three connections (the main one and two search threads) held ~42 MB,
 * and 5,600 distinct search shapes grew the service by 111 MiB. 2 MiB keeps every small shape
 * the working set has (~256 of ~7 KB) and ~38 of the largest.
 */
export const PREPARED_BYTES_MAX = 2 * 1024 * 1024;

/**
 * SQLite's memory for a prepared statement, estimated from its SQL text: measured at ~5.5-6
 * bytes per character for the search's shapes (4,700 characters ~25 KB, 9,100 ~54 KB: the
 * VDBE program grows with the joins and terms the text spells out), plus a fixed part. Values
 * that are not better-sqlite3 statements (a Drizzle prepared query) are weighed by their shape
 * key, whose length tracks the text it builds.
 */
export function estimatedStatementBytes(value: unknown, shape: string): number {
  const source = (value as { source?: unknown } | null)?.source;
  const text = typeof source === 'string' ? source : shape;
  return STATEMENT_BASE_BYTES + text.length * STATEMENT_BYTES_PER_CHARACTER;
}
const STATEMENT_BASE_BYTES = 4096;
const STATEMENT_BYTES_PER_CHARACTER = 6;

/**
 * The connection of each open Drizzle transaction. Drizzle exposes `$client` on the database but
 * keeps a transaction's connection in a private field of its session, so the one place that opens
 * transactions (src/db/transaction.ts, through {@link openTransaction}) records it here instead.
 */
const transactionClients = new WeakMap<Tx, Database.Database>();

/**
 * Opens a Drizzle transaction on `db` (`BEGIN <behavior>`) whose connection {@link sqliteClient}
 * can find. Synchronous, like every better-sqlite3 transaction.
 */
export function openTransaction<T>(db: Db, write: (tx: Tx) => T, behavior: 'deferred' | 'immediate' | 'exclusive'): T {
  return db.transaction((tx) => {
    transactionClients.set(tx, db.$client);
    return write(tx);
  }, { behavior });
}

/**
 * The better-sqlite3 connection under a Drizzle database or transaction: the database's public
 * `$client`, or the connection {@link openTransaction} recorded for the transaction. A transaction
 * opened any other way is refused loudly rather than guessed at.
 */
export function sqliteClient(db: DbOrTx): Database.Database {
  if ('$client' in db) return db.$client;
  const client = transactionClients.get(db);
  if (client === undefined) throw new Error('This Drizzle transaction was not opened by openTransaction (src/db/statements.ts): its SQLite connection is unknown');
  return client;
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
  /** Their estimated bytes ({@link estimatedStatementBytes}). */
  bytes(connection: Connection): number;
}

/**
 * A family of statements told apart by a shape key, at most `maxShapes` and `maxBytes`
 * estimated bytes ({@link estimatedStatementBytes}) per connection; the least recently used go
 * first. Define at module level; shape keys need to be unique within the family only.
 */
export function defineStatementShapes<T = unknown>(maxShapes = PREPARED_MAX, maxBytes = PREPARED_BYTES_MAX): StatementShapes<T> {
  const key = Symbol('statement shapes');
  const shapes = (connection: Connection) =>
    slot(connection, key, () => new LruCache<string, { value: T; bytes: number }>(maxShapes, { maxWeight: maxBytes, weigh: (entry) => entry.bytes }));
  const get = <S extends T>(connection: Connection, shape: string, build: () => S): S =>
    shapes(connection).getOrCreate(shape, () => {
      const value = build();
      return { value, bytes: estimatedStatementBytes(value, shape) };
    }).value as S;
  return Object.assign(get, {
    count: (connection: Connection) => shapes(connection).size,
    bytes: (connection: Connection) => shapes(connection).weight,
  });
}
