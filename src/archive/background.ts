/**
 * Runs archive restores off the request, one at a time, until the shared job runner takes them
 * over (docs/decisions.md, "Library archive"). Progress is kept in memory, answered by
 * `GET /api/import/archive/{jobId}`; a restart forgets it (the restore is idempotent: upload
 * the archive again to finish it).
 */
import fs from 'node:fs';
import { newId, nowIso } from '../lib/clock.js';
import { ArchiveRestore, initialRestoreState, type RestoreDeps, type RestoreState } from './restore.js';
import { NotFound, TooManyRequests } from '../errors.js';

export interface RestoreJob {
  id: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  state: RestoreState;
  /** Why the whole restore failed (`failed` only). */
  failure: string | null;
  createdAt: string;
  finishedAt: string | null;
}

/** Restores kept for status queries; the oldest finished ones are forgotten first. */
const JOBS_KEPT = 50;
/** Restores waiting at once; one more is 429. */
const QUEUED_MAX = 5;

export class BackgroundRestores {
  private readonly jobs = new Map<string, RestoreJob>();
  private queue: Promise<void> = Promise.resolve();
  private stopping = false;

  constructor(
    private readonly deps: RestoreDeps,
    private readonly log: { warn(details: object, message: string): void; info(details: object, message: string): void },
  ) {}

  /** Queues an opened restore of `file` (deleted when it ends); returns its job id. */
  start(restore: ArchiveRestore, file: string): string {
    const waiting = [...this.jobs.values()].filter((job) => job.status === 'queued' || job.status === 'running').length;
    if (waiting >= QUEUED_MAX) {
      restore.close();
      fs.rmSync(file, { force: true });
      throw new TooManyRequests(`${QUEUED_MAX} restores are already waiting; try again when one has finished`, 60);
    }
    const job: RestoreJob = { id: newId(), status: 'queued', state: { ...initialRestoreState(), total: restore.total }, failure: null, createdAt: nowIso(), finishedAt: null };
    this.jobs.set(job.id, job);
    this.prune();
    this.queue = this.queue.then(() => this.run(job, restore, file));
    return job.id;
  }

  get(id: string): RestoreJob {
    const job = this.jobs.get(id);
    if (job === undefined) throw new NotFound(`Restore job not found with id: ${id}`);
    return job;
  }

  /** Lets the running step finish and stops; what is left is not run. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.queue;
  }

  private async run(job: RestoreJob, restore: ArchiveRestore, file: string): Promise<void> {
    try {
      if (this.stopping) throw new Error('the service stopped before the restore began');
      job.status = 'running';
      // One step per turn of the event loop: requests are served between two batches.
      while (job.state.phase !== 'done') {
        if (this.stopping) throw new Error('the service stopped during the restore; upload the archive again to finish it');
        job.state = await restore.step(job.state);
        await new Promise((resolve) => setImmediate(resolve));
      }
      job.status = 'done';
      this.log.info({ jobId: job.id, done: job.state.done, failed: job.state.failed }, 'library archive restored');
    } catch (error) {
      job.status = 'failed';
      job.failure = error instanceof Error ? error.message : String(error);
      this.log.warn({ jobId: job.id, err: error }, 'library archive restore failed');
    } finally {
      job.finishedAt = nowIso();
      restore.close();
      fs.rmSync(file, { force: true });
    }
  }

  private prune(): void {
    const finished = [...this.jobs.values()].filter((job) => job.status === 'done' || job.status === 'failed');
    for (const job of finished.slice(0, Math.max(0, this.jobs.size - JOBS_KEPT))) this.jobs.delete(job.id);
  }
}
