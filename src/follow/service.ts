/**
 * Following a story at its source (docs/decisions.md, "Sources"): the update log, and checking
 * the source again now (a refresh) or on the schedule.
 */
import fs from 'node:fs/promises';
import type { Db } from '../db/open.js';
import { writeTransaction } from '../db/transaction.js';
import { HttpError } from '../errors.js';
import { sourceUnreadable } from '../import/url/errors.js';
import type { UrlImportDeps } from '../import/url/service.js';
import { recordFailedCheck, refreshFromWork, type RefreshOutcome } from '../import/url/source-import.js';
import { readAddress } from '../import/url/source.js';
import type { StoryUpdateDto } from '../schemas/source.js';
import { listUpdates, sourceOf, type SourceRow } from '../import/url/source-rows.js';
import { refreshFromFanficfare, type FanficfareRefreshDeps } from '../sources/fanficfare/refresh.js';
import { findStoryStamp } from '../stories/repository.js';
import { storyNotFound } from '../stories/service.js';
import { presentUpdate } from './present.js';

/** At most this many pictures of the chapters a refresh writes, as an import's. */
const MAX_IMAGES = 50;

/** A story's updates, newest first; 404 for an unknown story. */
export function storyUpdates(db: Db, storyId: string, limit: number): StoryUpdateDto[] {
  if (findStoryStamp(db, storyId) === undefined) throw storyNotFound(storyId);
  return listUpdates(db, storyId, limit).map(presentUpdate);
}

/** What the story page shows of a followed source (docs/decisions.md, "Story page and reader"). */
export interface FollowState {
  url: string;
  /** False when the reader stopped following or the engine cannot fetch (a file's source): no refresh is offered. */
  followed: boolean;
  lastCheckedAt: string | null;
  nextCheckAt: string | null;
  /** The last failed check's message, or null once a check succeeds. */
  lastError: string | null;
  /** The latest updates, newest first: `GET /api/stories/{id}/updates`' own. */
  updates: StoryUpdateDto[];
}

/** A story's source and its latest `limit` updates, or undefined when it follows none (an unknown story included). */
export function followState(db: Db, storyId: string, limit: number): FollowState | undefined {
  const source = sourceOf(db, storyId);
  if (source === undefined) return undefined;
  const updates = listUpdates(db, storyId, limit).map(presentUpdate);
  return { url: source.url, followed: source.follow, lastCheckedAt: source.lastCheckedAt, nextCheckAt: source.nextCheckAt, lastError: source.lastError, updates };
}

/** What went wrong, in one line for `story_sources.last_error` and a job's errors. */
export function failureText(error: unknown): string {
  if (error instanceof HttpError) return error.details?.url === undefined ? error.message : `${error.message}: the address ${error.details.url}`;
  return error instanceof Error ? error.message : String(error);
}

/** What checking a source needs: the built-in engine's (the URL import's) and FanFicFare's. */
export interface FollowDeps {
  urlImports: UrlImportDeps;
  fanficfare: FanficfareRefreshDeps & { start: (storyId: string) => string };
}

/**
 * The source story `storyId` follows, by the engine that imported it (docs/decisions.md,
 * "Sources": the engine recorded on the source decides, so an otwarchive work stays with the
 * built-in engine even when FanFicFare supports the archive too): 404 for an unknown story, 409
 * for one that follows no source, 422 for a source no engine reads again (a file).
 */
function followedSource(db: Db, storyId: string): SourceRow {
  const source = sourceOf(db, storyId);
  if (source === undefined) {
    if (findStoryStamp(db, storyId) === undefined) throw storyNotFound(storyId);
    throw new HttpError(409, 'This story does not follow a source', { id: 'was not imported from a site Storyshelf can check again' });
  }
  if (source.engine !== 'otwarchive' && source.engine !== 'fanficfare') throw new HttpError(422, 'Storyshelf does not check this source itself', { id: `follows a ${source.engine} source` });
  return source;
}

/**
 * `POST /api/stories/{id}/refresh`: checks the source now. A built-in source (otwarchive) is
 * checked at once and answers what changed ({@link checkBuiltIn}); a FanFicFare source is a
 * `refresh-fanficfare` job, whose id is answered (409 when FanFicFare is not set up).
 */
export async function refreshStory(deps: FollowDeps, storyId: string): Promise<RefreshOutcome | { jobId: string }> {
  const source = followedSource(deps.urlImports.db, storyId);
  if (source.engine === 'fanficfare') return { jobId: deps.fanficfare.start(storyId) };
  return checkBuiltIn(deps.urlImports, source, 'refresh');
}

/**
 * The schedule's check of one story, inside its `source-check` job: a FanFicFare source runs
 * FanFicFare in `folder` (removed after), in the job's own turn.
 */
export async function checkSource(deps: FollowDeps, storyId: string, folder: string, signal: AbortSignal): Promise<RefreshOutcome> {
  const source = followedSource(deps.urlImports.db, storyId);
  if (source.engine !== 'fanficfare') return checkBuiltIn(deps.urlImports, source, 'schedule');
  // A job resumed after a crash finds what the interrupted run left there: FanFicFare must write its one book into an empty folder.
  await fs.rm(folder, { recursive: true, force: true });
  try {
    const outcome = await refreshFromFanficfare(deps.fanficfare, { source, origin: 'schedule', folder, signal }, (write) => writeTransaction(deps.urlImports.db, write));
    deps.urlImports.updates.updated(storyId, outcome);
    return outcome;
  } finally {
    await fs.rm(folder, { recursive: true, force: true });
  }
}

/**
 * Checks an otwarchive source now and brings the story up to it (src/import/url/source-import.ts),
 * or throws the fetch's errors (the failure is recorded on the source and the next scheduled
 * check pushed back). An update that added or changed chapters is told to `deps.updates` (the
 * webhook) once committed.
 */
async function checkBuiltIn(deps: UrlImportDeps, source: SourceRow, origin: 'refresh' | 'schedule'): Promise<RefreshOutcome> {
  const storyId = source.storyId;
  const outcome = await deps.locks.run(source.url, async () => {
    let read;
    try {
      read = await readAddress(deps, new URL(source.url), MAX_IMAGES);
      if (read.kind !== 'work') throw sourceUnreadable('is no longer an archive work');
    } catch (error) {
      recordFailedCheck(deps, storyId, source.failures, failureText(error));
      throw error;
    }
    return refreshFromWork(deps, storyId, read.work, read.prepared, origin);
  });
  // After the commit, so nothing is told of a change that did not happen.
  deps.updates.updated(storyId, outcome);
  return outcome;
}
