/**
 * Reading progress (docs/decisions.md, "Reading progress"): where the reader stopped in a story,
 * saved as they read and restored on any device, and the continue-reading list. The API routes
 * (./progress-routes.ts) and server-rendered pages call these functions alike.
 */
import type { Db } from '../db/open.js';
import { writeTransaction } from '../db/transaction.js';
import { nextUpdatedAt, nowIso } from '../lib/clock.js';
import type { JsonBytes } from '../lib/json-bytes.js';
import type { ReadingProgressBody, ReadingProgressDto } from '../schemas/reading-progress.js';
import { presentProgress } from './present.js';
import { findProgress, findProgressOf, latestProgressStamp, saveProgressRow, startedStoryIds } from './progress-repository.js';
import { storyCards } from './list-service.js';
import type { StoryCard } from './present.js';
import { findStoryStamp } from './repository.js';
import { applyReading } from './reading-status.js';
import { presentStories, storyNotFound } from './service.js';

/** The story's saved progress, or progress 0 with `position` and `updatedAt` null; 404 when there is no such story. */
export function getProgress(db: Db, storyId: string): ReadingProgressDto {
  const row = findProgress(db, storyId);
  if (row === undefined && findStoryStamp(db, storyId) === undefined) throw storyNotFound(storyId);
  return presentProgress(storyId, row);
}

/**
 * Saves where the reader is (last write wins, by arrival); 404 when there is no such story. The
 * stamp is `nextUpdatedAt` (docs/decisions.md, "Identifiers and timestamps") of the newest save of
 * any story, not only of this one: two stories saved in the same millisecond would otherwise tie
 * and continue-reading would order them by id instead of by arrival. The save also moves the
 * story's reading status as reading does (./reading-status.ts: opened, finished), stamped with the
 * same time. `chapter` (1-based; KOReader sync knows it) is null when not given. The story's `updatedAt` stays (reading is not editing); the transaction is a
 * `writeTransaction` all the same, because the status is a story column search filters on.
 */
export function saveProgress(db: Db, storyId: string, input: ReadingProgressBody & { chapter?: number | null }): ReadingProgressDto {
  return writeTransaction(db, (tx) => {
    const latest = latestProgressStamp(tx);
    const row = { storyId, progress: input.progress, position: input.position, chapter: input.chapter ?? null, updatedAt: latest === undefined ? nowIso() : nextUpdatedAt(latest) };
    if (!applyReading(tx, storyId, input.progress, row.updatedAt)) throw storyNotFound(storyId);
    saveProgressRow(tx, row);
    return presentProgress(storyId, row);
  });
}

/**
 * The stories started and not finished (0 < progress < 0.98), most recently read first, at most
 * `limit`, as the JSON array of their `StoryDto`s exactly as `GET /api/stories/{id}` renders
 * them (one SQLite query, ./repository.ts `loadStoriesJsonArray`). For the API route.
 */
export function continueReadingJson(db: Db, limit: number): JsonBytes {
  return presentStories(db, startedStoryIds(db, limit));
}

/** The ids of the continue-reading list, in its order, at most `limit` (the OPDS feed renders its own entries, src/opds). */
export function continueReadingIds(db: Db, limit: number): string[] {
  return startedStoryIds(db, limit);
}

/**
 * The continue-reading list for a page: the stories' cards and each one's progress (0 to 1), two
 * statements whatever the count (docs/decisions.md, "Reading progress").
 */
export function continueReadingCards(db: Db, limit: number): Array<{ card: StoryCard; progress: number }> {
  const ids = startedStoryIds(db, limit);
  const progress = findProgressOf(db, ids);
  return storyCards(db, ids).map((card) => ({ card, progress: progress.get(card.id) ?? 0 }));
}
