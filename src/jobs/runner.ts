/**
 * The job runner (docs/decisions.md, "Jobs"; docs/architecture.md, "Background jobs"): one job at
 * a time, in the order they were queued, each run by the handler registered for its kind.
 *
 * A handler works in steps. Each step is committed with {@link JobContext.commit}: the step's own
 * writes (stories, say) and the job's progress and resume state in ONE transaction, which only
 * commits while the job is still `running`. So a job cancelled between two steps commits nothing
 * more, and a job interrupted by a restart resumes from the state of its last committed step,
 * without doing any committed step twice.
 */
import type { Db, Tx } from '../db/open.js';
import { writeTransaction } from '../db/transaction.js';
import { Conflict, TooManyRequests } from '../errors.js';
import { newId, nowIso } from '../lib/clock.js';
import { JOB_ERRORS_MAX, type JobError, type JobResult, type JobStatus } from '../schemas/job.js';
import * as repo from './repository.js';
import { jobNotFound } from './service.js';

/** Queued jobs at most (any kind); one more is 429 (docs/decisions.md, "Jobs"). */
export const QUEUED_JOBS_MAX = 20;
/** Finished jobs kept for `GET /api/jobs`; older ones are deleted as new ones finish. */
export const FINISHED_JOBS_KEPT = 200;

/** One step's outcome, as {@link JobContext.commit} records it. */
export interface JobStep<S> {
  /** Where to resume after this step; replaces the previous state. */
  state: S;
  /** Items this step finished successfully. */
  done?: number;
  /** Items this step gave up on, each with its reason (the first 100 of a job are kept). */
  errors?: readonly JobError[];
  /**
   * Remarks on items this step did finish (an imported file that lost something on the way):
   * listed with the errors, but not counted as failed.
   */
  notes?: readonly JobError[];
  /** A new total, when the handler has learnt how many items there are. */
  total?: number;
  /**
   * What the job came to (`GET /api/jobs/{id}` shows it as `result`). Read after the step's
   * `write` ran, so the write can fill it in with what only it knows.
   */
  result?: JobResult;
}

export interface JobContext<P, S> {
  readonly id: string;
  readonly params: P;
  /** The state of the last committed step; undefined when the job starts afresh. */
  readonly state: S | undefined;
  /** Aborted when the job is cancelled or the runner stops: stop between items. */
  readonly signal: AbortSignal;
  /**
   * Commits one step: `write` (if any) and the job's progress in one write transaction
   * (src/db/transaction.ts, so search documents follow). Throws {@link JobStopped}, committing
   * nothing, when the job was cancelled meanwhile or the runner is stopping. Remarks `write`
   * returns are listed with the step's notes.
   */
  commit(step: JobStep<S>, write?: (tx: Tx) => void | readonly JobError[]): void;
}

export interface FinishedJob<P> {
  id: string;
  params: P;
  status: JobStatus;
}

/** What a job kind does; registered with `app.jobs.register(kind, handler)`. */
export interface JobHandler<P, S> {
  /** Runs the job from `context.state` to its end; the job is `done` when it returns. A throw fails it. */
  run(context: JobContext<P, S>): Promise<void>;
  /** Called once the job is done, failed or cancelled (never when it will resume): remove its files here. */
  finished?(job: FinishedJob<P>): Promise<void>;
}

/** Thrown by `commit` once the job is cancelled or the runner stops. */
export class JobStopped extends Error {
  constructor() {
    super('The job was stopped');
    this.name = 'JobStopped';
  }
}

export interface RunnerLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

type AnyHandler = JobHandler<unknown, unknown>;

interface Current {
  id: string;
  controller: AbortController;
}

/** Runs the queued jobs of the registered kinds in this process, one at a time. */
export class JobRunner {
  private readonly handlers = new Map<string, AnyHandler>();
  private current: Current | undefined;
  private loop: Promise<void> | undefined;
  private started = false;
  /** A job was queued while the loop ran: it must look at the queue once more before it ends. */
  private kickedMeanwhile = false;
  private stopping = false;

  constructor(
    private readonly db: Db,
    private readonly log: RunnerLog,
  ) {}

