/** Reading jobs for the API and the pages (docs/api.md, "Jobs"); every change goes through the runner. */
import type { Db } from '../db/open.js';
import { NotFound } from '../errors.js';
import type { JobDto } from '../schemas/job.js';
import { presentJob } from './present.js';
import * as repo from './repository.js';

export function jobNotFound(id: string): NotFound {
  return new NotFound(`Job not found with id: ${id}`);
}

/** One job's progress; 404 when there is none (or it was pruned from the history). */
export function getJob(db: Db, id: string): JobDto {
  const row = repo.findJob(db, id);
  if (row === undefined) throw jobNotFound(id);
  return presentJob(row);
}

/** The newest `limit` jobs, newest first. */
export function listJobs(db: Db, limit: number): JobDto[] {
  return repo.listJobs(db, limit).map(presentJob);
}
