import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { backUpNow } from '../backup/now.js';
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
      const result = await backUpNow(app.db, app.config.dataDir, request.log);
      return { message: 'Backup created', path: result.path, sizeBytes: result.sizeBytes };
    },
  );
};
