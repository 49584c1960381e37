import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sendJson } from '../lib/json-bytes.js';
import { errorResponses, IdParams } from '../schemas/common.js';
import { ContinueReadingQuery, ReadingProgressBody, ReadingProgressDto } from '../schemas/reading-progress.js';
import { StoryList } from '../schemas/story.js';
import * as progress from './progress-service.js';

const STORIES = ['stories'];

/**
 * Reading progress and continue-reading (docs/api.md, "Stories — /api/stories"; rules in
 * docs/decisions.md, "Reading progress"). The literal `continue-reading` wins over `{id}` in
 * Fastify's router, as `recent` does.
 */
export const storyProgressRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/stories/:id/progress',
    {
      schema: {
        tags: STORIES,
        summary: 'Where the reader stopped in a story (progress 0 and position null when never saved)',
        params: IdParams,
        response: { 200: ReadingProgressDto, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => progress.getProgress(app.db, request.params.id),
  );

  app.put(
    '/stories/:id/progress',
    {
      // An e-reader's token saves positions without being allowed to edit the library.
      config: { scope: 'progress' },
      schema: {
        tags: STORIES,
        summary: "Save where the reader is in a story (last write wins); the story's updatedAt is not changed",
        params: IdParams,
        body: ReadingProgressBody,
        response: { 200: ReadingProgressDto, ...errorResponses(400, 401, 404, 415) },
      },
    },
    async (request) => progress.saveProgress(app.db, request.params.id, request.body),
  );

  app.get(
    '/stories/continue-reading',
    {
      schema: {
        tags: STORIES,
        summary: 'Stories started and not finished (progress above 0 and below 0.98), most recently read first',
        querystring: ContinueReadingQuery,
        response: { 200: StoryList, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => sendJson(reply, progress.continueReadingJson(app.db, request.query.limit)),
  );
};
