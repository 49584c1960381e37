import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { databaseAnswers } from './db/open.js';
import { markRequiresToken } from './plugins/api-docs.js';
import { adminRoutes } from './admin/routes.js';
import { archiveRoutes } from './archive/routes.js';
import { authRoutes, passwordRoutes } from './auth/routes.js';
import { authorRoutes } from './authors/routes.js';
import { bulkRoutes } from './bulk/routes.js';
import { epubRoutes } from './epub/routes.js';
import { fileRoutes } from './files/routes.js';
import { followRoutes } from './follow/routes.js';
import { importRoutes } from './import/routes.js';
import { jobRoutes } from './jobs/routes.js';
import { urlImportRoutes } from './import/url/routes.js';
import { sanitizationRoutes } from './sanitization/routes.js';
import { searchRoutes } from './search/routes.js';
import { fanficfareRoutes } from './sources/fanficfare/routes.js';
import { seriesRoutes } from './series/routes.js';
import { shelfRoutes } from './shelves/routes.js';
import { sendRoutes } from './send/routes.js';
import { storyRoutes } from './stories/routes.js';
import { tagRoutes } from './tags/routes.js';
import { tokenRoutes } from './tokens/routes.js';

/**
 * Everything under `/api`. Login and logout are public; every other route sits in a scope whose
 * onRequest hook demands a valid token, so a new route is protected unless it is put here on
 * purpose. A device token may read (GET) and nothing more unless its scopes say so
 * (src/auth/principal.ts). (Unknown routes fall through to the 404 handler, token or not.)
 */
export const apiRoutes: FastifyPluginAsync = async (app) => {
  await app.register(authRoutes);
  await app.register(async (protectedScope) => {
    protectedScope.addHook('onRequest', protectedScope.authenticate);
    protectedScope.addHook('onRoute', markRequiresToken);
    await protectedScope.register(passwordRoutes);
    await protectedScope.register(storyRoutes);
    await protectedScope.register(bulkRoutes);
    await protectedScope.register(authorRoutes);
    await protectedScope.register(tagRoutes);
    await protectedScope.register(seriesRoutes);
    await protectedScope.register(shelfRoutes);
    await protectedScope.register(searchRoutes);
    await protectedScope.register(fileRoutes);
    await protectedScope.register(urlImportRoutes);
    await protectedScope.register(followRoutes);
    await protectedScope.register(fanficfareRoutes);
    await protectedScope.register(epubRoutes);
    await protectedScope.register(sendRoutes);
    await protectedScope.register(sanitizationRoutes);
    await protectedScope.register(adminRoutes);
    await protectedScope.register(archiveRoutes);
    await protectedScope.register(jobRoutes);
    await protectedScope.register(importRoutes);
    await protectedScope.register(tokenRoutes);
  });
};

/** `GET /healthz`: unauthenticated liveness for monitors; 200 while the database answers. */
export const healthRoutes: FastifyPluginAsync = async (app) => {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['health'],
        summary: 'Liveness check (no login needed)',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }), 503: Type.Object({ status: Type.Literal('unavailable') }) },
      },
    },
    async (_request, reply) => {
      if (databaseAnswers(app.db)) return { status: 'ok' as const };
      return reply.code(503).send({ status: 'unavailable' as const });
    },
  );
};
