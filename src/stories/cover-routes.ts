import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdParams, MessageBody } from '../schemas/common.js';
import { CoverResponse } from '../schemas/story.js';
import * as covers from './covers.js';

const STORIES = ['stories'];

/** Covers (docs/api.md, "Stories — /api/stories"; docs/decisions.md, "Images"). The only story routes that read multipart. */
export const storyCoverRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/stories/:id/cover',
    {
      config: { acceptsMultipart: true },
      schema: {
        tags: STORIES,
        summary: 'Upload a story cover (multipart part "file"; JPEG, PNG or WebP, at most 5 MiB); replaces the old one',
        consumes: ['multipart/form-data'],
        params: IdParams,
        response: { 200: CoverResponse, ...errorResponses(400, 401, 404, 413, 415) },
      },
    },
    async (request) => covers.uploadCover(app.db, app.images, request, request.params.id),
  );

  app.delete(
    '/stories/:id/cover',
    {
      schema: {
        tags: STORIES,
        summary: 'Remove a story cover (no cover: 200, nothing changes)',
        params: IdParams,
        response: { 200: MessageBody, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => covers.removeCover(app.db, app.images, request.params.id),
  );
};
