import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, MessageBody } from '../schemas/common.js';
import { ImageBytes, ImageGetQuery, ImagePathQuery, ImageTailParams, ImageTailQuery, NotModified, UploadResponse } from '../schemas/files.js';
import { sendImage } from './reply.js';
import * as files from './service.js';

const FILES = ['files'];

/** docs/api.md, "Images — /api/files"; docs/decisions.md, "Images". The store behind these routes owns every path. */
export const fileRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const [segment, kind] of [['cover', 'covers'], ['avatar', 'avatars']] as const) {
    app.post(
      `/files/upload/${segment}`,
      {
        config: { acceptsMultipart: true },
        schema: {
          tags: FILES,
          summary: `Upload an image into ${kind}/ (multipart part "file"; JPEG, PNG or WebP, at most 5 MiB)`,
          consumes: ['multipart/form-data'],
          response: { 200: UploadResponse, ...errorResponses(400, 401, 413, 415) },
        },
      },
      async (request) => files.uploadImage(request, app.images, kind),
    );
  }

  const imageResponses = { 200: ImageBytes, 304: NotModified, ...errorResponses(400, 401, 404) };

  app.get(
    '/files/images/*',
    {
      schema: {
        tags: FILES,
        summary: 'An image by its path after /images/ (or ?path=); with ?w= its WebP thumbnail',
        params: ImageTailParams,
        querystring: ImageTailQuery,
        response: imageResponses,
      },
    },
    async (request, reply) => sendImage(reply, app.images, request.params['*'] || request.query.path, request.query, request.headers),
  );

  app.get(
    '/files/images',
    {
      schema: { tags: FILES, summary: 'An image by ?path=; with ?w= its WebP thumbnail', querystring: ImageGetQuery, response: imageResponses },
    },
    async (request, reply) => sendImage(reply, app.images, request.query.path, request.query, request.headers),
  );

  app.delete(
    '/files/images',
    {
      schema: {
        tags: FILES,
        summary: 'Delete an image and clear every cover or avatar pointing at it',
        querystring: ImagePathQuery,
        response: { 200: MessageBody, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      await files.deleteImage(app.db, app.images, request.query.path);
      return { message: 'Image deleted successfully' };
    },
  );
};
