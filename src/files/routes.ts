import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Placeholder until the file routes are written. */
export const fileRoutes: FastifyPluginAsyncTypebox = async () => {};
