import fs from 'node:fs/promises';
import path from 'node:path';
import fp from 'fastify-plugin';
import { unfinishedJobIds } from '../jobs/repository.js';
import { ARCHIVE_RESTORE_KIND, archiveRestoreHandler } from './job.js';
import { IMPORTS_DIR } from './upload.js';

/**
 * Registers the `archive-restore` job kind (docs/decisions.md, "Library archive") and, before the
 * first request, removes the archives under `DATA_DIR/imports/` that no unfinished job owns (what
 * a crash between saving an upload and queueing its job, or a pruned job, leaves).
 */
export const archivePlugin = fp(
  async (app) => {
    app.jobs.register(ARCHIVE_RESTORE_KIND, archiveRestoreHandler({ db: app.db, images: app.images }, app.config.dataDir));
    app.addHook('onReady', async () => {
      const root = path.join(app.config.dataDir, IMPORTS_DIR);
      const owned = new Set(unfinishedJobIds(app.db).map((id) => `${id}.zip`));
      const files = await fs.readdir(root).catch(() => [] as string[]);
      await Promise.all(files.filter((name) => !owned.has(name)).map((name) => fs.rm(path.join(root, name), { force: true })));
    });
  },
  { name: 'storyshelf-archive', fastify: '5.x', dependencies: ['storyshelf-jobs', 'storyshelf-images'] },
);
