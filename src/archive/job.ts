/**
 * The `archive-restore` job kind (docs/decisions.md, "Library archive"; docs/architecture.md,
 * "Background jobs"): restores the archive saved at `DATA_DIR/imports/<job id>.zip`, one step at
 * a time through the runner's `commit`, and removes the file when the job ends.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { JobHandler } from '../jobs/runner.js';
import { ArchiveRestore, initialRestoreState, type RestoreDeps, type RestoreState } from './restore.js';
import { IMPORTS_DIR } from './upload.js';

export const ARCHIVE_RESTORE_KIND = 'archive-restore';

export interface ArchiveRestoreParams {
  /** The archive's file name under `DATA_DIR/imports/` (never an absolute path: the data folder may move). */
  archive: string;
}

export function archivePath(dataDir: string, params: ArchiveRestoreParams): string {
  return path.join(dataDir, IMPORTS_DIR, path.basename(params.archive));
}

export function archiveRestoreHandler(deps: RestoreDeps, dataDir: string): JobHandler<ArchiveRestoreParams, RestoreState> {
  return {
    async run(context) {
      // Checked as a whole again: a resumed job reads the archive afresh.
      const restore = await ArchiveRestore.open(deps, archivePath(dataDir, context.params));
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
      await fs.rm(archivePath(dataDir, job.params), { force: true });
    },
  };
}
