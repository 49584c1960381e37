/**
 * Queries for EPUB export (docs/decisions.md, "EPUB export"): the stories a book is made of, with
 * the author, series and tag names its metadata needs, and the `epub_renditions` record of every
 * file handed out (what KOReader sync maps a document hash back through).
 */
import { and, asc, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../db/open.js';
import { authors, epubRenditions, series, stories, storyCoauthors, storyTags, tags } from '../db/schema.js';

/** One story as a book needs it. */
export interface BookStoryRow {
  id: string;
  title: string;
  summary: string | null;
  description: string | null;
  sourceUrl: string | null;
  coverPath: string | null;
  volume: number | null;
  updatedAt: string;
  author: string | null;
  seriesId: string | null;
  seriesName: string | null;
  status: 'complete' | 'in-progress' | null;
  publishedAt: string | null;
  sourceUpdatedAt: string | null;
  language: string | null;
  tags: string[];
  /** Every author in order: `author`, then the co-authors. */
  authors: string[];
}

const STORY_COLUMNS = {
  id: stories.id,
  title: stories.title,
  summary: stories.summary,
  description: stories.description,
  sourceUrl: stories.sourceUrl,
  coverPath: stories.coverPath,
  volume: stories.volume,
  updatedAt: stories.updatedAt,
  author: authors.name,
  seriesId: stories.seriesId,
  seriesName: series.name,
  status: stories.status,
  publishedAt: stories.publishedAt,
  sourceUpdatedAt: stories.sourceUpdatedAt,
  language: stories.language,
};

/** Groups `{storyId, name}` rows into each of these stories' names, in the rows' order. */
function namesByStory(ids: readonly string[], rows: ReadonlyArray<{ storyId: string; name: string }>): Map<string, string[]> {
  const names = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const row of rows) names.get(row.storyId)?.push(row.name);
  return names;
}

/** Co-author names of each of these stories, in their order: one statement for the lot (the caller skips an empty `ids`). */
function coauthorNamesOf(db: DbOrTx, ids: readonly string[]): Map<string, string[]> {
  const rows = db
    .select({ storyId: storyCoauthors.storyId, name: authors.name })
    .from(storyCoauthors)
    .innerJoin(authors, eq(authors.id, storyCoauthors.authorId))
    .where(inArray(storyCoauthors.storyId, [...ids]))
    .orderBy(asc(storyCoauthors.position))
    .all();
  return namesByStory(ids, rows);
}

/** Tag names of each of these stories, A to Z: one statement for the lot (the caller skips an empty `ids`). */
function tagNamesOf(db: DbOrTx, ids: readonly string[]): Map<string, string[]> {
  const rows = db
    .select({ storyId: storyTags.storyId, name: tags.name })
    .from(storyTags)
    .innerJoin(tags, eq(tags.id, storyTags.tagId))
    .where(inArray(storyTags.storyId, [...ids]))
    .orderBy(asc(tags.nameKey))
    .all();
  return namesByStory(ids, rows);
}

/**
 * The stories with these ids, in the order given (missing ids skipped), with their names,
 * co-authors and tags. The caller bounds `ids` (`MAX_BOOK_STORIES`), so the IN list stays small.
 */
export function loadBookStories(db: DbOrTx, ids: readonly string[]): BookStoryRow[] {
  if (ids.length === 0) return [];
  const rows = db
    .select(STORY_COLUMNS)
    .from(stories)
    .leftJoin(authors, eq(authors.id, stories.authorId))
    .leftJoin(series, eq(series.id, stories.seriesId))
    .where(inArray(stories.id, [...ids]))
    .all();
  const byId = new Map(rows.map((row) => [row.id, row]));
  const tagNames = tagNamesOf(db, ids);
  const coauthors = coauthorNamesOf(db, ids);
  return ids.flatMap((id) => {
    const row = byId.get(id);
    if (row === undefined) return [];
    const names = [...(row.author === null ? [] : [row.author]), ...(coauthors.get(id) ?? [])];
    return [{ ...row, tags: tagNames.get(id) ?? [], authors: names }];
  });
}

