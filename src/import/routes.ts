import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../schemas/common.js';
import { JobStarted } from '../schemas/job.js';
import { startUploadImport } from './service.js';

/** docs/api.md, "Importing files". */
export const importRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/import/files',
    {
      config: { acceptsMultipart: true },
      schema: {
        tags: ['import'],
        summary: 'Import stories from files (multipart parts "file": .html, .htm, .txt, .md, .epub, or .zip of those); answers with the job',
        consumes: ['multipart/form-data'],
        response: { 202: JobStarted, ...errorResponses(400, 401, 413, 415, 429) },
      },
    },
    async (request, reply) => reply.code(202).send({ jobId: await startUploadImport(app.jobs, app.config.dataDir, request) }),
  );
};
