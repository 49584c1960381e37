import type { FastifyPluginAsync } from 'fastify';
import { HttpError } from '../../errors.js';
import { startUploadImport } from '../../import/service.js';
import { getJob, listJobs } from '../../jobs/service.js';
import { IdParams } from '../../schemas/common.js';
import { render, template } from '../render.js';
import { jobHref, jobLine, jobProgressView, type ImportPageView, type JobPageView, type JobProgressView } from './view.js';

const IMPORT_TEMPLATE = template<ImportPageView>('import/import');
const JOB_TEMPLATE = template<JobPageView>('import/job');
/** The fragment the job page polls: no layout, so not a `template<M>()` page. */
const PROGRESS_TEMPLATE = 'import/progress';
/** Recent jobs listed under the form. */
const RECENT_SHOWN = 10;

/**
 * `/import` (docs/decisions.md, "File import"): the upload form posts the files to the same
 * service as `POST /api/import/files` and goes to the job's page, which shows its progress and
 * polls it with htmx while it runs. A refused upload shows the form again with the reason.
 */
export const importPageRoutes: FastifyPluginAsync = async (app) => {
  const page = (reply: Parameters<typeof render>[0], error?: string, status?: number) =>
    render(reply, IMPORT_TEMPLATE, { title: 'Import stories from files', error, recent: listJobs(app.db, RECENT_SHOWN).map(jobLine) }, status);

  app.get('/import', async (_request, reply) => page(reply));

  app.post('/import', { config: { acceptsMultipart: true } }, async (request, reply) => {
    try {
      const id = await startUploadImport(app.jobs, app.config.dataDir, request);
      return reply.redirect(jobHref(id), 303);
    } catch (error) {
      if (!(error instanceof HttpError) || error.statusCode >= 500) throw error;
      return page(reply, error.message, error.statusCode);
    }
  });

  app.get<{ Params: IdParams }>('/jobs/:id', { schema: { params: IdParams } }, async (request, reply) =>
    render(reply, JOB_TEMPLATE, { title: 'Import progress', progress: jobProgressView(getJob(app.db, request.params.id)) }),
  );

  app.get<{ Params: IdParams }>('/jobs/:id/progress', { schema: { params: IdParams } }, async (request, reply) => {
    const data: JobProgressView = jobProgressView(getJob(app.db, request.params.id));
    const html = await reply.viewAsync(PROGRESS_TEMPLATE, data);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
  });

  app.post<{ Params: IdParams }>('/jobs/:id/cancel', { bodyLimit: 8 * 1024, schema: { params: IdParams } }, async (request, reply) => {
    const job = getJob(app.db, request.params.id);
    // Already finished (a second click, a stale page): nothing to cancel, show where it ended.
    if (job.status === 'queued' || job.status === 'running') await app.jobs.cancel(job.id);
    return reply.redirect(jobHref(job.id), 303);
  });
};
