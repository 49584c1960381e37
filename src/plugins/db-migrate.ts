import { readMigrationFiles, type MigrationMeta } from 'drizzle-orm/migrator';
import type { FastifyBaseLogger } from 'fastify';
import { createBackup } from '../backup/snapshot.js';
import { applyMigrations, findMigrationsFolder, type Db } from '../db/open.js';

/** From another connection's point of view a one-step backup is one read transaction. */
const ALL_PAGES = 0x7fffffff;

/** Thrown when a migration fails; the database is exactly as it was before. */
export class MigrationError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

/** The committed migrations this database has not applied yet. */
export function pendingMigrations(db: Db, migrationsFolder = findMigrationsFolder()): MigrationMeta[] {
  const all = readMigrationFiles({ migrationsFolder });
  const client = db.$client;
  const hasTable = client.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get() !== undefined;
  if (!hasTable) return all;
  const last = client.prepare('SELECT max(created_at) FROM __drizzle_migrations').pluck().get() as number | null;
  return last === null ? all : all.filter((migration) => migration.folderMillis > Number(last));
}

/** True when the library holds anything a user made (an empty or brand-new file needs no backup). */
function holdsLibraryData(db: Db): boolean {
  const client = db.$client;
  for (const table of ['stories', 'authors', 'series', 'tags']) {
    const exists = client.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
    if (exists && client.prepare(`SELECT 1 FROM "${table}" LIMIT 1`).get() !== undefined) return true;
  }
  return false;
}

/**
 * Applies pending migrations safely (docs/decisions.md, "Running the service › Starting"). A
 * library with data is backed up first into DATA_DIR/backups/, and the log says where. Drizzle's
 * migrator runs every pending migration in one transaction, so a failure rolls back to the database
 * exactly as it was; it is reported as a MigrationError naming the migration and the backup.
 */
export async function migrateSafely(db: Db, dataDir: string, log: FastifyBaseLogger, migrationsFolder = findMigrationsFolder()): Promise<void> {
  const pending = pendingMigrations(db, migrationsFolder);
  if (pending.length === 0) return;
  let backupPath: string | undefined;
  if (holdsLibraryData(db)) {
    const backup = await createBackup(db.$client, dataDir, { pagesPerStep: ALL_PAGES });
    backupPath = backup.path;
    log.info({ backup: backup.path, pendingMigrations: pending.length }, `Took a backup before upgrading the database: ${backup.path}`);
  }
  try {
    applyMigrations(db, migrationsFolder);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const where = backupPath === undefined ? '' : ` A backup taken just before is at ${backupPath}.`;
    throw new MigrationError(`Database upgrade failed and was rolled back; the library is unchanged.${where} Cause: ${reason}`, { cause: error });
  }
  log.info({ applied: pending.length }, 'Database upgraded');
}
