import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sendJson } from '../../lib/json-bytes.js';
import { errorResponses } from '../../schemas/common.js';
import { JobStarted } from '../../schemas/job.js';
import { StoryDto } from '../../schemas/story.js';
import { UrlImportBody, UrlImportQuery } from '../../schemas/url-import.js';
import { getStory } from '../../stories/service.js';
import { IMPORT_SERIES_KIND } from './series-job.js';
import { importFromUrl } from './service.js';

/** docs/api.md, "Importing from a URL". */
export const urlImportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/import/url',
    {
      schema: {
        tags: ['import'],
        summary:
          'Import a story from a web page: 201 with the new story (an archive work whole, in chapters), 200 with the updated one when ?update=true and it was imported before; 202 with a job when a series is imported work by work, or when FanFicFare (FANFICFARE_COMMAND) downloads the address',
        querystring: UrlImportQuery,
        body: UrlImportBody,
        response: { 200: StoryDto, 201: StoryDto, 202: JobStarted, ...errorResponses(400, 401, 403, 409, 415, 422, 429, 502, 503, 504) },
      },
    },
    async (request, reply) => {
      const update = request.query.update === true;
      const jobId = await app.startFanficfareImport(request.body.url, update);
      if (jobId !== undefined) return reply.code(202).send({ jobId });
      const outcome = await importFromUrl(app.urlImports, request.body.url, update, (params) =>
        app.jobs.enqueue(IMPORT_SERIES_KIND, params, { total: params.works.length }),
      );
      if (outcome.kind === 'job') return reply.code(202).send({ jobId: outcome.jobId });
      return sendJson(reply, getStory(app.db, outcome.storyId), outcome.created ? 201 : 200);
    },
  );
};
