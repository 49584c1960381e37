import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { opdsFeedRoutes } from './routes.js';
import { OPDS_ROOT } from './links.js';

/**
 * The challenge of every 401 under `/opds`: e-readers ask for credentials only when told to by
 * `WWW-Authenticate`, and they speak Basic (docs/decisions.md, "OPDS catalog").
 */
export const OPDS_CHALLENGE = 'Basic realm="Storyshelf OPDS", charset="UTF-8"';

/**
 * The OPDS 1.2 catalog (docs/api.md, "OPDS catalog"): the same feeds at `/opds` for the login cookie, a
 * Bearer token or Basic with a device token as the password, and at `/opds/k/<token>` for the
 * readers that drop Basic on downloads and images. Errors are the API's JSON; a 401 carries the
 * Basic challenge. The routes stay out of the OpenAPI document, which describes the JSON API.
 */
export const opdsPlugin: FastifyPluginAsync = async (app) => {
  await app.register(
    async (catalog) => {
      catalog.addHook('onRoute', (route) => {
        route.schema = { ...route.schema, hide: true };
      });
      catalog.addHook('onSend', async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        if (reply.statusCode === 401) reply.header('WWW-Authenticate', OPDS_CHALLENGE);
        return payload;
      });
      // Never echoes the path: in the path form it holds the token.
      catalog.setNotFoundHandler(async (_request, reply) => reply.code(404).send({ error: 'There is no OPDS feed at this address' }));

      await catalog.register(async (headerForm) => {
        headerForm.addHook('onRequest', headerForm.authenticate);
        await headerForm.register(opdsFeedRoutes);
      });
      await catalog.register(
        async (pathForm) => {
          pathForm.addHook('onRequest', async (request) => {
            pathForm.authenticateDevice(request, (request.params as { token: string }).token);
          });
          await pathForm.register(opdsFeedRoutes);
        },
        { prefix: '/k/:token' },
      );
    },
    { prefix: OPDS_ROOT },
  );
};
