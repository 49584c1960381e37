/**
 * Queries for a story's chapters (docs/decisions.md, "Chapters"): `story_chapters`, one row per
 * chapter, `position` the 1-based reading order the API calls `index`. Reads take the database
 * and are prepared once; writes take the open transaction.
 */
import type { DbOrTx, Tx } from '../db/open.js';
import { defineStatements, sqliteClient } from '../db/statements.js';
import type { ChapterText } from './chapter-text.js';

/** A chapter without its text, as the contents list shows it. */
export interface ChapterMeta {
  index: number;
  title: string;
  wordCount: number;
  sourceUrl: string | null;
  sourceGoneAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ChapterRow extends ChapterMeta {
  contentHtml: string;
  contentPlain: string;
  sourceKey: string | null;
}

const META_COLUMNS = `position AS "index", title, word_count AS wordCount, source_url AS sourceUrl,
  source_gone_at AS sourceGoneAt, created_at AS createdAt, updated_at AS updatedAt`;
const ROW_COLUMNS = `${META_COLUMNS}, content_html AS contentHtml, content_plain AS contentPlain, source_key AS sourceKey`;

/** The contents' query: every column it names is in `story_chapters_meta_idx`, so no chapter's text is walked (docs/performance.md, "Chapters"). */
export const CHAPTER_META_SQL = `SELECT ${META_COLUMNS} FROM story_chapters WHERE story_id = ? ORDER BY position`;

const metaOf = defineStatements((db: DbOrTx) => sqliteClient(db).prepare<[string], ChapterMeta>(CHAPTER_META_SQL));

/** The story's chapters in reading order, without their text (an empty list for an unknown story). */
export function listChapterMeta(db: DbOrTx, storyId: string): ChapterMeta[] {
  return metaOf(db).all(storyId);
}

const rowAt = defineStatements((db: DbOrTx) =>
  sqliteClient(db).prepare<[string, number], ChapterRow>(`SELECT ${ROW_COLUMNS} FROM story_chapters WHERE story_id = ? AND position = ?`),
);

/** One chapter with its text, or undefined. */
export function findChapter(db: DbOrTx, storyId: string, index: number): ChapterRow | undefined {
  return rowAt(db).get(storyId, index);
}

const htmlAt = defineStatements((db: DbOrTx) =>
  sqliteClient(db).prepare<[string, number], string>('SELECT content_html FROM story_chapters WHERE story_id = ? AND position = ?').pluck(),
);

/**
 * One chapter's HTML alone (the reader's read): `content_html` comes before the plain text in the
 * row, so this reads the HTML's own overflow pages and not the plain text's; the rest of the
 * chapter the caller has from {@link listChapterMeta}.
 */
export function findChapterHtml(db: DbOrTx, storyId: string, index: number): string | undefined {
  return htmlAt(db).get(storyId, index);
}

const rowsOf = defineStatements((db: DbOrTx) =>
  sqliteClient(db).prepare<[string], ChapterRow>(`SELECT ${ROW_COLUMNS} FROM story_chapters WHERE story_id = ? ORDER BY position`),
);

/** Every chapter of the story with its text, in order: what the whole work is assembled from. */
export function loadChapters(db: DbOrTx, storyId: string): ChapterRow[] {
  return rowsOf(db).all(storyId);
}

const countOf = defineStatements((db: DbOrTx) =>
  sqliteClient(db).prepare<[string], number>('SELECT count(*) FROM story_chapters WHERE story_id = ?').pluck(),
);

export function chapterCount(db: DbOrTx, storyId: string): number {
  return countOf(db).get(storyId) ?? 0;
}

const insertRow = defineStatements((tx: Tx) =>
  sqliteClient(tx).prepare(
    `INSERT INTO story_chapters (story_id, position, title, content_html, content_plain, word_count, source_url, source_key, created_at, updated_at)
     VALUES (@storyId, @position, @title, @contentHtml, @contentPlain, @wordCount, @sourceUrl, @sourceKey, @now, @now)`,
  ),
);

/** Inserts a chapter at `position` (the caller has made room). */
export function insertChapter(tx: Tx, storyId: string, position: number, chapter: ChapterText, now: string): void {
  insertRow(tx).run({ storyId, position, now, ...chapter });
}

const updateRow = defineStatements((tx: Tx) =>
  sqliteClient(tx).prepare(
    `UPDATE story_chapters SET title = @title, content_html = @contentHtml, content_plain = @contentPlain, word_count = @wordCount,
       source_url = @sourceUrl, source_key = @sourceKey, source_gone_at = NULL, updated_at = @now
     WHERE story_id = @storyId AND position = @position`,
  ),
);

/** Replaces a chapter's title, text and source; returns false when there is no such chapter. */
export function updateChapter(tx: Tx, storyId: string, position: number, chapter: ChapterText, now: string): boolean {
  return updateRow(tx).run({ storyId, position, now, ...chapter }).changes > 0;
}

const goneRow = defineStatements((tx: Tx) =>
  sqliteClient(tx).prepare('UPDATE story_chapters SET source_gone_at = ? WHERE story_id = ? AND position = ? AND source_gone_at IS NULL'),
);

/** Marks a chapter its source no longer has (its text stays). */
export function markChapterGone(tx: Tx, storyId: string, position: number, now: string): void {
  goneRow(tx).run(now, storyId, position);
}

const stampRow = defineStatements((tx: Tx) =>
  sqliteClient(tx).prepare(
    `UPDATE story_chapters SET created_at = @createdAt, updated_at = @updatedAt, source_gone_at = @sourceGoneAt
     WHERE story_id = @storyId AND position = @position`,
  ),
);

/** Gives a chapter the times it had elsewhere (a restored archive keeps its dates, docs/decisions.md "Library archive"). */
export function stampChapter(
  tx: Tx,
  storyId: string,
  position: number,
  stamps: { createdAt: string; updatedAt: string; sourceGoneAt: string | null },
): void {
  stampRow(tx).run({ storyId, position, ...stamps });
}

const deleteAll = defineStatements((tx: Tx) => sqliteClient(tx).prepare('DELETE FROM story_chapters WHERE story_id = ?'));

export function deleteChapters(tx: Tx, storyId: string): void {
  deleteAll(tx).run(storyId);
}

const deleteAt = defineStatements((tx: Tx) => sqliteClient(tx).prepare('DELETE FROM story_chapters WHERE story_id = ? AND position = ?'));
/**
 * Positions are unique per story and SQLite checks that row by row during an UPDATE, in no
 * promised order: moving the later chapters up by one in place could collide. They are moved
 * far out of the way first, then back to their new places (a position's CHECK is >= 1, so the
 * detour goes up, not negative).
 */
const FAR = 1_000_000_000;
const shiftOut = defineStatements((tx: Tx) =>
  sqliteClient(tx).prepare(`UPDATE story_chapters SET position = position + ${FAR} WHERE story_id = ? AND position > ?`),
);
const shiftBack = defineStatements((tx: Tx) =>
  sqliteClient(tx).prepare(`UPDATE story_chapters SET position = position - ${FAR} + ? WHERE story_id = ? AND position > ${FAR}`),
);

/** Deletes the chapter at `position` and moves the ones after it up; returns false when there was none. */
export function deleteChapterAt(tx: Tx, storyId: string, position: number): boolean {
  if (deleteAt(tx).run(storyId, position).changes === 0) return false;
  shiftOut(tx).run(storyId, position);
  shiftBack(tx).run(-1, storyId);
  return true;
}

/** The whole work's columns on the story row, written with every chapter change. */
const storyTextUpdate = defineStatements((tx: Tx) =>
  sqliteClient(tx).prepare(
    `UPDATE stories SET content_html = @contentHtml, content_plain = @contentPlain, word_count = @wordCount, chapter_count = @chapterCount
     WHERE id = @storyId`,
  ),
);

export function writeStoryText(
  tx: Tx,
  storyId: string,
  text: { contentHtml: string | null; contentPlain: string | null; wordCount: number; chapterCount: number },
): void {
  storyTextUpdate(tx).run({ storyId, ...text });
}

