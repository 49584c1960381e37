/**
 * Following a story at its source (docs/decisions.md, "Sources"): the update log, and checking
 * the source again now (a refresh) or on the schedule.
 */
import type { Db } from '../db/open.js';
import { HttpError } from '../errors.js';
import { sourceUnreadable } from '../import/url/errors.js';
import type { UrlImportDeps } from '../import/url/service.js';
import { recordFailedCheck, refreshFromWork, type RefreshOutcome } from '../import/url/source-import.js';
import { readAddress } from '../import/url/source.js';
import type { StoryUpdateDto } from '../schemas/source.js';
import { listUpdates, sourceOf } from '../import/url/source-rows.js';
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

/**
 * Checks the source of story `storyId` now and brings the story up to it (src/import/url/source-import.ts):
 * 404 for an unknown story, 409 for one that follows no source, 422 for a source Storyshelf does
 * not read itself, and the fetch's errors (the failure is recorded on the source and the next
 * scheduled check pushed back).
 */
export async function refreshStory(deps: UrlImportDeps, storyId: string, origin: 'refresh' | 'schedule'): Promise<RefreshOutcome> {
  const source = sourceOf(deps.db, storyId);
  if (source === undefined) {
    if (findStoryStamp(deps.db, storyId) === undefined) throw storyNotFound(storyId);
    throw new HttpError(409, 'This story does not follow a source', { id: 'was not imported from a site Storyshelf can check again' });
  }
  if (source.engine !== 'otwarchive') throw new HttpError(422, 'Storyshelf does not check this source itself', { id: `follows a ${source.engine} source` });
  return deps.locks.run(source.url, async () => {
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
}
