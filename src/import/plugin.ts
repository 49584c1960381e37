import fs from 'node:fs/promises';
import path from 'node:path';
import fp from 'fastify-plugin';
import { unfinishedJobIds } from '../jobs/repository.js';
import { IMPORT_FILES_KIND, uploadImportHandler } from './job.js';

/**
 * Registers the `import-files` job kind (docs/decisions.md, "File import") and, before the first
 * request, removes the upload folders under `DATA_DIR/jobs/` that no unfinished job owns (what
 * a crash between receiving and queueing, or a pruned job, leaves).
 */
export const importPlugin = fp(
  async (app) => {
    app.jobs.register(IMPORT_FILES_KIND, uploadImportHandler(app.config.dataDir));
    app.addHook('onReady', async () => {
      const root = path.join(app.config.dataDir, 'jobs');
      const owned = new Set(unfinishedJobIds(app.db));
      const folders = await fs.readdir(root).catch(() => [] as string[]);
      await Promise.all(folders.filter((name) => !owned.has(name)).map((name) => fs.rm(path.join(root, name), { recursive: true, force: true })));
    });
  },
  { name: 'storyshelf-import', fastify: '5.x', dependencies: ['storyshelf-jobs'] },
);
