import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sendJson } from '../lib/json-bytes.js';
import { errorResponses, IdParams } from '../schemas/common.js';
import { FavouriteBody, ReadingStatusBody } from '../schemas/reading-status.js';
import { StoryDto } from '../schemas/story.js';
import * as readingStatus from './reading-status.js';

const STORIES = ['stories'];

/**
 * The reader's status of a story and the favourite mark (docs/api.md, "Stories — /api/stories";
 * rules in docs/decisions.md, "Reading status"). Both answer the story as `GET /api/stories/{id}`
 * does; neither changes its `updatedAt`.
 */
export const storyReadingStatusRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.put(
    '/stories/:id/reading-status',
    {
      schema: {
        tags: STORIES,
        summary: "Set the story's reading status (null clears it; finished stamps finishedAt and counts a read); updatedAt is not changed",
        params: IdParams,
        body: ReadingStatusBody,
        response: { 200: StoryDto, ...errorResponses(400, 401, 404, 415) },
      },
    },
    async (request, reply) => sendJson(reply, readingStatus.setReadingStatus(app.db, request.params.id, request.body.status)),
  );

  app.put(
    '/stories/:id/favourite',
    {
      schema: {
        tags: STORIES,
        summary: 'Mark the story a favourite or not; updatedAt is not changed',
        params: IdParams,
        body: FavouriteBody,
        response: { 200: StoryDto, ...errorResponses(400, 401, 404, 415) },
      },
    },
    async (request, reply) => sendJson(reply, readingStatus.setFavourite(app.db, request.params.id, request.body.favourite)),
  );
};
