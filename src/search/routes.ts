import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Placeholder until the search routes are written. */
export const searchRoutes: FastifyPluginAsyncTypebox = async () => {};
