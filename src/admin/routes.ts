import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createBackup, SERVER_PAGES_PER_STEP } from '../backup/snapshot.js';
import { errorResponses } from '../schemas/common.js';
import { BackupResponse } from '../schemas/admin.js';

/** docs/decisions.md, "Running the service › Backups": an online, self-consistent snapshot of the data folder. */
export const adminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/admin/backup',
    {
      schema: {
        tags: ['admin'],
        summary: 'Write a consistent snapshot of the data folder into DATA_DIR/backups/<UTC timestamp>/',
        response: { 200: BackupResponse, ...errorResponses(401) },
      },
    },
    async (request) => {
      const result = await createBackup(app.db.$client, app.config.dataDir, { pagesPerStep: SERVER_PAGES_PER_STEP });
      if (result.missingImages.length > 0) {
        request.log.warn({ missingImages: result.missingImages }, 'backup: referenced images were missing; their references were cleared in the copy');
      }
      request.log.info({ path: result.path, sizeBytes: result.sizeBytes }, 'backup written');
      return { message: 'Backup created', path: result.path, sizeBytes: result.sizeBytes };
    },
  );
};
