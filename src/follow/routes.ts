import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdParams } from '../schemas/common.js';
import { JobStarted } from '../schemas/job.js';
import { RefreshResult, StoryUpdateList, StoryUpdatesQuery } from '../schemas/source.js';
import { getStoryDto } from '../stories/service.js';
import { refreshStory, storyUpdates } from './service.js';

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

  app.post(
    '/stories/:id/refresh',
    {
      schema: {
        tags: TAGS,
        summary:
          'Check the source now: new chapters appended, changed ones replaced (a new text that is empty or under a tenth of the old is refused and counted as kept), gone ones marked and kept; 200 with what changed and the story, or 202 with a job when FanFicFare downloads the source (its result holds the same counts)',
        params: IdParams,
        response: { 200: RefreshResult, 202: JobStarted, ...errorResponses(400, 401, 403, 404, 409, 415, 422, 429, 502, 503, 504) },
      },
    },
    async (request, reply) => {
      const outcome = await refreshStory({ urlImports: app.urlImports, fanficfare: app.fanficfareRefresh }, request.params.id);
      if ('jobId' in outcome) return reply.code(202).send({ jobId: outcome.jobId });
      return { ...outcome, story: getStoryDto(app.db, request.params.id) };
    },
  );
};
