/**
 * The database copy an export reads from (docs/decisions.md, "Library archive"): SQLite's
 * online backup of the live library into `DATA_DIR/.export/<uuid>.db`, deleted when the export
 * ends. An export streams to a client at the client's pace; reading the live database inside one
 * read transaction for that long would pin the WAL (no checkpoint can pass a reader), so the WAL
 * would grow for as long as a slow download lasts. The copy costs disk (the size of the library
 * file) and the time of a backup, and holds nothing open on the live database afterwards.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export const EXPORT_WORK_DIR = '.export';

/** Copies left by a crash are removed when the next export starts once they are this old. */
const STALE_COPY_MS = 24 * 60 * 60 * 1000;

export interface LibrarySnapshot {
  /** The copy, opened read-only. */
  readonly db: Database.Database;
  /** Closes and deletes the copy; safe to call twice. */
  dispose(): void;
}

/**
 * Copies the live library (`pagesPerStep` pages per step of the backup API: small steps keep a
 * server responsive, see src/backup/snapshot.ts) and opens the copy read-only.
 */
export async function snapshotLibrary(live: Database.Database, dataDir: string, pagesPerStep: number): Promise<LibrarySnapshot> {
  const dir = path.join(dataDir, EXPORT_WORK_DIR);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  removeStaleCopies(dir);
  const file = path.join(dir, `${randomUUID()}.db`);
  const remove = () => {
    for (const suffix of ['', '-journal', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
  };
  try {
    await live.backup(file, { progress: () => pagesPerStep });
    // The copy is a WAL database like its source; as a single self-contained file it opens read-only.
    const writable = new Database(file);
    writable.pragma('journal_mode = DELETE');
    writable.close();
    const db = new Database(file, { readonly: true, fileMustExist: true });
    let open = true;
    return {
      db,
      dispose: () => {
        if (!open) return;
        open = false;
        db.close();
        remove();
      },
    };
  } catch (error) {
    remove();
    throw error;
  }
}

function removeStaleCopies(dir: string): void {
  const cutoff = Date.now() - STALE_COPY_MS;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    const stat = fs.lstatSync(file, { throwIfNoEntry: false });
    if (stat !== undefined && stat.mtimeMs < cutoff) fs.rmSync(file, { force: true, recursive: true });
  }
}
