import fs from 'node:fs';
import path from 'node:path';
import { BACKUPS_DIR_NAME, folderSize } from './snapshot.js';

/** One finished snapshot in `DATA_DIR/backups/`. */
export interface BackupEntry {
  /** The folder's name: its UTC timestamp (`2026-11-21T10-00-00.000Z`, maybe with `-2`). */
  name: string;
  /** When it was taken: from the name, else the folder's modification time. */
  takenAt: Date;
  /** Bytes of everything in it. */
  sizeBytes: number;
}

export interface BackupList {
  /** The newest first, at most the limit asked for. */
  backups: BackupEntry[];
  /** Every finished snapshot in the folder, listed or not. */
  total: number;
}

const NAME = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2}(?:\.\d{3})?)Z(?:-\d+)?$/;

/** The time a snapshot's folder name says (createBackup names it so), or undefined for another name. */
export function backupTime(name: string): Date | undefined {
  const match = NAME.exec(name);
  if (match === null) return undefined;
  const time = new Date(`${match[1]}T${match[2]}:${match[3]}:${match[4]}Z`);
  return Number.isNaN(time.getTime()) ? undefined : time;
}

/**
 * The finished snapshots in `DATA_DIR/backups/` (docs/decisions.md, "Running the service ›
 * Backups"), newest first, at most `limit`: folders only, never one still being written
 * (`.partial-…`) or any other hidden entry. Only the listed ones are measured.
 */
export function listBackups(dataDir: string, limit: number): BackupList {
  const dir = path.join(dataDir, BACKUPS_DIR_NAME);
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { backups: [], total: 0 };
    throw error;
  }
  const folders = entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => ({ name: entry.name, takenAt: backupTime(entry.name) ?? fs.statSync(path.join(dir, entry.name)).mtime }))
    .sort((a, b) => b.takenAt.getTime() - a.takenAt.getTime() || b.name.localeCompare(a.name));
  const backups = folders.slice(0, limit).map((folder) => ({ ...folder, sizeBytes: folderSize(path.join(dir, folder.name)) }));
  return { backups, total: folders.length };
}
