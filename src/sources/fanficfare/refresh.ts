/**
 * Refreshing a story that follows a FanFicFare source (docs/decisions.md, "Sources", "Updates"):
 * FanFicFare downloads the address it was given at the import again, as an EPUB, which is parsed
 * in the file import's parser thread and brought into the story by the file import's plan
 * (src/import/file-write.ts, `refreshImportedStory`): new chapters appended, changed ones
 * replaced, a new text that is empty or under a tenth of the old refused, chapters the download
 * no longer has marked gone and kept. A run can take minutes, so a refresh asked for is a
 * `refresh-fanficfare` job (202); the schedule's `source-check` job runs it in its own turn.
 */
import fs from 'node:fs/promises';
import type { Tx } from '../../db/open.js';
import { Conflict } from '../../errors.js';
import { refreshImportedStory, refreshOutcomeOf, type ImportWrite } from '../../import/file-write.js';
import { writeWithPictures, type ImportDeps } from '../../import/job.js';
import { recordFailedCheck, type RefreshOutcome } from '../../import/url/source-import.js';
import type { SourceRow } from '../../import/url/source-rows.js';
import { sourceOf } from '../../import/url/source-rows.js';
import { jobFolder } from '../../jobs/folders.js';
import { unfinishedJobsOfKind } from '../../jobs/repository.js';
import type { UpdateNotifier } from '../../import/url/update-notifier.js';
import type { JobHandler, JobRunner, JobStep } from '../../jobs/runner.js';
import type { RefreshJobResult } from '../../schemas/source.js';
import { storyNotFound } from '../../stories/service.js';
import type { FanficfareEngine } from './engine.js';
import { FanficfareFailed } from './engine.js';
import { downloadParsed } from './job.js';

export const REFRESH_FANFICFARE_KIND = 'refresh-fanficfare';

export interface FanficfareRefreshParams {
  storyId: string;
}

interface FanficfareRefreshState {
  done: boolean;
}

export interface FanficfareRefreshDeps extends ImportDeps {
  engine: FanficfareEngine;
  /** `SOURCE_CHECK_INTERVAL_HOURS`: when the source is checked next. */
  checkIntervalHours: number;
  /** Told of each refresh job's update once committed (the update webhook). */
  updates: UpdateNotifier;
  dataDir: string;
}

/** Runs the refresh's write transaction: the job's own step, or a transaction of its own. */
export type RefreshCommit = (write: (tx: Tx) => ImportWrite) => ImportWrite;

/** What refreshing one story needs: the story's source row, who asks, where FanFicFare writes, and how to stop it. */
export interface RefreshRun {
  source: SourceRow;
  origin: 'refresh' | 'schedule';
  /** An empty folder for this run (removed by the caller). */
  folder: string;
  signal: AbortSignal;
}

/**
 * Downloads the story's source with FanFicFare and writes what changed through `commit`. A
 * download or a book that cannot be read throws {@link FanficfareFailed}, writes nothing, and is
 * recorded on the source (its next scheduled check pushed back), unless the run was stopped.
 */
export async function refreshFromFanficfare(deps: FanficfareRefreshDeps, run: RefreshRun, commit: RefreshCommit): Promise<RefreshOutcome> {
  const { source } = run;
  let parsed;
  try {
    const result = await downloadParsed(deps.engine, source.url, run.folder, run.signal);
    if ('error' in result) throw new FanficfareFailed(`FanFicFare's EPUB could not be read: ${result.error}`);
    parsed = result.story;
  } catch (error) {
    if (!run.signal.aborted) recordFailedCheck(deps, source.storyId, source.failures, error instanceof Error ? error.message : String(error));
    throw error;
  }
  const refresh = { storyId: source.storyId, origin: run.origin, address: source.url, checkIntervalHours: deps.checkIntervalHours };
  const written = await writeWithPictures(deps, parsed, (story) => commit((tx) => refreshImportedStory(tx, story, refresh)));
  return refreshOutcomeOf(written);
}

/** The `refresh-fanficfare` job: one story, its result the refresh's counts; its folder goes when it ends. */
export function fanficfareRefreshHandler(deps: FanficfareRefreshDeps): JobHandler<FanficfareRefreshParams, FanficfareRefreshState> {
  return {
    async run(context) {
      if (context.state?.done === true) return;
      const { storyId } = context.params;
      const source = sourceOf(deps.db, storyId);
      if (source === undefined) throw storyNotFound(storyId);
      const folder = jobFolder(deps.dataDir, context.id);
      // A resumed job starts its download again from an empty folder.
      await fs.rm(folder, { recursive: true, force: true });
      const outcome = await refreshFromFanficfare(deps, { source, origin: 'refresh', folder, signal: context.signal }, (write) => {
        const step: JobStep<FanficfareRefreshState> = { state: { done: true }, done: 1 };
        let written: ImportWrite | undefined;
        context.commit(step, (tx) => {
          written = write(tx);
          step.result = { storyId, ...refreshOutcomeOf(written) } satisfies RefreshJobResult;
        });
        return written as ImportWrite;
      });
      deps.updates.updated(storyId, outcome);
    },
    async finished(job) {
      await fs.rm(jobFolder(deps.dataDir, job.id), { recursive: true, force: true });
    },
  };
}

/** 409 for a story that follows a FanFicFare source while FanFicFare is not set up. */
export function fanficfareOff(): Conflict {
  return new Conflict('This story follows a source FanFicFare downloads, and FanFicFare is not set up', { id: 'set FANFICFARE_COMMAND to refresh it' });
}

/**
 * Queues the refresh of `storyId` (which follows a FanFicFare source) and returns the job's id:
 * the job already queued or running for it, if there is one, so asking twice downloads once.
 * 409 when FanFicFare is off; 429 when the job queue is full.
 */
export function startFanficfareRefresh(deps: FanficfareRefreshDeps, jobs: JobRunner, storyId: string): string {
  if (!deps.engine.enabled) throw fanficfareOff();
  const pending = unfinishedJobsOfKind(deps.db, REFRESH_FANFICFARE_KIND).find((job) => (JSON.parse(job.params) as FanficfareRefreshParams).storyId === storyId);
  if (pending !== undefined) return pending.id;
  return jobs.enqueue(REFRESH_FANFICFARE_KIND, { storyId } satisfies FanficfareRefreshParams, { total: 1 });
}
