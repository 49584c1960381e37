import fp from 'fastify-plugin';
import { ARCHIVE_RESTORE_KIND, archiveRestoreHandler } from './job.js';

/**
 * Registers the `archive-restore` job kind (docs/decisions.md, "Library archive"). Its uploads
 * live in job folders, swept at start-up with every other kind's (src/jobs/folders.ts).
 */
export const archivePlugin = fp(
  async (app) => {
    app.jobs.register(ARCHIVE_RESTORE_KIND, archiveRestoreHandler({ db: app.db, images: app.images }, app.config.dataDir));
  },
  { name: 'storyshelf-archive', fastify: '5.x', dependencies: ['storyshelf-jobs', 'storyshelf-images'] },
);
