import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Placeholder until the series routes are written. */
export const seriesRoutes: FastifyPluginAsyncTypebox = async () => {};
