/**
 * Reading progress (docs/decisions.md, "Reading progress"): where the reader stopped in a story,
 * saved as they read and restored on any device, and the continue-reading list. The API routes
 * (./progress-routes.ts) and server-rendered pages call these functions alike.
 */
import type { Db, Tx } from '../db/open.js';
import { BadRequest } from '../errors.js';
import { chapterCount } from './chapter-repository.js';
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

/** A saved `chapter` must be one the story has: 404 for no story, 400 past its last chapter. */
function checkChapter(tx: Tx, storyId: string, chapter: number): void {
  const count = chapterCount(tx, storyId);
  if (count === 0) throw storyNotFound(storyId);
  if (chapter > count) throw new BadRequest(`This story has ${count} chapter${count === 1 ? '' : 's'}`, { chapter: `must be at most ${count}` });
}

/**
 * Saves where the reader is (last write wins, by arrival); 404 when there is no such story. The
 * stamp is `nextUpdatedAt` (docs/decisions.md, "Identifiers and timestamps") of the newest save of
 * any story, not only of this one: two stories saved in the same millisecond would otherwise tie
 * and continue-reading would order them by id instead of by arrival. The save also moves the
 * story's reading status as reading does (./reading-status.ts: opened, finished), stamped with the
 * same time. `chapter` (1-based; KOReader sync knows it) is optional (stored null when absent or null) and checked against the story's chapters. The story's `updatedAt` stays (reading is not editing); the transaction is a
 * `writeTransaction` all the same, because the status is a story column search filters on.
 */
export function saveProgress(db: Db, storyId: string, input: Omit<ReadingProgressBody, 'chapter'> & { chapter?: number | null }): ReadingProgressDto {
  return writeTransaction(db, (tx) => {
    if (input.chapter !== undefined && input.chapter !== null) checkChapter(tx, storyId, input.chapter);
    const latest = latestProgressStamp(tx);
    const updatedAt = latest === undefined ? nowIso() : nextUpdatedAt(latest);
    const row = { storyId, progress: input.progress, position: input.position, chapter: input.chapter ?? null, updatedAt };
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
export function continueReadingCards(db: Db, limit: number): Array<{ card: StoryCard; progress: number; chapter: number | null }> {
  const ids = startedStoryIds(db, limit);
  const progress = findProgressOf(db, ids);
  return storyCards(db, ids).map((card) => ({ card, progress: progress.get(card.id)?.progress ?? 0, chapter: progress.get(card.id)?.chapter ?? null }));
}

/**
 * The chapter a reader reopens (docs/decisions.md, "Reading progress"): the saved one (the last
 * chapter if chapters were deleted since), else the chapter the whole-work fraction falls in by
 * the chapters' word counts (a save from a client that sent no chapter), else the first.
 */
export function chapterToOpen(progress: ReadingProgressDto, wordCounts: readonly number[]): number {
  const count = Math.max(1, wordCounts.length);
  if (progress.chapter !== null) return Math.min(progress.chapter, count);
  if (progress.updatedAt === null) return 1;
  const total = wordCounts.reduce((sum, words) => sum + words, 0);
  const target = progress.progress * total;
  let end = 0;
  for (let i = 0; i < wordCounts.length; i += 1) {
    end += wordCounts[i] ?? 0;
    if (target < end) return i + 1;
  }
  return count;
}
