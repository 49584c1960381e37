import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Placeholder until the authors routes are written. */
export const authorRoutes: FastifyPluginAsyncTypebox = async () => {};
