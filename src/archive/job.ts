/**
 * The `archive-restore` job kind (docs/decisions.md, "Library archive"; docs/architecture.md,
 * "Background jobs"): restores the archive saved in its job's folder
 * (`DATA_DIR/jobs/<job id>/archive.zip`), one step at a time through the runner's `commit`, and
 * removes the folder when the job ends.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { jobFolder, RESTORE_ARCHIVE_FILE } from '../jobs/folders.js';
import type { JobHandler } from '../jobs/runner.js';
import { ArchiveRestore, initialRestoreState, type RestoreDeps, type RestoreState } from './restore.js';

export const ARCHIVE_RESTORE_KIND = 'archive-restore';

/** Nothing: the archive is the job's folder's `archive.zip` (a job queued before job folders named it here; the start-up sweep moved it). */
export type ArchiveRestoreParams = Record<string, unknown>;

/** Where the job's archive waits. */
export function archivePath(dataDir: string, jobId: string): string {
  return path.join(jobFolder(dataDir, jobId), RESTORE_ARCHIVE_FILE);
}

export function archiveRestoreHandler(deps: RestoreDeps, dataDir: string): JobHandler<ArchiveRestoreParams, RestoreState> {
  return {
    async run(context) {
      // Checked as a whole again: a resumed job reads the archive afresh.
      const restore = await ArchiveRestore.open(deps, archivePath(dataDir, context.id));
      try {
        while (!context.signal.aborted) {
          const state = context.state ?? initialRestoreState();
          if (state.phase === 'done') return;
          await restore.step(state, (step, write) => context.commit(step, write));
        }
      } finally {
        restore.close();
      }
    },
    async finished(job) {
      await fs.rm(jobFolder(dataDir, job.id), { recursive: true, force: true });
    },
  };
}
