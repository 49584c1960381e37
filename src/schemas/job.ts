/**
 * The background job contracts (docs/api.md, "Jobs"; docs/decisions.md, "Jobs"): one job's
 * progress, the recent-jobs list, and the answer of an endpoint that starts one.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid } from './common.js';
import { RefreshJobResult } from './source.js';

/** The first errors a job keeps (docs/decisions.md, "Jobs"); `failed` still counts every one. */
export const JOB_ERRORS_MAX = 100;

export const JOB_STATUSES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const JobError = Type.Object({
  file: Type.String({ description: 'The file (or `archive.zip/entry`) the error is about; empty for the job as a whole' }),
  error: Type.String(),
});
export type JobError = Static<typeof JobError>;

export const JobDto = Type.Object({
  id: Uuid,
  kind: Type.String({ description: 'What the job does, e.g. `import-files`' }),
  status: Type.Union(JOB_STATUSES.map((status) => Type.Literal(status))),
  total: Type.Integer({ description: 'Items to process; may grow while archives are opened' }),
  done: Type.Integer({ description: 'Items processed successfully' }),
  failed: Type.Integer({ description: 'Items that failed (each one counted, the first 100 listed in errors)' }),
  errors: Type.Array(JobError, {
    maxItems: JOB_ERRORS_MAX,
    description: 'The first failures, and remarks ("imported, but …") on items that succeeded with a loss',
  }),
  result: Type.Optional(
    Type.Composite([RefreshJobResult], { description: 'What the job came to, for the kinds that say: a `refresh-fanficfare` job, what the refresh changed' }),
  ),
  createdAt: DateTime,
  startedAt: Nullable(DateTime),
  finishedAt: Nullable(DateTime),
});
export type JobDto = Static<typeof JobDto>;
/** What a finished job came to (only a FanFicFare refresh says, for now). */
export type JobResult = RefreshJobResult;

/** The most jobs one `GET /api/jobs` returns. */
export const JOB_LIST_MAX = 100;

export const JobListQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: JOB_LIST_MAX, default: 20 }),
});
export type JobListQuery = Static<typeof JobListQuery>;

export const JobList = Type.Object({
  jobs: Type.Array(JobDto, { maxItems: JOB_LIST_MAX, description: 'Newest first' }),
});
export type JobList = Static<typeof JobList>;

export const JobStarted = Type.Object({ jobId: Uuid });
export type JobStarted = Static<typeof JobStarted>;
