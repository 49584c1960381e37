import type { Db } from '../db/open.js';

const cache = new WeakMap<Db, Map<string, unknown>>();

/**
 * A Drizzle query prepared once per database and reused: building a query on every call costs
 * ~0.8 ms against ~0.15 ms prepared (PERFORMANCE-NOTES.md). `key` names the statement's shape;
 * `build` must only depend on it. Statements live as long as their database object.
 */
export function prepared<T>(db: Db, key: string, build: () => T): T {
  let statements = cache.get(db);
  if (statements === undefined) {
    statements = new Map();
    cache.set(db, statements);
  }
  let statement = statements.get(key) as T | undefined;
  if (statement === undefined) {
    statement = build();
    statements.set(key, statement);
  }
  return statement;
}
