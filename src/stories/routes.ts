import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Placeholder until the stories routes are written. */
export const storyRoutes: FastifyPluginAsyncTypebox = async () => {};
