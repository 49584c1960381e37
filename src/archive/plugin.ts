import fp from 'fastify-plugin';
import type { Semaphore } from '../lib/semaphore.js';
import { ARCHIVE_RESTORE_KIND, archiveRestoreHandler } from './job.js';
import { exportSlots } from './service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** This app's library export slots (src/archive/service.ts, `exportSlots`): one export at a time. */
    libraryExports: Semaphore;
  }
}

/**
 * Holds the app's export slots and registers the `archive-restore` job kind (docs/decisions.md,
 * "Library archive"). Its uploads live in job folders, swept at start-up with every other kind's
 * (src/jobs/folders.ts).
 */
export const archivePlugin = fp(
  async (app) => {
    app.decorate('libraryExports', exportSlots());
    app.jobs.register(ARCHIVE_RESTORE_KIND, archiveRestoreHandler({ db: app.db, images: app.images }, app.config.dataDir));
  },
  { name: 'storyshelf-archive', fastify: '5.x', dependencies: ['storyshelf-jobs', 'storyshelf-images'] },
);
