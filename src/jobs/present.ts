import type { JobDto, JobError, JobResult } from '../schemas/job.js';
import type { JobRow } from './repository.js';

/** A job row as `JobDto`: the counters and the kept errors, never its params or state (they may name server paths). */
export function presentJob(row: JobRow): JobDto {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    total: row.total,
    done: row.done,
    failed: row.failed,
    errors: JSON.parse(row.errors) as JobError[],
    ...(row.result === null ? {} : { result: JSON.parse(row.result) as JobResult }),
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}
