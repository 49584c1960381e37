import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sendJson } from '../lib/json-bytes.js';
import { errorResponses, IdParams, MessageBody } from '../schemas/common.js';
import { StoryCreateBody, StoryDto, StoryRatingBody, StoryTagParams, StoryUpdateBody } from '../schemas/story.js';
import { chapterRoutes } from './chapter-routes.js';
import { storyCoverRoutes } from './cover-routes.js';
import { storyListRoutes } from './list-routes.js';
import { storyProgressRoutes } from './progress-routes.js';
import { storyReadingStatusRoutes } from './reading-status-routes.js';
import { storyBodyIssues } from './input.js';
import * as stories from './service.js';

const STORIES = ['stories'];

/**
 * docs/api.md, "Stories — /api/stories", except search (its own owner): one story, its writes, its
 * rating and its tag links here; the lists in `list-routes.ts`, the cover in `cover-routes.ts`,
 * reading progress and continue-reading in `progress-routes.ts`, reading status and favourite in
 * `reading-status-routes.ts`, chapters in `chapter-routes.ts`. Literal segments (`recent`,
 * `top-rated`, `continue-reading`, `author`, `series`, `tags`, `search`) win over `{id}` in
 * Fastify's router.
 */
export const storyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(storyListRoutes);
  await app.register(storyCoverRoutes);
  await app.register(storyProgressRoutes);
  await app.register(storyReadingStatusRoutes);
  await app.register(chapterRoutes);

  app.get(
    '/stories/:id',
    { schema: { tags: STORIES, summary: 'Get a story', params: IdParams, response: { 200: StoryDto, ...errorResponses(400, 401, 404) } } },
    async (request, reply) => sendJson(reply, stories.getStory(app.db, request.params.id)),
  );

  app.post(
    '/stories',
    {
      config: { bodyRules: (body: StoryUpdateBody) => storyBodyIssues(app.db, body) },
      schema: {
        tags: STORIES,
        summary: 'Create a story; authorName, seriesName and tagNames are found or created; coverPath attaches an uploaded cover',
        body: StoryCreateBody,
        response: { 201: StoryDto, ...errorResponses(400, 401, 413, 415) },
      },
    },
    async (request, reply) => sendJson(reply, await stories.createStory(app.db, app.images, request.body), 201),
  );

  app.put(
    '/stories/:id',
    {
      config: { bodyRules: (body: StoryUpdateBody) => storyBodyIssues(app.db, body) },
      schema: {
        tags: STORIES,
        summary: 'Update a story: absent fields are kept, null clears, tagNames replaces the tags, coverPath attaches an uploaded cover',
        params: IdParams,
        body: StoryUpdateBody,
        response: { 200: StoryDto, ...errorResponses(400, 401, 404, 413, 415) },
      },
    },
    async (request, reply) => sendJson(reply, await stories.updateStory(app.db, app.images, request.params.id, request.body)),
  );

  app.delete(
    '/stories/:id',
    {
      schema: {
        tags: STORIES,
        summary: 'Delete a story, its tag links and its cover file (unless another row names it)',
        params: IdParams,
        response: { 200: MessageBody, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      await stories.deleteStory(app.db, app.images, request.params.id);
      return { message: 'Story deleted successfully' };
    },
  );

  app.post(
    '/stories/:id/rating',
    {
      schema: {
        tags: STORIES,
        summary: 'Rate a story (1 to 5)',
        params: IdParams,
        body: StoryRatingBody,
        response: { 200: StoryDto, ...errorResponses(400, 401, 404, 415) },
      },
    },
    async (request, reply) => sendJson(reply, stories.rateStory(app.db, request.params.id, request.body.rating)),
  );

  app.post(
    '/stories/:id/tags/:tagId',
    {
      schema: {
        tags: STORIES,
        summary: 'Add an existing tag to a story (already linked: no change)',
        params: StoryTagParams,
        response: { 200: StoryDto, ...errorResponses(400, 401, 404, 415) },
      },
    },
    async (request, reply) => sendJson(reply, stories.setStoryTag(app.db, request.params.id, request.params.tagId, true)),
  );

  app.delete(
    '/stories/:id/tags/:tagId',
    {
      schema: {
        tags: STORIES,
        summary: 'Remove a tag from a story (not linked: no change)',
        params: StoryTagParams,
        response: { 200: StoryDto, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => sendJson(reply, stories.setStoryTag(app.db, request.params.id, request.params.tagId, false)),
  );
};
