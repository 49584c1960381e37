import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../schemas/common.js';
import { SourcesConfigDto, UrlEngineDto, UrlEngineQuery } from '../../schemas/sources.js';
import { engineOf } from './service.js';

/** docs/api.md, "Configuration, administration, health" and "Importing from a URL". */
export const fanficfareRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/config/sources',
    {
      schema: {
        tags: ['config'],
        summary: 'The optional source engines: whether FanFicFare is set up, answers, and its version',
        response: { 200: SourcesConfigDto, ...errorResponses(401) },
      },
    },
    async () => ({ fanficfare: await app.fanficfare.status() }),
  );
  app.get(
    '/import/url/engine',
    {
      schema: {
        tags: ['import'],
        summary: 'Which engine a URL import of this address would use, and whether FanFicFare would handle it if it were set up',
        querystring: UrlEngineQuery,
        response: { 200: UrlEngineDto, ...errorResponses(400, 401) },
      },
    },
    async (request) => engineOf(app.fanficfare, request.query.url),
  );
};
