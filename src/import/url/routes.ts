import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sendJson } from '../../lib/json-bytes.js';
import { errorResponses } from '../../schemas/common.js';
import { StoryDto } from '../../schemas/story.js';
import { UrlImportBody, UrlImportQuery } from '../../schemas/url-import.js';
import { getStory } from '../../stories/service.js';
import { importFromUrl } from './service.js';

/** docs/api.md, "Importing from a URL". */
export const urlImportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/import/url',
    {
      schema: {
        tags: ['import'],
        summary: 'Import a story from a web page: 201 with the new story, or 200 with the updated one when ?update=true and it was imported before',
        querystring: UrlImportQuery,
        body: UrlImportBody,
        response: { 200: StoryDto, 201: StoryDto, ...errorResponses(400, 401, 403, 409, 415, 422, 502, 503, 504) },
      },
    },
    async (request, reply) => {
      const { storyId, created } = await importFromUrl(app.urlImports, request.body.url, request.query.update === true);
      return sendJson(reply, getStory(app.db, storyId), created ? 201 : 200);
    },
  );
};
