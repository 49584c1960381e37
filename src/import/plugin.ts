import fp from 'fastify-plugin';
import { IMPORT_FILES_KIND, uploadImportHandler } from './job.js';

/** Registers the `import-files` job kind (docs/decisions.md, "File import") with the app's runner. */
export const importPlugin = fp(
  async (app) => {
    app.jobs.register(IMPORT_FILES_KIND, uploadImportHandler(app.config.dataDir, app.images));
  },
  { name: 'storyshelf-import', fastify: '5.x', dependencies: ['storyshelf-jobs', 'storyshelf-images'] },
);
