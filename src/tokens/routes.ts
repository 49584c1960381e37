import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdParams, MessageBody } from '../schemas/common.js';
import { CreatedTokenDto, CreateTokenBody, TokenList } from '../schemas/tokens.js';
import { tokenBodyIssues } from './service.js';

const TOKENS = ['tokens'];

/**
 * Device tokens (docs/api.md, "Device tokens"): made, listed and revoked by a logged-in person
 * only. A device token cannot manage tokens, so a stolen e-reader cannot mint itself a `write`
 * token (scope `session`).
 */
export const tokenRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/tokens',
    {
      config: { scope: 'session', bodyRules: tokenBodyIssues },
      schema: {
        tags: TOKENS,
        summary: 'Make a device token (the secret is answered this once)',
        body: CreateTokenBody,
        response: { 201: CreatedTokenDto, ...errorResponses(400, 401, 403, 409, 415) },
      },
    },
    async (request, reply) => reply.code(201).send(app.deviceTokens.create(request.body.name, request.body.scopes)),
  );

  app.get(
    '/tokens',
    {
      config: { scope: 'session' },
      schema: {
        tags: TOKENS,
        summary: 'The device tokens, newest first, without their secrets',
        response: { 200: TokenList, ...errorResponses(401, 403) },
      },
    },
    async () => app.deviceTokens.list(),
  );

  app.delete(
    '/tokens/:id',
    {
      config: { scope: 'session' },
      schema: {
        tags: TOKENS,
        summary: 'Revoke a device token: its next request is refused',
        params: IdParams,
        response: { 200: MessageBody, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      app.deviceTokens.revoke(request.params.id);
      return { message: 'Device token revoked' };
    },
  );
};
