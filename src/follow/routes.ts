import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdParams } from '../schemas/common.js';
import { StoryUpdateList, StoryUpdatesQuery } from '../schemas/source.js';
import { storyUpdates } from './service.js';

const TAGS = ['sources'];

/** docs/api.md, "Following a source": a story's update log, and checking its source now. */
export const followRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/stories/:id/updates',
    {
      schema: {
        tags: TAGS,
        summary: 'What each import and refresh from the source changed, newest first (limit 1 to 100, default 20); 404 for an unknown story',
        params: IdParams,
        querystring: StoryUpdatesQuery,
        response: { 200: StoryUpdateList, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => ({ updates: storyUpdates(app.db, request.params.id, request.query.limit ?? 20) }),
  );
};
