import fp from 'fastify-plugin';
import { IMPORT_FILES_KIND, uploadImportHandler } from './job.js';
import { IMPORT_SERIES_KIND, seriesImportHandler } from './url/series-job.js';

/** Registers the `import-files` (docs/decisions.md, "File import") and `import-series` ("Sources") job kinds with the app's runner. */
export const importPlugin = fp(
  async (app) => {
    app.jobs.register(IMPORT_FILES_KIND, uploadImportHandler(app.config.dataDir, { db: app.db, images: app.images }));
    app.jobs.register(IMPORT_SERIES_KIND, seriesImportHandler(app.urlImports));
  },
  { name: 'storyshelf-import', fastify: '5.x', dependencies: ['storyshelf-jobs', 'storyshelf-images', 'storyshelf-url-import'] },
);
