/**
 * The chapter a search hit's words were found in (docs/decisions.md, "Search"): the snippet's
 * excerpt lies at an offset of the story's whole-work plain text, which is its chapters' texts
 * in order, each titled one after its title and a blank line, joined by blank lines
 * (src/stories/chapter-text.ts `assembleWork`). Walking the chapters in order up to that offset
 * names the chapter. Bounded like the snippet: each chapter's length is known only as far as the
 * snippet's window reaches ({@link SNIPPET_SOURCE_CHARS}), and the walk stops at the chapter that
 * holds the offset, so a 200-chapter work costs what its first few chapters do (SQLite still
 * loads each walked chapter's text whole for `substr`). A one-chapter story (most
 * of a library) is answered without reading its text at all: its only chapter holds every offset.
 */
import type Database from 'better-sqlite3';
import { defineStatements } from '../../db/statements.js';
import { SNIPPET_SOURCE_CHARS } from './snippet.js';

export interface HitChapter {
  index: number;
  title: string;
}

/** The joiner between chapters' plain texts, and between a title and its text. */
const BLANK_LINE = '\n\n'.length;
/** A chapter is read this far; one that goes on past it is longer than any offset the snippet gives. */
const READ_CHARS = SNIPPET_SOURCE_CHARS + 1;

const chapterTexts = defineStatements((client: Database.Database) =>
  client.prepare<[string], { index: number; title: string; plain: string; longer: number }>(
    `SELECT position AS "index", title, substr(content_plain, 1, ${READ_CHARS}) AS plain,
       substr(content_plain, ${READ_CHARS + 1}, 1) != '' AS longer
     FROM story_chapters WHERE story_id = ? ORDER BY position`,
  ),
);

// Reads no text column: a row's title comes before its texts, so no overflow page is touched.
const onlyChapter = defineStatements((client: Database.Database) =>
  client.prepare<[string], HitChapter>(
    `SELECT position AS "index", title FROM story_chapters c
     WHERE story_id = ? AND position = 1 AND NOT EXISTS (SELECT 1 FROM story_chapters n WHERE n.story_id = c.story_id AND n.position = 2)`,
  ),
);

/** The chapter holding `offset` (UTF-16 units) of the story's whole-work plain text, or null past its end. */
export function chapterAtOffset(client: Database.Database, storyId: string, offset: number): HitChapter | null {
  const only = onlyChapter(client).get(storyId);
  if (only !== undefined) return only;
  let cursor = 0;
  let first = true;
  for (const chapter of chapterTexts(client).iterate(storyId)) {
    if (!first) cursor += BLANK_LINE;
    first = false;
    const bodyStart = cursor + (chapter.title === '' ? 0 : chapter.title.length + BLANK_LINE);
    const bodyEnd = chapter.longer === 1 || chapter.plain.length >= READ_CHARS ? Number.POSITIVE_INFINITY : bodyStart + chapter.plain.length;
    // A match in the chapter's heading (its title) is that chapter's too.
    if (offset < bodyEnd) return { index: chapter.index, title: chapter.title };
    cursor = bodyEnd;
  }
  return null;
}