  /** Adds a job kind. Register every kind before {@link start}. */
  register<P, S>(kind: string, handler: JobHandler<P, S>): void {
    if (this.handlers.has(kind)) throw new Error(`job kind ${kind} is registered twice`);
    this.handlers.set(kind, handler as AnyHandler);
  }

  /**
   * Queues a job of a registered kind and starts it when the runner is free. 429 when
   * {@link QUEUED_JOBS_MAX} jobs are already waiting. Returns the job's id.
   */
  enqueue(kind: string, params: unknown, options: { id?: string; total?: number } = {}): string {
    if (!this.handlers.has(kind)) throw new Error(`unknown job kind ${kind}`);
    this.checkQueueRoom();
    const id = options.id ?? newId();
    repo.insertJob(this.db, { id, kind, params: JSON.stringify(params), total: options.total ?? 0, createdAt: nowIso() });
    this.kick();
    return id;
  }

  /** The job of `kind` queued last, with its state (a kind's own page reads it), or undefined when there is none. */
  last(kind: string): repo.JobRow | undefined {
    return repo.lastJobOfKind(this.db, kind);
  }

  /** 429 when the queue is full: lets an endpoint refuse before it reads a large body. */
  checkQueueRoom(): void {
    if (repo.countQueued(this.db) >= QUEUED_JOBS_MAX) {
      throw new TooManyRequests(`${QUEUED_JOBS_MAX} jobs are already waiting; try again when one has finished`, 60);
    }
  }

  /**
   * Cancels a queued or running job: it becomes `cancelled` at once, and a running one stops
   * between two items. 404 when there is no such job, 409 when it has already finished.
   */
  async cancel(id: string): Promise<void> {
    const row = repo.findJob(this.db, id);
    if (row === undefined) throw jobNotFound(id);
    if (!repo.moveJob(this.db, id, ['queued', 'running'], 'cancelled', { finishedAt: nowIso() })) {
      throw new Conflict(`The job has already finished (${repo.findJob(this.db, id)?.status ?? row.status})`);
    }
    if (this.current?.id === id) {
      this.current.controller.abort(new JobStopped());
      return;
    }
    // Not running here: nothing else will call its handler's `finished`.
    await this.finish(row.kind, id, row.params, 'cancelled');
  }

  /** Puts interrupted jobs of the registered kinds back in the queue and starts working through it. */
  start(): void {
    if (this.started) return;
    this.started = true;
    const requeued = repo.requeueRunning(this.db, [...this.handlers.keys()]);
    if (requeued > 0) this.log.info({ requeued }, 'resuming interrupted jobs');
    this.kick();
  }

  /** Resolves once no job of a registered kind is queued or running (the import script waits on it). */
  async idle(): Promise<void> {
    while (this.loop !== undefined) await this.loop;
  }

