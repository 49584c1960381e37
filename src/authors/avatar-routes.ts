import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AvatarResponse } from '../schemas/author.js';
import { errorResponses, IdParams, MessageBody } from '../schemas/common.js';
import * as avatars from './avatars.js';

const AUTHORS = ['authors'];

/** Avatars (docs/api.md, "Authors — /api/authors"; docs/decisions.md, "Images"). */
export const authorAvatarRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/authors/:id/avatar',
    {
      config: { acceptsMultipart: true },
      schema: {
        tags: AUTHORS,
        summary: 'Upload an author avatar (multipart part "file"; JPEG, PNG or WebP, at most 5 MiB); replaces the old one',
        consumes: ['multipart/form-data'],
        params: IdParams,
        response: { 200: AvatarResponse, ...errorResponses(400, 401, 404, 413, 415) },
      },
    },
    async (request) => avatars.uploadAvatar(app.db, app.images, request, request.params.id),
  );

  app.delete(
    '/authors/:id/avatar',
    {
      schema: {
        tags: AUTHORS,
        summary: 'Remove an author avatar (no avatar: 200, nothing changes)',
        params: IdParams,
        response: { 200: MessageBody, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => avatars.removeAvatar(app.db, app.images, request.params.id),
  );
};
