/**
 * Reading status and favourites (docs/decisions.md, "Reading status"): the reader's own state of a
 * story, set by hand through the API and the story page, and by reading through every progress save
 * (./progress-service.ts, which KOReader sync goes through too). One place decides every change, so
 * the web page, the API, reading and bulk edits follow the same rules:
 *
 * - opening a story (any progress save short of the end) makes a story with no status or
 *   `want-to-read` `reading`; every other status stays;
 * - reaching the end ({@link FINISHED_PROGRESS} and more) makes it `finished`, stamps `finishedAt`
 *   and counts one more read, once per finish: a story already `finished` counts nothing more,
 *   and an `abandoned` one stays (a jump to the end of a dropped story is a peek, not a read);
 * - setting `finished` by hand is a finish too; setting the status it already has changes nothing.
 *
 * None of it changes the story's `updatedAt` (reading is not editing, as with the position); the
 * writes are `writeTransaction`s all the same, because search filters on these columns and a
 * second engine must hear of them.
 */
import type { Db, Tx } from '../db/open.js';
import { writeTransaction } from '../db/transaction.js';
import { nowIso } from '../lib/clock.js';
import type { JsonBytes } from '../lib/json-bytes.js';
import { FINISHED_PROGRESS } from '../schemas/reading-progress.js';
import type { ReadingStatus } from '../schemas/reading-status.js';
import { findReadingState, updateStory, type ReadingState, type StoryPatch } from './repository.js';
import { getStory, storyNotFound } from './service.js';

/** What a finish writes: the status, when, and one more read. */
function finish(current: ReadingState, now: string): StoryPatch {
  return { readingStatus: 'finished', finishedAt: now, readCount: current.readCount + 1 };
}

/**
 * The change when the reader sets `status` by hand (null clears it): the same status is no change,
 * `finished` is a finish; `finishedAt` and `readCount` are history and stay whatever comes next.
 */
export function statusSetByHand(current: ReadingState, status: ReadingStatus | null, now: string): StoryPatch {
  if (status === current.readingStatus) return {};
  return status === 'finished' ? finish(current, now) : { readingStatus: status };
}

/** The change a progress save of `progress` (0 to 1) makes (see the file comment). */
export function statusAfterReading(current: ReadingState, progress: number, now: string): StoryPatch {
  if (progress >= FINISHED_PROGRESS) {
    return current.readingStatus === 'finished' || current.readingStatus === 'abandoned' ? {} : finish(current, now);
  }
  return current.readingStatus === null || current.readingStatus === 'want-to-read' ? { readingStatus: 'reading' } : {};
}

/**
 * Sets the status of story `id` inside the caller's write transaction (for writes of many stories
 * at once); false when there is no such story.
 */
export function applyReadingStatus(tx: Tx, id: string, status: ReadingStatus | null, now = nowIso()): boolean {
  const current = findReadingState(tx, id);
  if (current === undefined) return false;
  const patch = statusSetByHand(current, status, now);
  if (Object.keys(patch).length > 0) updateStory(tx, id, patch);
  return true;
}

/**
 * Applies what a progress save of `progress` means for story `id`'s status, inside the save's
 * transaction; false when there is no such story.
 */
export function applyReading(tx: Tx, id: string, progress: number, now: string): boolean {
  const current = findReadingState(tx, id);
  if (current === undefined) return false;
  const patch = statusAfterReading(current, progress, now);
  if (Object.keys(patch).length > 0) updateStory(tx, id, patch);
  return true;
}

/** Sets the status of story `id` in its own transaction (the story page's form); 404 when there is none. */
export function changeReadingStatus(db: Db, id: string, status: ReadingStatus | null): void {
  writeTransaction(db, (tx) => {
    if (!applyReadingStatus(tx, id, status)) throw storyNotFound(id);
  });
}

/** `PUT /api/stories/{id}/reading-status`: the story as `StoryDto` JSON afterwards; 404 when there is none. */
export function setReadingStatus(db: Db, id: string, status: ReadingStatus | null): JsonBytes {
  changeReadingStatus(db, id, status);
  return getStory(db, id);
}

/** Marks story `id` a favourite or not, inside the caller's write transaction; false when there is no such story. */
export function applyFavourite(tx: Tx, id: string, favourite: boolean): boolean {
  const current = findReadingState(tx, id);
  if (current === undefined) return false;
  if (current.favourite !== favourite) updateStory(tx, id, { favourite });
  return true;
}

/** Marks story `id` a favourite or not in its own transaction (the story page's form); 404 when there is none. */
export function changeFavourite(db: Db, id: string, favourite: boolean): void {
  writeTransaction(db, (tx) => {
    if (!applyFavourite(tx, id, favourite)) throw storyNotFound(id);
  });
}

/** `PUT /api/stories/{id}/favourite`: the story as `StoryDto` JSON afterwards; 404 when there is none. */
export function setFavourite(db: Db, id: string, favourite: boolean): JsonBytes {
  changeFavourite(db, id, favourite);
  return getStory(db, id);
}
