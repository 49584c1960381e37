import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DATABASE_FILE_NAME } from '../db/open.js';
import { SECRETS_DIR_NAME } from '../auth/secrets.js';
import { IMAGE_URL_PREFIX } from '../images/image-path.js';
import { storedImagePaths } from '../images/inline-images.js';
import { findStoredImage, imageCopyFolder, imagesFolderOf } from '../images/store.js';

export const BACKUPS_DIR_NAME = 'backups';
/** Pages per backup step inside the server: ~4 MiB, so requests keep being served meanwhile. */
export const SERVER_PAGES_PER_STEP = 1024;

export interface BackupResult {
  /** Absolute path of the snapshot folder. */
  path: string;
  /** Bytes of everything in it. */
  sizeBytes: number;
  /** Images the database named that were nowhere to be found (their references are cleared in the copy). */
  missingImages: string[];
}

export interface BackupOptions {
  /**
   * Pages copied per step of SQLite's online backup. Inside the server (the writer's own
   * connection) small steps keep the event loop responsive and writes made meanwhile are carried
   * into the copy. From another process, a change by the server would restart a stepped backup,
   * so the CLI copies everything in one step (one read transaction; WAL lets the server go on).
   */
  pagesPerStep: number;
  /** Clock for the folder name; tests pin it. */
  now?: Date;
}

/**
 * Writes a consistent snapshot of a running library into `DATA_DIR/backups/<UTC timestamp>/`,
 * laid out like a data folder (docs/decisions.md, "Running the service › Backups"): `library.db`
 * through SQLite's online backup API, then exactly the images that copy of the database references,
 * then `secrets/`. The folder is assembled under a temporary name and renamed when complete, so a
 * crash never leaves a half-written snapshot that looks finished.
 */
export async function createBackup(source: Database.Database, dataDir: string, options: BackupOptions): Promise<BackupResult> {
  const backupsDir = path.join(dataDir, BACKUPS_DIR_NAME);
  fs.mkdirSync(backupsDir, { recursive: true, mode: 0o700 });
  const name = uniqueFolderName(backupsDir, options.now ?? new Date());
  const partial = path.join(backupsDir, `.partial-${name}`);
  fs.mkdirSync(partial, { mode: 0o700 });
  try {
    const snapshotDb = path.join(partial, DATABASE_FILE_NAME);
    await source.backup(snapshotDb, { progress: () => options.pagesPerStep });
    const missingImages = copyReferencedImages(snapshotDb, dataDir, partial);
    copySecrets(dataDir, partial);
    const finalPath = path.join(backupsDir, name);
    fs.renameSync(partial, finalPath);
    return { path: finalPath, sizeBytes: folderSize(finalPath), missingImages };
  } catch (error) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw error;
  }
}

/** `2026-11-21T10-00-00.000Z`: the UTC timestamp, with colons that some file systems refuse replaced. */
function uniqueFolderName(backupsDir: string, now: Date): string {
  const base = now.toISOString().replace(/:/g, '-');
  let name = base;
  for (let n = 2; fs.existsSync(path.join(backupsDir, name)) || fs.existsSync(path.join(backupsDir, `.partial-${name}`)); n += 1) {
    name = `${base}-${n}`;
  }
  return name;
}

/**
 * Copies every image the snapshot database references, from `images/` or, when it was removed
 * after the snapshot was taken, from the image trash. A reference to an image found nowhere is
 * cleared in the copy, so the snapshot is always self-consistent. Also turns the copy into a
 * single self-contained file (rollback journal) that the service reopens in WAL mode.
 */
function copyReferencedImages(snapshotDb: string, dataDir: string, target: string): string[] {
  const db = new Database(snapshotDb);
  const missing: string[] = [];
  try {
    db.pragma('journal_mode = DELETE');
    const referenced = db
      .prepare(
        `SELECT cover_path AS path FROM stories WHERE cover_path IS NOT NULL
         UNION SELECT avatar_image_path FROM authors WHERE avatar_image_path IS NOT NULL`,
      )
      .pluck()
      .all() as string[];
    // And every image a story body names (an imported page's pictures), one body in memory at a time.
    const named = new Set(referenced);
    const bodies = db.prepare('SELECT content_html FROM stories WHERE instr(content_html, ?) > 0').pluck();
    for (const html of bodies.iterate(IMAGE_URL_PREFIX) as IterableIterator<string>) for (const relPath of storedImagePaths(html)) named.add(relPath);
    const copyOf = imageCopyFolder(target);
    for (const relPath of named) {
      const found = findStoredImage(imagesFolderOf(dataDir), relPath);
      if (found === undefined) {
        missing.push(relPath);
        continue;
      }
      fs.copyFileSync(found, copyOf(relPath), fs.constants.COPYFILE_FICLONE);
    }
    if (missing.length > 0) {
      const clear = db.transaction((paths: string[]) => {
        for (const relPath of paths) {
          db.prepare('UPDATE stories SET cover_path = NULL WHERE cover_path = ?').run(relPath);
          db.prepare('UPDATE authors SET avatar_image_path = NULL WHERE avatar_image_path = ?').run(relPath);
        }
      });
      clear(missing);
    }
  } finally {
    db.close();
  }
  return missing;
}

function copySecrets(dataDir: string, target: string): void {
  const from = path.join(dataDir, SECRETS_DIR_NAME);
  if (!fs.existsSync(from)) return;
  const to = path.join(target, SECRETS_DIR_NAME);
  fs.mkdirSync(to, { mode: 0o700 });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith('.tmp')) continue;
    fs.copyFileSync(path.join(from, entry.name), path.join(to, entry.name));
    fs.chmodSync(path.join(to, entry.name), 0o600);
  }
}

/** Bytes of every file under `dir`. */
export function folderSize(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}
