import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { answerFor } from '../errors.js';
import {
  KosyncAuthorized,
  KosyncDocumentParams,
  KosyncError,
  KosyncMessage,
  KosyncProgressBody,
  KosyncProgressDto,
  KosyncProgressQuery,
  KosyncRegisterBody,
  KosyncSaved,
} from '../schemas/kosync.js';
import { kosyncAuthenticator } from './credentials.js';
import * as kosync from './service.js';

const KOSYNC = ['kosync'];
const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [status, KosyncError]));

/**
 * KOReader's JSON client accepts exactly `application/json`: Fastify's default adds
 * `; charset=utf-8`, which makes KOReader drop the body (docs/decisions.md, "KOReader sync").
 */
const JSON_TYPE = 'application/json';

/**
 * Statuses KOReader's client does not know, answered as the one it does. Its api.json expects
 * 200 or 401 from the credential checks: any other status it shows as "Unknown server error"
 * and, for a push, queues for ever; a 401 shows `message` and drops the push
 * (docs/decisions.md, "KOReader sync").
 */
const AS_UNAUTHORIZED = new Set([403, 429]);

function sendError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const { status, body } = answerFor(error, request, reply);
  reply
    .code(AS_UNAUTHORIZED.has(status) ? 401 : status)
    .header('content-type', JSON_TYPE)
    .send(JSON.stringify({ ...body, message: body.error }));
}

/**
 * The KOReader sync server (docs/api.md, "KOReader sync"), mounted at `/kosync`: KOReader's
 * "Custom sync server" is `https://<host>/kosync`. Its own error shape (`message`, which KOReader
 * shows) and content type; device tokens only, with the `progress` scope.
 */
export const kosyncRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.setErrorHandler(sendError);
  app.setNotFoundHandler((request, reply) => {
    const route = (request.url.split('?')[0] ?? '').slice(0, 200);
    reply.code(404).header('content-type', JSON_TYPE).send(JSON.stringify({ error: `Route ${request.method} ${route} not found`, message: 'Not found' }));
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('content-type', JSON_TYPE);
    return payload;
  });
  const authenticate = kosyncAuthenticator(app);
  const config = { scope: 'progress' as const, requiresToken: true };

  app.post(
    '/users/create',
    {
      schema: {
        tags: KOSYNC,
        summary: 'KOReader registration: always 402, since devices sign in with a device token made in Storyshelf',
        body: KosyncRegisterBody,
        response: { 402: KosyncMessage, ...errors(400, 415) },
      },
    },
    async (_request, reply) =>
      reply.code(402).send({
        message: 'Registration is not needed: create a device token in Storyshelf (Settings) and enter it as the password (any user name), or as the user name.',
      }),
  );

  app.get(
    '/users/auth',
    { onRequest: authenticate, config, schema: { tags: KOSYNC, summary: 'Checks the x-auth-user / x-auth-key credentials', response: { 200: KosyncAuthorized, ...errors(401) } } },
    async () => ({ authorized: 'OK' as const }),
  );

  app.put(
    '/syncs/progress',
    {
      onRequest: authenticate,
      config,
      schema: { tags: KOSYNC, summary: "Saves KOReader's position in a document", body: KosyncProgressBody, response: { 200: KosyncSaved, ...errors(400, 401, 415) } },
    },
    async (request) => kosync.saveKoreaderProgress(app.db, request.body, Date.now()),
  );

  app.get(
    '/syncs/progress/:document',
    {
      onRequest: authenticate,
      config,
      schema: {
        tags: KOSYNC,
        summary: 'The latest position in a document, from KOReader or from Storyshelf; {} when there is none',
        params: KosyncDocumentParams,
        querystring: KosyncProgressQuery,
        response: { 200: KosyncProgressDto, ...errors(400, 401) },
      },
    },
    async (request) => kosync.koreaderProgress(app.db, request.params.document),
  );
};
