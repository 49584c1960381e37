import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdParams } from '../schemas/common.js';
import { SendBody, SendResponse } from '../schemas/send.js';
import { sendStory } from './service.js';

/**
 * `POST /api/stories/{id}/send` (docs/api.md, "Send to an e-reader"): mails the story's EPUB and
 * answers once the mail server has accepted it. A body is optional (`SEND_TO` is the default).
 */
export const sendRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/stories/:id/send',
    {
      // No body at all means "to the default recipient", like `{}`.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags: ['epub'],
        summary: 'Mail the story as an EPUB to an e-reader\'s address (SEND_TO when `to` is left out)',
        params: IdParams,
        body: SendBody,
        response: { 200: SendResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 502, 503, 504) },
      },
    },
    async (request) => sendStory(app.mailer, app.epub, request.params.id, request.body.to, request.log),
  );
};
