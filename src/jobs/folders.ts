/**
 * Files that belong to a job (docs/decisions.md, "Jobs"): a kind that needs files on disk (an
 * upload to import, an archive to restore) keeps them in `DATA_DIR/jobs/<id>/` and removes the
 * folder in its handler's `finished`; whatever a crash leaves there is swept at start-up.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../db/open.js';
import { unfinishedJobIds } from './repository.js';

/** The folder of one job's files. */
export function jobFolder(dataDir: string, jobId: string): string {
  return path.join(dataDir, 'jobs', jobId);
}

/**
 * Removes the folders under `DATA_DIR/jobs/` that no queued or running job owns: what a crash
 * between receiving an upload and queueing its job, or during a job's clean-up, leaves behind.
 */
export async function sweepJobFolders(db: Db, dataDir: string): Promise<void> {
  const root = path.join(dataDir, 'jobs');
  const owned = new Set(unfinishedJobIds(db));
  const folders = await fs.readdir(root).catch(() => [] as string[]);
  await Promise.all(folders.filter((name) => !owned.has(name)).map((name) => fs.rm(path.join(root, name), { recursive: true, force: true })));
}
