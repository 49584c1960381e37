import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdParams, MessageBody } from '../schemas/common.js';
import { JobDto, JobList, JobListQuery } from '../schemas/job.js';
import { getJob, listJobs } from './service.js';

const JOBS = ['jobs'];

/** docs/api.md, "Jobs": a job's progress, the recent jobs, cancelling one. */
export const jobRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/jobs',
    {
      schema: {
        tags: JOBS,
        summary: 'The most recent jobs, newest first (limit 1 to 100, default 20)',
        querystring: JobListQuery,
        response: { 200: JobList, ...errorResponses(400, 401) },
      },
    },
    async (request) => ({ jobs: listJobs(app.db, request.query.limit) }),
  );

  app.get(
    '/jobs/:id',
    { schema: { tags: JOBS, summary: "A job's status and progress", params: IdParams, response: { 200: JobDto, ...errorResponses(400, 401, 404) } } },
    async (request) => getJob(app.db, request.params.id),
  );

  app.delete(
    '/jobs/:id',
    {
      schema: {
        tags: JOBS,
        summary: 'Cancel a queued or running job (a running one stops between two items); 409 once finished',
        params: IdParams,
        response: { 200: MessageBody, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      await app.jobs.cancel(request.params.id);
      return { message: 'Job cancelled' };
    },
  );
};
