/**
 * Drizzle queries for stories: loading whole stories (with author/series names and tags) by id,
 * and the writes. The sorted id pages of the lists live in `page-queries.ts`.
 *
 * Reads take the database (not a transaction) so their statements are prepared once; services
 * read after their write transaction has committed. Writes take the open transaction.
 */
import { and, asc, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/open.js';
import type { DbOrTx, Tx } from '../db/transaction.js';
import { authors, series, stories, storyTags, tags, type TagRow } from '../db/schema.js';
import type { StoryWithNames } from './present.js';
import { prepared } from './statements.js';

export type NewStory = typeof stories.$inferInsert;
/** The columns a story update may set (never its id, seq or createdAt). */
export type StoryPatch = Partial<Omit<NewStory, 'id' | 'seq' | 'createdAt'>>;

/** `column IN (the ids of a JSON array)`: one bound parameter for any number of ids. */
function inJsonIds(column: typeof stories.id | typeof storyTags.storyId) {
  return sql`${column} IN (SELECT value FROM json_each(${sql.placeholder('ids')}))`;
}

const storyWithNamesColumns = { ...getTableColumns(stories), authorName: authors.name, seriesName: series.name };

/** The stories with these ids, with author and series names, in the order of `ids`. */
export function loadStories(db: Db, ids: readonly string[]): StoryWithNames[] {
  if (ids.length === 0) return [];
  const statement = prepared(db, 'storiesByIds', () =>
    db
      .select(storyWithNamesColumns)
      .from(stories)
      .leftJoin(authors, eq(authors.id, stories.authorId))
      .leftJoin(series, eq(series.id, stories.seriesId))
      .where(inJsonIds(stories.id))
      .prepare(),
  );
  const rows = statement.all({ ids: JSON.stringify(ids) });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * The tags of every given story in ONE query (no query per story), each story's tags sorted
 * by name. Stories without tags map to nothing; callers default to `[]`.
 */
export function loadTagsOf(db: Db, storyIds: readonly string[]): Map<string, TagRow[]> {
  const byStory = new Map<string, TagRow[]>();
  if (storyIds.length === 0) return byStory;
  const statement = prepared(db, 'tagsByStoryIds', () =>
    db
      .select({ storyId: storyTags.storyId, ...getTableColumns(tags) })
      .from(storyTags)
      .innerJoin(tags, eq(tags.id, storyTags.tagId))
      .where(inJsonIds(storyTags.storyId))
      .orderBy(asc(tags.name), asc(tags.id))
      .prepare(),
  );
  for (const { storyId, ...tag } of statement.all({ ids: JSON.stringify(storyIds) })) {
    const list = byStory.get(storyId);
    if (list === undefined) byStory.set(storyId, [tag]);
    else list.push(tag);
  }
  return byStory;
}

/**
 * The story's `updatedAt` and `coverPath`, or undefined when there is no such story (cheap
 * existence check; the cover is what an image change releases).
 */
export function findStoryStamp(db: DbOrTx, id: string): { updatedAt: string; coverPath: string | null } | undefined {
  return db.select({ updatedAt: stories.updatedAt, coverPath: stories.coverPath }).from(stories).where(eq(stories.id, id)).get();
}

export function insertStory(tx: Tx, values: NewStory): void {
  tx.insert(stories).values(values).run();
}

export function updateStory(tx: Tx, id: string, patch: StoryPatch): void {
  tx.update(stories).set(patch).where(eq(stories.id, id)).run();
}

/**
 * Deletes the story; its tag links go with it (foreign-key cascade). Returns the deleted row's
 * `coverPath` (for the caller to remove the file after commit), or undefined when absent.
 */
export function deleteStory(tx: Tx, id: string): { coverPath: string | null } | undefined {
  return tx.delete(stories).where(eq(stories.id, id)).returning({ coverPath: stories.coverPath }).get();
}

export function tagIdsOf(tx: Tx, storyId: string): string[] {
  return tx
    .select({ tagId: storyTags.tagId })
    .from(storyTags)
    .where(eq(storyTags.storyId, storyId))
    .all()
    .map((row) => row.tagId);
}

/** Links the tags to the story; links that already exist are left alone. Returns how many were new. */
export function linkTags(tx: Tx, storyId: string, tagIds: readonly string[]): number {
  if (tagIds.length === 0) return 0;
  return tx
    .insert(storyTags)
    .values(tagIds.map((tagId) => ({ storyId, tagId })))
    .onConflictDoNothing()
    .run().changes;
}

/** Removes these tag links from the story. Returns how many existed. */
export function unlinkTags(tx: Tx, storyId: string, tagIds: readonly string[]): number {
  if (tagIds.length === 0) return 0;
  return tx
    .delete(storyTags)
    .where(and(eq(storyTags.storyId, storyId), inArray(storyTags.tagId, [...tagIds])))
    .run().changes;
}
