/**
 * Queries for stories: whole stories by id, rendered as their DTO's JSON (./present.ts), and the
 * writes (Drizzle). The sorted id pages of the lists live in `page-queries.ts`.
 *
 * Reads take the database (not a transaction) so their statements are prepared once; services
 * read after their write transaction has committed. Writes take the open transaction.
 */
import { and, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { Db, DbOrTx, Tx } from '../db/open.js';
import { stories, storyCoauthors, storyTags } from '../db/schema.js';
import { asJsonBytes, type JsonBytes } from '../lib/json-bytes.js';
import type { StoryDto } from '../schemas/story.js';
import { STORY_CARD_JSON_SQL, STORY_JSON_JOINS, STORY_JSON_SQL, STORY_WITHOUT_TEXT_JSON_SQL, type StoryCard, type StoryWithoutText } from './present.js';
import { defineStatements, sqliteClient } from '../db/statements.js';

export type NewStory = typeof stories.$inferInsert;
/** The columns a story update may set (never its id, seq or createdAt). */
export type StoryPatch = Partial<Omit<NewStory, 'id' | 'seq' | 'createdAt'>>;
/** The reader's own columns of a story (docs/decisions.md, "Reading status"). */
export type ReadingState = Pick<typeof stories.$inferSelect, 'readingStatus' | 'finishedAt' | 'readCount' | 'favourite'>;

const storiesJsonArray = defineStatements((db: Db) =>
  db.$client
    .prepare<[{ before: string; ids: string; after: string }], [number, Buffer]>(
      `SELECT count(*), CAST(@before || json_group_array(${STORY_JSON_SQL} ORDER BY wanted.key) || @after AS BLOB)
       FROM json_each(@ids) AS wanted JOIN stories s ON s.id = wanted.value ${STORY_JSON_JOINS}`,
    )
    .raw(),
);

/**
 * The stories with these ids as one JSON array of their DTOs, in the order of `ids` (missing ids
 * skipped), rendered by SQLite in one statement between the text `before` and `after` (a page
 * envelope, say). One Buffer per response instead of one per story plus their concatenation:
 * half the memory a 0.7 MB list page holds while it is sent. Returns the bytes and how many
 * stories they hold.
 */
export function loadStoriesJsonArray(db: Db, ids: readonly string[], before = '', after = ''): { json: JsonBytes; count: number } {
  const [count, json] = storiesJsonArray(db).get({ before, ids: JSON.stringify(ids), after }) as [number, Buffer];
  return { json: asJsonBytes(json), count };
}

const storyCardsArray = defineStatements((db: Db) =>
  db.$client
    .prepare<[string], string>(
      `SELECT json_group_array(json(${STORY_CARD_JSON_SQL}) ORDER BY wanted.key)
       FROM json_each(?) AS wanted JOIN stories s ON s.id = wanted.value ${STORY_JSON_JOINS}`,
    )
    .pluck(),
);

/** The cards of the stories with these ids, in the order of `ids` (missing ids skipped): one statement. */
export function loadStoryCards(db: Db, ids: readonly string[]): StoryCard[] {
  if (ids.length === 0) return [];
  return JSON.parse(storyCardsArray(db).get(JSON.stringify(ids)) ?? '[]') as StoryCard[];
}

const storyJsonById = defineStatements((db: Db) =>
  db.$client.prepare<[string], Buffer>(`SELECT CAST(${STORY_JSON_SQL} AS BLOB) FROM stories s ${STORY_JSON_JOINS} WHERE s.id = ?`).pluck(),
);

/** One story's DTO as JSON, or undefined when there is no such story. */
export function loadStoryJson(db: Db, id: string): JsonBytes | undefined {
  const json = storyJsonById(db).get(id);
  return json === undefined ? undefined : asJsonBytes(json);
}

const storyTextById = defineStatements((db: Db) =>
  db.$client.prepare<[string], string>(`SELECT ${STORY_JSON_SQL} FROM stories s ${STORY_JSON_JOINS} WHERE s.id = ?`).pluck(),
);

/**
 * One story's DTO as an object, for the pages (the API sends {@link loadStoryJson}'s bytes
 * untouched); undefined when there is no such story. The DTO is defined once, in SQL
 * (`STORY_JSON_SQL`), so this reads it as text and parses it, as the cards are read.
 */
export function loadStory(db: Db, id: string): StoryDto | undefined {
  const json = storyTextById(db).get(id);
  return json === undefined ? undefined : (JSON.parse(json) as StoryDto);
}

const storyWithoutTextById = defineStatements((db: Db) =>
  db.$client.prepare<[string], string>(`SELECT ${STORY_WITHOUT_TEXT_JSON_SQL} FROM stories s ${STORY_JSON_JOINS} WHERE s.id = ?`).pluck(),
);

/** {@link loadStory} without the whole work's text, for a page that shows none of it. */
export function loadStoryWithoutText(db: Db, id: string): StoryWithoutText | undefined {
  const json = storyWithoutTextById(db).get(id);
  return json === undefined ? undefined : (JSON.parse(json) as StoryWithoutText);
}

/**
 * The story's `updatedAt` and `coverPath`, or undefined when there is no such story (cheap
 * existence check; the cover is what an image change releases).
 */
/** The stored body, for what an edit of it releases (src/images/inline-images.ts). */
export function findStoryHtml(db: DbOrTx, id: string): string | null {
  return db.select({ html: stories.contentHtml }).from(stories).where(eq(stories.id, id)).get()?.html ?? null;
}

/**
 * Whether the story exists, read from the id index alone: every other column but the title sits
 * behind the whole work's text in the row, and a 400,000-word work's text is ~1,300 overflow pages
 * SQLite walks to reach them (docs/performance.md, "Chapters").
 */
export function storyExists(db: DbOrTx, id: string): boolean {
  return db.select({ id: stories.id }).from(stories).where(eq(stories.id, id)).get() !== undefined;
}

/** What the reader shows of a story besides its chapter, all of it in `stories_head_idx` (no walk past the text). */
export interface StoryHead {
  id: string;
  title: string;
  authorId: string | null;
  authorName: string | null;
  seriesId: string | null;
  volume: number | null;
  createdAt: string;
}

/**
 * The head's query. `INDEXED BY`: on a small or unanalysed library SQLite prefers the id's unique
 * index and reads the row, which for a long work means walking its whole text.
 */
export const STORY_HEAD_SQL = `SELECT s.id, s.title, s.author_id AS authorId, a.name AS authorName, s.series_id AS seriesId, s.volume, s.created_at AS createdAt
  FROM stories s INDEXED BY stories_head_idx LEFT JOIN authors a ON a.id = s.author_id WHERE s.id = ?`;

const headOf = defineStatements((db: DbOrTx) => sqliteClient(db).prepare<[string], StoryHead>(STORY_HEAD_SQL));

export function findStoryHead(db: DbOrTx, id: string): StoryHead | undefined {
  return headOf(db).get(id);
}

export function findStoryStamp(db: DbOrTx, id: string): { updatedAt: string; coverPath: string | null } | undefined {
  return db.select({ updatedAt: stories.updatedAt, coverPath: stories.coverPath }).from(stories).where(eq(stories.id, id)).get();
}

/** The reader's own state of the story (docs/decisions.md, "Reading status"), or undefined when there is no such story. */
export function findReadingState(db: DbOrTx, id: string): ReadingState | undefined {
  return db
    .select({ readingStatus: stories.readingStatus, finishedAt: stories.finishedAt, readCount: stories.readCount, favourite: stories.favourite })
    .from(stories)
    .where(eq(stories.id, id))
    .get();
}

/**
 * The columns a story gained with chapters, sources and reading status (drizzle/0016): a new
 * story may leave them to these values.
 */
const STORY_EXTRA_DEFAULTS = {
  chapterCount: 1,
  status: null,
  publishedAt: null,
  sourceUpdatedAt: null,
  language: null,
  chaptersAddedAt: null,
  readingStatus: null,
  finishedAt: null,
  readCount: 0,
  favourite: false,
} satisfies Partial<NewStory>;
type StoryExtraColumn = keyof typeof STORY_EXTRA_DEFAULTS;

/** Every column a new story sets (`seq` is the database's; the newer columns have defaults). */
type StoryInsert = Required<Omit<NewStory, 'seq' | StoryExtraColumn>> & Partial<Pick<NewStory, StoryExtraColumn>>;

const insertStatement = defineStatements((tx: Tx) => {
  const columns = Object.keys(getTableColumns(stories)).filter((column) => column !== 'seq') as (keyof StoryInsert)[];
  return tx
    .insert(stories)
    .values(Object.fromEntries(columns.map((column) => [column, sql.placeholder(column)])) as unknown as NewStory)
    .prepare();
});

export function insertStory(tx: Tx, values: StoryInsert): void {
  insertStatement(tx).run({ ...STORY_EXTRA_DEFAULTS, ...values });
}

export function updateStory(tx: Tx, id: string, patch: StoryPatch): void {
  tx.update(stories).set(patch).where(eq(stories.id, id)).run();
}

/**
 * Deletes the story; its tag links go with it (foreign-key cascade). Returns the deleted row's
 * `coverPath` (for the caller to remove the file after commit), or undefined when absent.
 */
export function deleteStory(tx: Tx, id: string): { coverPath: string | null; contentHtml: string | null } | undefined {
  return tx.delete(stories).where(eq(stories.id, id)).returning({ coverPath: stories.coverPath, contentHtml: stories.contentHtml }).get();
}

const tagIdsStatement = defineStatements((tx: Tx) =>
  tx.select({ tagId: storyTags.tagId }).from(storyTags).where(eq(storyTags.storyId, sql.placeholder('storyId'))).prepare(),
);

export function tagIdsOf(tx: Tx, storyId: string): string[] {
  return tagIdsStatement(tx)
    .all({ storyId })
    .map((row) => row.tagId);
}

const linkTagStatement = defineStatements((tx: Tx) =>
  tx.insert(storyTags).values({ storyId: sql.placeholder('storyId'), tagId: sql.placeholder('tagId') }).onConflictDoNothing().prepare(),
);

/** Links the tags to the story; links that already exist are left alone. Returns how many were new. */
export function linkTags(tx: Tx, storyId: string, tagIds: readonly string[]): number {
  const link = linkTagStatement(tx);
  let linked = 0;
  for (const tagId of tagIds) linked += link.run({ storyId, tagId }).changes;
  return linked;
}

/** Removes these tag links from the story. Returns how many existed. */
export function unlinkTags(tx: Tx, storyId: string, tagIds: readonly string[]): number {
  if (tagIds.length === 0) return 0;
  return tx
    .delete(storyTags)
    .where(and(eq(storyTags.storyId, storyId), inArray(storyTags.tagId, [...tagIds])))
    .run().changes;
}

/** The id of a story with exactly this source URL (the importer's duplicate check; indexed). */
export function findStoryIdBySourceUrl(db: DbOrTx, sourceUrl: string): string | undefined {
  return db.select({ id: stories.id }).from(stories).where(eq(stories.sourceUrl, sourceUrl)).limit(1).get()?.id;
}

/** The ids of `ids` that name no story, in the order given (one query, whatever the count). */
export function missingStoryIds(db: DbOrTx, ids: readonly string[]): string[] {
  if (ids.length === 0) return [];
  const found = new Set(
    db
      .select({ id: stories.id })
      .from(stories)
      .where(inArray(stories.id, [...ids]))
      .all()
      .map((row) => row.id),
  );
  return ids.filter((id) => !found.has(id));
}

/** The story's first author (`author_id`), or null. */
export function findStoryAuthorId(tx: DbOrTx, storyId: string): string | null {
  return tx.select({ authorId: stories.authorId }).from(stories).where(eq(stories.id, storyId)).get()?.authorId ?? null;
}

/** Makes the story's co-authors exactly these author ids, in order (positions from 2). */
export function replaceCoauthors(tx: Tx, storyId: string, authorIds: readonly string[]): void {
  tx.delete(storyCoauthors).where(eq(storyCoauthors.storyId, storyId)).run();
  authorIds.forEach((authorId, i) => tx.insert(storyCoauthors).values({ storyId, authorId, position: i + 2 }).run());
}

/** Removes an author from the story's co-authors (they became its first author). */
export function dropCoauthor(tx: Tx, storyId: string, authorId: string | null): void {
  if (authorId === null) return;
  tx.delete(storyCoauthors).where(and(eq(storyCoauthors.storyId, storyId), eq(storyCoauthors.authorId, authorId))).run();
}
