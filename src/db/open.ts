import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { nameKey } from '../lib/names.js';
import * as schema from './schema.js';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/** The transaction object Drizzle hands to `db.transaction()` callbacks. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** A Drizzle database or an open transaction: repository functions take either. */
export type DbOrTx = Db | Tx;

export const DATABASE_FILE_NAME = 'library.db';

/**
 * Opens (creating if needed) the library database with the pragmas every connection needs:
 * WAL so readers never wait for the writer, foreign keys on (SQLite defaults them off), a busy
 * timeout so a second process (backup, set-password) waits instead of failing, and
 * `synchronous=NORMAL`, which in WAL mode is still durable against application crashes.
 */
export function openDatabase(file: string): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return withPragmas(new Database(file), (client) => {
    client.pragma('journal_mode = WAL');
    client.pragma('foreign_keys = ON');
    client.pragma('synchronous = NORMAL');
  });
}

/**
 * A second, read-only connection to an existing library database, for a reader thread (the
 * search workers, docs/decisions.md, "Search worker pool"). It reads what the main connection
 * has committed (WAL: each read transaction sees the last commit, and never waits for the
 * writer), cannot write, and has the read-side settings of {@link openDatabase}: the busy timeout
 * (a reader waits only while the WAL is being reset, briefly), SQLite's default 2 MB page cache,
 * and the name-key function.
 */
export function openReadOnlyDatabase(file: string): Db {
  return withPragmas(new Database(file, { readonly: true, fileMustExist: true }), () => undefined);
}

/** The settings every connection shares, then `specific`; the connection is closed if any fails. */
function withPragmas(client: Database.Database, specific: (client: Database.Database) => void): Db {
  try {
    specific(client);
    client.pragma('busy_timeout = 5000');
    // The name key as SQL, so a migration can key existing rows exactly as the code does.
    client.function('storyshelf_name_key', { deterministic: true }, (name: unknown) => (typeof name === 'string' ? nameKey(name) : null));
    return drizzle({ client, schema });
  } catch (error) {
    client.close();
    throw error;
  }
}

/** Applies pending migrations in one transaction: a failure leaves the database as it was. */
export function applyMigrations(db: Db, migrationsFolder = findMigrationsFolder()): void {
  migrate(db, { migrationsFolder });
}

/** True when the database answers a trivial query: the liveness check's probe. */
export function databaseAnswers(db: Db): boolean {
  try {
    db.$client.prepare('SELECT 1').get();
    return true;
  } catch {
    return false;
  }
}

/** Checkpoints the WAL into the main file and closes, so a stopped data folder is one file. */
export function closeDatabase(db: Db): void {
  const client = db.$client;
  if (!client.open) return;
  try {
    client.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    client.close();
  }
}

/** The committed migrations, found relative to this file both from `src/` and `dist/src/`. */
export function findMigrationsFolder(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth += 1) {
    const candidate = path.join(dir, 'drizzle');
    if (fs.existsSync(path.join(candidate, 'meta', '_journal.json'))) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('The drizzle/ migrations folder was not found next to the application');
}
