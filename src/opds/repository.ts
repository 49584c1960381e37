/**
 * The two reads the feeds need beyond the domains' lists: the fields of an acquisition entry for
 * a page of story ids (one statement, like the story cards of src/stories/repository.ts, plus
 * the summary and `updatedAt` a card has no use for), and the library's newest change.
 */
import type { Db } from '../db/open.js';
import { defineStatements } from '../db/statements.js';
import { STORY_AUTHORS_SQL, STORY_JSON_JOINS, STORY_TAG_NAMES_SQL } from '../stories/present.js';

/**
 * The longest summary an entry carries, in characters: a summary is free text of any length, and
 * a page of 50 entries should stay a few hundred KB at most on an e-reader.
 */
export const ENTRY_SUMMARY_MAX = 2000;

/** A story as an acquisition entry shows it. */
export interface OpdsStory {
  id: string;
  title: string;
  summary: string | null;
  coverPath: string | null;
  authorId: string | null;
  authorName: string | null;
  seriesId: string | null;
  seriesName: string | null;
  volume: number | null;
  /** Tag names, sorted by name. */
  tags: string[];
  createdAt: string;
  updatedAt: string;
  /** Every author in order, the first being `authorId` (docs/decisions.md, "Chapters"). */
  authors: { id: string; name: string }[];
  chapterCount: number;
  status: 'complete' | 'in-progress' | null;
  /** BCP 47, or null when unknown (the entry then has no `dc:language`). */
  language: string | null;
}

const entriesArray = defineStatements((db: Db) =>
  db.$client
    .prepare<[string], string>(
      `SELECT json_group_array(json(json_object(
         'id', s.id,
         'title', s.title,
         'summary', substr(s.summary, 1, ${ENTRY_SUMMARY_MAX}),
         'coverPath', s.cover_path,
         'authorId', s.author_id,
         'authorName', a.name,
         'seriesId', s.series_id,
         'seriesName', se.name,
         'volume', s.volume,
         'tags', json(${STORY_TAG_NAMES_SQL}),
         'createdAt', s.created_at,
         'updatedAt', s.updated_at,
         'authors', ${STORY_AUTHORS_SQL},
         'chapterCount', s.chapter_count,
         'status', s.status,
         'language', s.language
       )) ORDER BY wanted.key)
       FROM json_each(?) AS wanted JOIN stories s ON s.id = wanted.value ${STORY_JSON_JOINS}`,
    )
    .pluck(),
);

/** The entries of the stories with these ids, in the order of `ids` (missing ids skipped): one statement. */
export function loadOpdsStories(db: Db, ids: readonly string[]): OpdsStory[] {
  if (ids.length === 0) return [];
  return JSON.parse(entriesArray(db).get(JSON.stringify(ids)) ?? '[]') as OpdsStory[];
}

const latestUpdate = defineStatements((db: Db) => db.$client.prepare<[], string | null>('SELECT max(updated_at) FROM stories').pluck());

/** The newest story `updatedAt` (read from its index), or undefined for an empty library. */
export function latestStoryUpdate(db: Db): string | undefined {
  return latestUpdate(db).get() ?? undefined;
}