/** Each of these stories' `updatedAt`, in the order given (missing ids skipped): what {@link loadBookStories} would stamp a book with. */
export function loadStoryStamps(db: DbOrTx, ids: readonly string[]): Array<{ id: string; updatedAt: string }> {
  if (ids.length === 0) return [];
  const rows = db.select({ id: stories.id, updatedAt: stories.updatedAt }).from(stories).where(inArray(stories.id, [...ids])).all();
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Ids of the stories of a series in reading order (volume, stories without one last, then
 * creation), at most `limit`; the series index `stories_series_idx` serves it.
 */
export function seriesStoryIds(db: DbOrTx, seriesId: string, limit: number): string[] {
  return db
    .select({ id: stories.id })
    .from(stories)
    .where(eq(stories.seriesId, seriesId))
    .orderBy(sql`${stories.volume} IS NULL`, asc(stories.volume), asc(stories.createdAt), asc(stories.id))
    .limit(limit)
    .all()
    .map((row) => row.id);
}

/** Ids of the stories with a tag, oldest first (the order they were added to the library), at most `limit`. */
export function tagStoryIds(db: DbOrTx, tagId: string, limit: number): string[] {
  return db
    .select({ id: stories.id })
    .from(storyTags)
    .innerJoin(stories, eq(stories.id, storyTags.storyId))
    .where(eq(storyTags.tagId, tagId))
    .orderBy(asc(stories.createdAt), asc(stories.id))
    .limit(limit)
    .all()
    .map((row) => row.id);
}

/** One row of `epub_renditions`: a book handed out, under its file hash or a file name's. */
export type RenditionRow = typeof epubRenditions.$inferSelect;

/** Records a book's file hash; a hash already recorded keeps its first row (same bytes, same meaning). */
export function insertRendition(tx: Tx, row: RenditionRow): void {
  tx.insert(epubRenditions).values(row).onConflictDoNothing().run();
}

/**
 * Records a file name's digest as meaning this book's newest version: a name is the same for
 * every version of a book, so it follows the latest download (docs/decisions.md, "KOReader sync").
 */
export function upsertNamedRendition(tx: Tx, row: RenditionRow): void {
  const { hash: _hash, ...rest } = row;
  tx.insert(epubRenditions).values(row).onConflictDoUpdate({ target: epubRenditions.hash, set: rest }).run();
}

/**
 * Keeps the newest `keep` rows of one book (its entity index walks them newest first) and
 * deletes the rest. Returns how many went.
 */
export function pruneBook(tx: Tx, kind: RenditionRow['kind'], entityKey: string, keep: number): number {
  const edge = tx
    .select({ createdAt: epubRenditions.createdAt })
    .from(epubRenditions)
    .where(and(eq(epubRenditions.kind, kind), eq(epubRenditions.entityKey, entityKey)))
    .orderBy(desc(epubRenditions.createdAt))
    .limit(1)
    .offset(Math.max(0, keep - 1))
    .get();
  if (edge === undefined) return 0;
  // The edge is the oldest row kept; rows sharing its stamp stay too (a handful, written in the same millisecond).
  return tx
    .delete(epubRenditions)
    .where(and(eq(epubRenditions.kind, kind), eq(epubRenditions.entityKey, entityKey), lt(epubRenditions.createdAt, edge.createdAt)))
    .run().changes;
}

/** Keeps the newest `keep` rows of search books overall (their number follows the queries asked, not the library). */
export function pruneSearchBooks(tx: Tx, keep: number): number {
  const edge = tx
    .select({ createdAt: epubRenditions.createdAt })
    .from(epubRenditions)
    .where(eq(epubRenditions.kind, 'search'))
    .orderBy(desc(epubRenditions.createdAt))
    .limit(1)
    .offset(Math.max(0, keep - 1))
    .get();
  if (edge === undefined) return 0;
  return tx.delete(epubRenditions).where(and(eq(epubRenditions.kind, 'search'), lt(epubRenditions.createdAt, edge.createdAt))).run().changes;
}

/**
 * The `dcterms:modified` of an earlier rendition of this book with exactly these contents, or
 * undefined: reused, it makes equal contents give equal bytes whatever changed around them.
 */
export function modifiedOfContents(db: DbOrTx, kind: RenditionRow['kind'], entityKey: string, contentDigest: string): string | undefined {
  const row = db
    .select({ modified: epubRenditions.modified })
    .from(epubRenditions)
    .where(and(eq(epubRenditions.kind, kind), eq(epubRenditions.entityKey, entityKey), eq(epubRenditions.contentDigest, contentDigest)))
    .orderBy(asc(epubRenditions.createdAt))
    .limit(1)
    .get();
  return row?.modified ?? undefined;
}

/** The rendition with this KOReader document hash (of the file, or of a name it was offered under), or undefined. */
export function findRendition(db: DbOrTx, hash: string): RenditionRow | undefined {
  return db.select().from(epubRenditions).where(eq(epubRenditions.hash, hash)).get();
}

/** Deletes every record of one book: a shelf's when the shelf goes (stories, series and tags have triggers for it). */
export function deleteBookRenditions(tx: Tx, kind: RenditionRow['kind'], entityKey: string): number {
  return tx.delete(epubRenditions).where(and(eq(epubRenditions.kind, kind), eq(epubRenditions.entityKey, entityKey))).run().changes;
}
