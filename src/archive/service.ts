/**
 * The library archive's use cases (docs/api.md, "Export and restore"; docs/decisions.md,
 * "Library archive"): an export streamed from a private copy of the database, and the upload
 * of an archive to restore, saved into the data folder before any job reads it.
 */
import type { Readable } from 'node:stream';
import type Database from 'better-sqlite3';
import fs from 'node:fs';
import type { FastifyRequest } from 'fastify';
import { BadRequest, TooManyRequests } from '../errors.js';
import { jobFolder } from '../jobs/folders.js';
import type { JobRunner } from '../jobs/runner.js';
import { newId } from '../lib/clock.js';
import { Semaphore } from '../lib/semaphore.js';
import { ARCHIVE_RESTORE_KIND, type ArchiveRestoreParams } from './job.js';
import { ArchiveRejected } from './reader.js';
import { ArchiveRestore, type RestoreDeps } from './restore.js';
import { saveArchiveUpload } from './upload.js';
import { streamArchive, type ExportSummary } from './export.js';
import { snapshotLibrary } from './snapshot.js';

export interface ExportDownload {
  stream: Readable;
  /** `storyshelf-export-<UTC>.zip`, colons replaced as in backup folder names. */
  fileName: string;
  finished: Promise<ExportSummary>;
}

/** Exports at once per app: each holds a copy of the database on disk while it streams. */
const MAX_CONCURRENT_EXPORTS = 1;

/** The slots {@link exportLibrary} takes, one set per app (or per script run), none waiting. */
export function exportSlots(): Semaphore {
  return new Semaphore(MAX_CONCURRENT_EXPORTS, 0);
}

/** The file name an export made at `now` is offered under. */
export function exportFileName(now: Date): string {
  return `storyshelf-export-${now.toISOString().replace(/:/g, '-')}.zip`;
}

/**
 * Copies the library (`pagesPerStep` pages per backup step) and streams its archive; the copy is
 * deleted when the stream ends, fails or is closed by the client. An export while `slots` (see
 * {@link exportSlots}) are all taken is 429 (each holds a copy of the database on disk).
 */
export async function exportLibrary(
  slots: Semaphore,
  live: Database.Database,
  dataDir: string,
  imagesDir: string,
  pagesPerStep: number,
  now = new Date(),
): Promise<ExportDownload> {
  const release = slots.tryAcquire();
  if (release === undefined) throw new TooManyRequests('An export is already running; try again when it has finished', 30);
  let snapshot;
  try {
    snapshot = await snapshotLibrary(live, dataDir, pagesPerStep);
  } catch (error) {
    release();
    throw error;
  }
  const copy = snapshot;
  const { stream, finished } = streamArchive(copy.db, imagesDir, now);
  stream.once('close', () => {
    copy.dispose();
    release();
  });
  return { stream, fileName: exportFileName(now), finished };
}

/**
 * Saves an uploaded archive into the data folder and checks it as a whole before its job is
 * queued (docs/decisions.md, "Library archive"): an archive the reader refuses (./reader.ts:
 * unsafe paths, links, bombs, another format or a newer version) is a 400 naming why, deleted at
 * once, and nothing is written. 429 before the upload is read when the job queue is full.
 * Returns the job's id.
 */
export async function startArchiveRestore(jobs: JobRunner, request: FastifyRequest, dataDir: string, deps: RestoreDeps): Promise<string> {
  jobs.checkQueueRoom();
  const id = newId();
  const folder = jobFolder(dataDir, id);
  const file = await saveArchiveUpload(request, folder);
  try {
    const restore = await ArchiveRestore.open(deps, file);
    const total = restore.total;
    restore.close();
    return jobs.enqueue(ARCHIVE_RESTORE_KIND, {} satisfies ArchiveRestoreParams, { id, total });
  } catch (error) {
    fs.rmSync(folder, { recursive: true, force: true });
    if (error instanceof ArchiveRejected) throw new BadRequest('The archive cannot be restored', { file: error.message });
    throw error;
  }
}
