import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import Database from 'better-sqlite3';
import type { FastifyBaseLogger } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { migrateSafely, MigrationError, pendingMigrations } from '../../src/plugins/db-migrate.js';
import { closeDatabase, DATABASE_FILE_NAME, findMigrationsFolder, openDatabase } from '../../src/db/open.js';
import { buildTestApp, TEST_PASSWORD, tempDataDir } from '../helpers/app.js';
import { migratedLibraryFile, migrationsCopy } from '../helpers/migrations.js';

function capturingLog(): { log: FastifyBaseLogger; messages: string[] } {
  const messages: string[] = [];
  const record = (first: unknown, second?: unknown) => {
    messages.push(typeof first === 'string' ? first : String(second));
  };
  const log = { info: record, warn: record, error: record, debug: record } as unknown as FastifyBaseLogger;
  return { log, messages };
}

const NOW = '2026-11-21T10:00:00.000Z';
const allCount = () => JSON.parse(fs.readFileSync(path.join(findMigrationsFolder(), 'meta', '_journal.json'), 'utf8')).entries.length as number;

t.test('a new library is migrated without a backup', async (t) => {
  const dataDir = tempDataDir(t);
  const db = openDatabase(path.join(dataDir, 'library.db'));
  t.teardown(() => closeDatabase(db));
  t.equal(pendingMigrations(db).length, allCount());
  const { log } = capturingLog();
  await migrateSafely(db, dataDir, log);
  t.equal(pendingMigrations(db).length, 0);
  t.notOk(fs.existsSync(path.join(dataDir, 'backups')), 'nothing to back up');
});

t.test('a library with data is backed up before pending migrations, and the log says where', async (t) => {
  const dataDir = tempDataDir(t);
  const file = path.join(dataDir, 'library.db');
  const db = openDatabase(file);
  t.teardown(() => closeDatabase(db));
  await migrateSafely(db, dataDir, capturingLog().log, migrationsCopy(dataDir, 1));
  db.$client.prepare('INSERT INTO tags (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run('t1', 'kept', NOW, NOW);

  const { log, messages } = capturingLog();
  await migrateSafely(db, dataDir, log);
  t.equal(pendingMigrations(db).length, 0);
  const backups = fs.readdirSync(path.join(dataDir, 'backups'));
  t.equal(backups.length, 1);
  t.ok(messages.some((message) => message.includes(path.join(dataDir, 'backups', backups[0] as string))), 'the log names the backup');
});

t.test('a failing migration leaves the database file byte-identical and says so', async (t) => {
  const dataDir = tempDataDir(t);
  const file = path.join(dataDir, 'library.db');
  let db = openDatabase(file);
  await migrateSafely(db, dataDir, capturingLog().log);
  db.$client.prepare('INSERT INTO tags (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run('t1', 'kept', NOW, NOW);
  closeDatabase(db);
  const before = fs.readFileSync(file);

  const broken = migrationsCopy(dataDir, allCount(), [
    { tag: '9998_fine', sql: 'CREATE TABLE `first_half` (`a` integer);' },
    { tag: '9999_broken', sql: 'CREATE TABLE `second_half` (`a` integer);\n--> statement-breakpoint\nTHIS IS NOT SQL;' },
  ]);
  db = openDatabase(file);
  const failure = await migrateSafely(db, dataDir, capturingLog().log, broken).then(
    () => undefined,
    (error: unknown) => error,
  );
  t.ok(failure instanceof MigrationError, 'a MigrationError');
  t.match((failure as Error).message, /rolled back/);
  t.match((failure as Error).message, /backup/);
  t.equal(db.$client.prepare("SELECT count(*) FROM sqlite_master WHERE name IN ('first_half', 'second_half')").pluck().get(), 0, 'no part of any pending migration stayed');
  closeDatabase(db);
  t.ok(before.equals(fs.readFileSync(file)), 'library.db is byte-identical');
});

/** Every schema object, every row of every table (the FTS5 tables' settings included), the journal mode. */
function databaseContents(file: string): unknown {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const schema = db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all() as Array<{ type: string; name: string }>;
    const rows = Object.fromEntries(
      schema.filter((entry) => entry.type === 'table').map((table) => [table.name, db.prepare(`SELECT * FROM "${table.name}"`).raw().all()]),
    );
    return { schema, rows, journalMode: db.pragma('journal_mode', { simple: true }) };
  } finally {
    db.close();
  }
}

t.test('a test app on the copied migrated library has the database an app makes in an empty folder', async (t) => {
  const copied = await buildTestApp(t);
  await copied.app.close();

  const dataDir = tempDataDir(t);
  const fresh = await buildApp(loadConfig({ DATA_DIR: dataDir, APP_PASSWORD: TEST_PASSWORD, LOG_LEVEL: 'silent' }), { logger: false });
  await fresh.close();

  t.strictSame(databaseContents(path.join(copied.dataDir, DATABASE_FILE_NAME)), databaseContents(path.join(dataDir, DATABASE_FILE_NAME)));
  // Read from a copy: opening the shared file, even read-only, would leave a WAL beside it.
  const template = path.join(tempDataDir(t), DATABASE_FILE_NAME);
  fs.copyFileSync(await migratedLibraryFile(), template);
  t.strictSame(databaseContents(template), databaseContents(path.join(dataDir, DATABASE_FILE_NAME)), 'the library copied is that database before any app started on it');
});
