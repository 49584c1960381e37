/**
 * Files that belong to a job (docs/decisions.md, "Jobs"): a kind that needs files on disk (an
 * upload to import, an archive to restore) keeps them in `DATA_DIR/jobs/<id>/` and removes the
 * folder in its handler's `finished`; whatever a crash leaves there is swept at start-up, once,
 * for every kind.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../db/open.js';
import { unfinishedJobIds } from './repository.js';

/**
 * The file an `archive-restore` job keeps its upload in, inside its folder (src/archive/job.ts).
 * Named here because the start-up sweep moves an archive left under the old convention
 * (`DATA_DIR/imports/<id>.zip`) to it.
 */
export const RESTORE_ARCHIVE_FILE = 'archive.zip';

/** Where the archive restore kept its uploads before every job had a folder. */
const LEGACY_IMPORTS_DIR = 'imports';

/** The folder of one job's files. */
export function jobFolder(dataDir: string, jobId: string): string {
  return path.join(dataDir, 'jobs', jobId);
}

/**
 * Removes the folders under `DATA_DIR/jobs/` that no queued or running job owns: what a crash
 * between receiving an upload and queueing its job, or during a job's clean-up, leaves behind.
 * Runs before the runner starts (src/plugins/jobs.ts), so no job is using its folder yet.
 */
export async function sweepJobFolders(db: Db, dataDir: string): Promise<void> {
  const root = path.join(dataDir, 'jobs');
  const owned = new Set(unfinishedJobIds(db));
  await adoptLegacyImports(dataDir, owned);
  const folders = await fs.readdir(root).catch(() => [] as string[]);
  await Promise.all(folders.filter((name) => !owned.has(name)).map((name) => fs.rm(path.join(root, name), { recursive: true, force: true })));
}

/**
 * A data folder from before job folders may still have `DATA_DIR/imports/`: an unfinished
 * restore's archive (`<id>.zip`, a regular file) moves into its job's folder so the job resumes;
 * everything else there, and the folder itself, is removed (a link is removed, never followed).
 */
async function adoptLegacyImports(dataDir: string, owned: ReadonlySet<string>): Promise<void> {
  const legacy = path.join(dataDir, LEGACY_IMPORTS_DIR);
  const names = await fs.readdir(legacy).catch(() => [] as string[]);
  for (const name of names) {
    const id = name.endsWith('.zip') ? name.slice(0, -'.zip'.length) : '';
    const file = path.join(legacy, name);
    if (!owned.has(id) || !(await fs.lstat(file)).isFile()) continue;
    await fs.mkdir(jobFolder(dataDir, id), { recursive: true, mode: 0o700 });
    await fs.rename(file, path.join(jobFolder(dataDir, id), RESTORE_ARCHIVE_FILE));
  }
  await fs.rm(legacy, { recursive: true, force: true });
}