  /**
   * Stops the runner: a running job stops between items and goes back to `queued` (to resume at
   * the next start); waits for it.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.current?.controller.abort(new JobStopped());
    await this.idle();
  }

  private kick(): void {
    if (!this.started || this.stopping) return;
    if (this.loop !== undefined) {
      // The loop may already have found the queue empty and be about to end: it looks again.
      this.kickedMeanwhile = true;
      return;
    }
    this.kickedMeanwhile = false;
    // After the current request has been answered: a job never runs inside the call that queued it.
    this.loop = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.drain())
      // The database failing under the runner (disk full, say) must not crash the process: the
      // jobs stay as they are recorded and run again at the next start or enqueue.
      .catch((error: unknown) => this.log.error({ err: error }, 'the job runner stopped on an error'))
      .finally(() => {
        this.loop = undefined;
        if (this.kickedMeanwhile) this.kick();
      });
  }

  private async drain(): Promise<void> {
    while (!this.stopping) {
      const row = repo.claimNext(this.db, [...this.handlers.keys()], nowIso());
      if (row === undefined) return;
      await this.runOne(row);
    }
  }

  private async runOne(row: repo.JobRow): Promise<void> {
    const handler = this.handlers.get(row.kind) as AnyHandler;
    const controller = new AbortController();
    this.current = { id: row.id, controller };
    let done = row.done;
    let failed = row.failed;
    const errors = JSON.parse(row.errors) as JobError[];
    let state: unknown = row.state === '{}' ? undefined : JSON.parse(row.state);
    const context: JobContext<unknown, unknown> = {
      id: row.id,
      params: JSON.parse(row.params),
      get state() {
        return state;
      },
      signal: controller.signal,
      commit: (step, write) => {
        if (controller.signal.aborted) throw new JobStopped();
        const stepErrors = step.errors ?? [];
        const listed = [...stepErrors, ...(step.notes ?? [])];
        const nextErrors = [...errors, ...listed.slice(0, Math.max(0, JOB_ERRORS_MAX - errors.length))];
        const progress = {
          done: done + (step.done ?? 0),
          failed: failed + stepErrors.length,
          errors: JSON.stringify(nextErrors),
          state: JSON.stringify(step.state),
          ...(step.total === undefined ? {} : { total: step.total }),
        };
        writeTransaction(this.db, (tx) => {
          // Progress first: a cancelled job rolls back before the step's own writes run.
          if (!repo.recordProgress(tx, row.id, progress)) throw new JobStopped();
          // Remarks only the write can make (what a re-import changed) are listed like the step's notes.
          const remarks = write?.(tx) ?? [];
          if (remarks.length > 0 || step.result !== undefined) {
            nextErrors.push(...remarks.slice(0, Math.max(0, JOB_ERRORS_MAX - nextErrors.length)));
            repo.recordProgress(tx, row.id, { ...progress, errors: JSON.stringify(nextErrors), ...(step.result === undefined ? {} : { result: JSON.stringify(step.result) }) });
          }
        });
        done = progress.done;
        failed = progress.failed;
        errors.splice(0, errors.length, ...nextErrors);
        state = step.state;
      },
    };
    this.log.info({ jobId: row.id, kind: row.kind }, 'job started');
    try {
      await handler.run(context);
      if (controller.signal.aborted) throw new JobStopped();
      // Clean up first: once `done` shows, the job's files are gone (a crash in between resumes with nothing left to do).
      await this.cleanUp(row.kind, row.id, row.params, 'done');
      repo.moveJob(this.db, row.id, ['running'], 'done', { finishedAt: nowIso() });
      this.prune();
    } catch (error) {
      await this.afterThrow(row, error, errors, failed);
    } finally {
      this.current = undefined;
    }
  }

  private async afterThrow(row: repo.JobRow, error: unknown, errors: JobError[], failed: number): Promise<void> {
    if (this.stopping && repo.moveJob(this.db, row.id, ['running'], 'queued')) {
      this.log.info({ jobId: row.id }, 'job paused until the next start');
      return;
    }
    if (repo.findJob(this.db, row.id)?.status === 'cancelled') {
      this.log.info({ jobId: row.id }, 'job cancelled');
      await this.finish(row.kind, row.id, row.params, 'cancelled');
      return;
    }
    this.log.error({ jobId: row.id, err: error }, 'job failed');
    const message = error instanceof Error ? error.message : String(error);
    const extra = {
      finishedAt: nowIso(),
      failed: failed + 1,
      errors: JSON.stringify([...errors, { file: '', error: message }].slice(0, JOB_ERRORS_MAX)),
    };
    await this.cleanUp(row.kind, row.id, row.params, 'failed');
    repo.moveJob(this.db, row.id, ['running'], 'failed', extra);
    this.prune();
  }

  /** The handler's clean-up, then the history bound (a cancelled job's end). */
  private async finish(kind: string, id: string, params: string, status: JobStatus): Promise<void> {
    await this.cleanUp(kind, id, params, status);
    this.prune();
  }

  /** The handler's `finished`; its failure is logged, never the runner's. */
  private async cleanUp(kind: string, id: string, params: string, status: JobStatus): Promise<void> {
    try {
      await this.handlers.get(kind)?.finished?.({ id, params: JSON.parse(params), status });
    } catch (error) {
      this.log.warn({ jobId: id, err: error }, 'job clean-up failed');
    }
  }

  private prune(): void {
    const pruned = repo.pruneFinished(this.db, FINISHED_JOBS_KEPT);
    if (pruned > 0) this.log.info({ pruned }, 'old jobs removed from the history');
  }
}
