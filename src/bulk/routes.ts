import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { BulkEditBody, BulkEditResult } from '../schemas/bulk.js';
import { errorResponses } from '../schemas/common.js';
import { bulkBodyIssues, bulkEdit } from './service.js';

/**
 * `POST /api/stories/bulk` (docs/api.md, "Bulk edit — /api/stories/bulk"): a literal segment, so it
 * wins over `/stories/:id`; its own folder, as it works on stories, tags and shelves together.
 */
export const bulkRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/stories/bulk',
    {
      config: { bodyRules: (body: Partial<BulkEditBody>) => bulkBodyIssues(app.db, body) },
      schema: {
        tags: ['stories'],
        summary: 'Change or delete up to 500 stories at once: tags and shelves added and removed, fields set; all or nothing',
        body: BulkEditBody,
        response: { 200: BulkEditResult, ...errorResponses(400, 401, 415) },
      },
    },
    async (request) => bulkEdit(app.db, app.images, request.body),
  );
};
