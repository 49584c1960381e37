/**
 * Scheduled checks of followed stories (docs/decisions.md, "Sources"): once a minute the app
 * takes the followed sources that are due from the `next_check_at` index (a range walk of at most
 * {@link CHECK_BATCH} rows, whatever the size of the library), moves their next check one interval
 * on, and queues one `source-check` job for them; the job refreshes each in turn through the site
 * queue. No job is queued while one is still waiting or running. Complete works have no next
 * check; a failure pushes the next one back.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../db/open.js';
import { writeTransaction } from '../db/transaction.js';
import type { JobHandler, JobRunner } from '../jobs/runner.js';
import { jobFolder } from '../jobs/folders.js';
import { dueSources, postponeChecks } from '../import/url/source-rows.js';
import { checkSource, failureText, type FollowDeps } from './service.js';

export const SOURCE_CHECK_KIND = 'source-check';
/** How often the schedule looks for due sources. */
export const TICK_MS = 60_000;
/** Sources one tick hands to a job: 20 a minute is 28,800 checks a day. */
export const CHECK_BATCH = 20;
const HOUR_MS = 60 * 60 * 1000;

export interface SourceCheckParams {
  storyIds: string[];
}

interface SourceCheckState {
  next: number;
}

/**
 * The `source-check` job: each story refreshed in turn, a FanFicFare source by FanFicFare in a
 * folder of the job's; a failing source never stops the others.
 */
export function sourceCheckHandler(deps: FollowDeps, dataDir: string): JobHandler<SourceCheckParams, SourceCheckState> {
  return {
    async run(context) {
      const ids = context.params.storyIds;
      for (let next = context.state?.next ?? 0; next < ids.length; next += 1) {
        if (context.signal.aborted) return;
        const storyId = ids[next] as string;
        try {
          await checkSource(deps, storyId, path.join(jobFolder(dataDir, context.id), String(next)), context.signal);
          context.commit({ state: { next: next + 1 }, done: 1, total: ids.length });
        } catch (error) {
          context.commit({ state: { next: next + 1 }, total: ids.length, errors: [{ file: storyId, error: failureText(error) }] });
        }
      }
    },
    async finished(job) {
      await fs.rm(jobFolder(dataDir, job.id), { recursive: true, force: true });
    },
  };
}

/** The app's schedule (src/follow/plugin.ts starts and stops it). */
export class SourceScheduler {
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly jobs: Pick<JobRunner, 'enqueue' | 'last'>,
    private readonly intervalHours: number,
  ) {}

  /** Starts ticking (nothing when the schedule is off). */
  start(): void {
    if (this.intervalHours === 0 || this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.tick(), TICK_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /**
   * One look at the due sources: queues a job for at most {@link CHECK_BATCH} of them and returns
   * its id, or undefined (schedule off, nothing due, or a check job still waiting or running).
   */
  tick(now = Date.now()): string | undefined {
    if (this.intervalHours === 0) return undefined;
    const last = this.jobs.last(SOURCE_CHECK_KIND);
    if (last !== undefined && (last.status === 'queued' || last.status === 'running')) return undefined;
    const at = new Date(now).toISOString();
    const due = dueSources(this.db, at, CHECK_BATCH);
    if (due.length === 0) return undefined;
    const next = new Date(now + this.intervalHours * HOUR_MS).toISOString();
    // Claimed before the job runs, so a crash or a slow job never makes the next tick take them again.
    writeTransaction(this.db, (tx) => postponeChecks(tx, due.map((source) => source.storyId), next));
    try {
      return this.jobs.enqueue(SOURCE_CHECK_KIND, { storyIds: due.map((source) => source.storyId) } satisfies SourceCheckParams, { total: due.length });
    } catch {
      // The job queue is full (429): these sources wait for their next turn.
      return undefined;
    }
  }
}
