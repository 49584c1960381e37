import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyBaseLogger } from 'fastify';
import { closeDatabase, DATABASE_FILE_NAME, findMigrationsFolder, openDatabase } from '../../src/db/open.js';
import { migrateSafely } from '../../src/plugins/db-migrate.js';

interface Journal {
  entries: Array<{ idx: number; version: string; when: number; tag: string; breakpoints: boolean }>;
}

/** A copy of the committed migrations, cut to the first `keep` and/or with extra ones appended. */
export function migrationsCopy(dir: string, keep: number, extra: Array<{ tag: string; sql: string }> = []): string {
  const folder = path.join(dir, 'migrations');
  fs.cpSync(findMigrationsFolder(), folder, { recursive: true });
  const journalFile = path.join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8')) as Journal;
  journal.entries = journal.entries.slice(0, keep);
  let when = Math.max(...journal.entries.map((entry) => entry.when));
  for (const migration of extra) {
    when += 1000;
    journal.entries.push({ idx: journal.entries.length, version: '6', when, tag: migration.tag, breakpoints: true });
    fs.writeFileSync(path.join(folder, `${migration.tag}.sql`), migration.sql);
  }
  fs.writeFileSync(journalFile, JSON.stringify(journal));
  return folder;
}


/** What migrateSafely may log; a new library is migrated without a word worth keeping. */
const quiet = { fatal: () => undefined, error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined, trace: () => undefined } as unknown as FastifyBaseLogger;

let migratedLibrary: Promise<string> | undefined;

/**
 * A new, empty library with every committed migration applied, for test apps to start from
 * (test/helpers/app.ts): an app migrating its own new file spent ~35 ms of the ~0.28 s of CPU
 * a process's later apps cost, for each of the suite's ~570 apps (docs/performance.md, "Test
 * suite time"). It is made by the app's own code, the calls the database plugin makes on a new
 * data folder (openDatabase, migrateSafely, closeDatabase), once per machine and set of
 * migrations: it is kept in the temp folder under a name hashed from what decides its bytes (the
 * journal and SQL of the migrations, the two files that open and migrate, Drizzle's package,
 * SQLite's version). Written beside and renamed into place, so test processes starting together
 * at worst each make one, and none reads half a file.
 */
export function migratedLibraryFile(): Promise<string> {
  migratedLibrary ??= makeMigratedLibrary();
  return migratedLibrary;
}

async function makeMigratedLibrary(): Promise<string> {
  const folder = findMigrationsFolder();
  const root = path.dirname(folder);
  const hash = crypto.createHash('sha256');
  const journal = fs.readFileSync(path.join(folder, 'meta', '_journal.json'));
  hash.update(journal);
  for (const entry of (JSON.parse(journal.toString('utf8')) as Journal).entries) hash.update(fs.readFileSync(path.join(folder, `${entry.tag}.sql`)));
  for (const file of ['src/db/open.ts', 'src/plugins/db-migrate.ts']) hash.update(fs.readFileSync(path.join(root, file)));
  hash.update(fs.readFileSync(path.join(root, 'node_modules', 'drizzle-orm', 'package.json')));
  const memory = new Database(':memory:');
  hash.update(memory.prepare('SELECT sqlite_version()').pluck().get() as string);
  memory.close();
  const file = path.join(os.tmpdir(), `storyshelf-migrated-library-${hash.digest('hex').slice(0, 16)}.db`);
  if (fs.existsSync(file)) return file;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storyshelf-migrating-'));
  try {
    const db = openDatabase(path.join(dir, DATABASE_FILE_NAME));
    try {
      await migrateSafely(db, dir, quiet);
    } finally {
      closeDatabase(db);
    }
    fs.renameSync(path.join(dir, DATABASE_FILE_NAME), file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return file;
}
