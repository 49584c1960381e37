/**
 * The reads that tell the reader what arrived (docs/decisions.md, "Sources › Telling the
 * reader"): the stories that gained chapters since the reader last saved a position in them (the
 * home page), every story that gained chapters (the OPDS "Updated" feed), and the newest entries
 * of the update log (the Atom feed). Each walks an index from its newest end and stops at its
 * bound, so none reads every story.
 */
import type { Db } from '../db/open.js';
import { defineStatements } from '../db/statements.js';

/** A story with chapters newer than the reader's last save in it. */
export interface UnreadUpdate {
  storyId: string;
  /** Chapters created after the save. */
  newChapters: number;
  /** The 1-based index of the first of them. */
  firstNew: number;
  /** When chapters last arrived (`stories.chapters_added_at`). */
  at: string;
}

/**
 * One walk of the partial index `reading_progress_unread_idx` (drizzle/0018), which holds only the
 * progress rows whose story gained chapters after the save, newest first; the new chapters are
 * counted on `story_chapters_created_idx`. A story whose new chapters were all deleted since
 * counts none and is left out.
 */
const unreadRows = defineStatements((db: Db) =>
  db.$client.prepare<{ limit: number }, UnreadUpdate>(
    `SELECT storyId, newChapters, firstNew, at FROM (
       SELECT rp.story_id AS storyId, rp.chapters_added_at AS at,
         (SELECT count(*) FROM story_chapters c WHERE c.story_id = rp.story_id AND c.created_at > rp.updated_at) AS newChapters,
         (SELECT min(c.position) FROM story_chapters c INDEXED BY story_chapters_created_idx
           WHERE c.story_id = rp.story_id AND c.created_at > rp.updated_at) AS firstNew
       FROM reading_progress rp
       WHERE rp.chapters_added_at > rp.updated_at
       ORDER BY rp.chapters_added_at DESC
       LIMIT @limit
     ) WHERE newChapters > 0`,
  ),
);

/** The stories that gained chapters since the reader last read them, newest arrival first, at most `limit`. */
export function unreadUpdates(db: Db, limit: number): UnreadUpdate[] {
  return unreadRows(db).all({ limit });
}

const updatedIds = defineStatements((db: Db) =>
  db.$client
    .prepare<{ limit: number; offset: number }, string>(
      `SELECT id FROM stories WHERE chapters_added_at IS NOT NULL ORDER BY chapters_added_at DESC, id DESC LIMIT @limit OFFSET @offset`,
    )
    .pluck(),
);

const updatedCount = defineStatements((db: Db) =>
  db.$client.prepare<[], number>('SELECT count(*) FROM stories WHERE chapters_added_at IS NOT NULL').pluck(),
);

/** A page of the stories that ever gained chapters after they were made, newest arrival first, and how many there are. */
export function updatedStoryIdPage(db: Db, window: { limit: number; offset: number }): { ids: string[]; total: number } {
  return { ids: updatedIds(db).all(window), total: updatedCount(db).get() ?? 0 };
}

/** An entry of the update log with what a feed shows of its story. */
export interface UpdateEntryRow {
  id: number;
  storyId: string;
  title: string;
  at: string;
  origin: string;
  sourceUrl: string | null;
  addedChapters: number;
  updatedChapters: number;
  keptChapters: number;
  goneChapters: number;
  details: string;
  /** The index of the first chapter this update added (they were created at `at`), or null. */
  firstAdded: number | null;
}

const ENTRY_COLUMNS = `u.id, u.story_id AS storyId, s.title, u.at, u.origin, u.source_url AS sourceUrl,
       u.added_chapters AS addedChapters, u.updated_chapters AS updatedChapters,
       u.kept_chapters AS keptChapters, u.gone_chapters AS goneChapters, u.details,
       CASE WHEN u.added_chapters > 0
         THEN (SELECT min(c.position) FROM story_chapters c INDEXED BY story_chapters_created_idx WHERE c.story_id = u.story_id AND c.created_at = u.at)
       END AS firstAdded`;

/** A walk of `story_updates_at_idx` from its newest end; each story row by its key. */
const latestRows = defineStatements((db: Db) =>
  db.$client.prepare<{ limit: number }, UpdateEntryRow>(
    `SELECT ${ENTRY_COLUMNS} FROM story_updates u JOIN stories s ON s.id = u.story_id ORDER BY u.at DESC, u.id DESC LIMIT @limit`,
  ),
);

const newestOfStory = defineStatements((db: Db) =>
  db.$client.prepare<[string], UpdateEntryRow>(
    `SELECT ${ENTRY_COLUMNS} FROM story_updates u JOIN stories s ON s.id = u.story_id WHERE u.story_id = ? ORDER BY u.at DESC, u.id DESC LIMIT 1`,
  ),
);

/** The newest entry of one story's update log (the one a refresh just wrote), or undefined. */
export function newestUpdateOf(db: Db, storyId: string): UpdateEntryRow | undefined {
  return newestOfStory(db).get(storyId);
}

/** The newest `limit` entries of every story's update log, newest first. */
export function latestUpdates(db: Db, limit: number): UpdateEntryRow[] {
  return latestRows(db).all({ limit });
}
