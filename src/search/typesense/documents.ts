/**
 * Typesense documents built from the current rows (docs/architecture.md, "Ten habits", 9: the
 * worker re-reads the row by id when it delivers, so a queued change is never a stale snapshot).
 * One statement per batch: the story's author and series names and its sorted tag names (with their kinds), or the
 * author's URLs in order, come from subqueries, so a batch of 100 costs one read.
 */
import type Database from 'better-sqlite3';
import type { DbOrTx } from '../../db/open.js';
import type { StoryHitRow } from '../present.js';
import { defineStatements, sqliteClient } from '../../db/statements.js';
import { truncateCodePoints } from '../text/words.js';
import { TAG_KIND_FIELDS, type TagKind } from '../../schemas/tag.js';
import { MAX_CONTENT_CHARS, type AuthorDocument, type StoryDocument } from './schema.js';

/** The search hit's columns (./present.ts), with everything a Typesense story document adds. */
interface StoryRow extends StoryHitRow {
  description: string | null;
  contentPlain: string | null;
  authorNameKey: string | null;
  /** JSON array of the tags as [name, kind] pairs, sorted by name. */
  tags: string;
}

interface AuthorRow {
  seq: number;
  id: string;
  name: string;
  nameKey: string;
  notes: string | null;
  urls: string;
  avatarImagePath: string | null;
  rating: number | null;
  ratingSum: number;
  ratedStoryCount: number;
  storyCount: number;
  createdAt: string;
  updatedAt: string;
}

const STORY_SELECT = `SELECT s.seq, s.id, s.title, s.summary, s.description, s.content_plain AS contentPlain,
  s.author_id AS authorId, a.name AS authorName, a.name_key AS authorNameKey, s.series_id AS seriesId, se.name AS seriesName,
  s.volume, s.rating, s.word_count AS wordCount, s.cover_path AS coverPath, s.source_url AS sourceUrl,
  s.created_at AS createdAt, s.updated_at AS updatedAt, s.reading_status AS readingStatus, s.finished_at AS finishedAt,
  s.read_count AS readCount, s.favourite,
  (SELECT json_group_array(json_array(name, kind)) FROM (SELECT t.name, t.kind FROM story_tags st JOIN tags t ON t.id = st.tag_id
     WHERE st.story_id = s.id ORDER BY t.name)) AS tags
  FROM stories s LEFT JOIN authors a ON a.id = s.author_id LEFT JOIN series se ON se.id = s.series_id`;

const AUTHOR_SELECT = `SELECT a.seq, a.id, a.name, a.name_key AS nameKey, a.notes, a.avatar_image_path AS avatarImagePath,
  a.rating, a.rating_sum AS ratingSum, a.rated_story_count AS ratedStoryCount, a.story_count AS storyCount,
  a.created_at AS createdAt, a.updated_at AS updatedAt,
  (SELECT json_group_array(url) FROM (SELECT url FROM author_urls WHERE author_id = a.id ORDER BY position)) AS urls
  FROM authors a`;

const statementsFor = defineStatements((client: Database.Database) => ({
  storiesByIds: client.prepare<[string], StoryRow>(`${STORY_SELECT} WHERE s.id IN (SELECT value FROM json_each(?))`),
  storiesAfter: client.prepare<[number, number], StoryRow>(`${STORY_SELECT} WHERE s.seq > ? ORDER BY s.seq LIMIT ?`),
  authorsByIds: client.prepare<[string], AuthorRow>(`${AUTHOR_SELECT} WHERE a.id IN (SELECT value FROM json_each(?))`),
  authorsAfter: client.prepare<[number, number], AuthorRow>(`${AUTHOR_SELECT} WHERE a.seq > ? ORDER BY a.seq LIMIT ?`),
}));

/** `COLLATE NOCASE` folds ASCII letters only; the Typesense sort key does the same. */
export function titleKey(title: string): string {
  return title.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

const epochMs = (iso: string) => Date.parse(iso);

/** Sets `key` only when the value is not null (Typesense's optional fields are left out). */
function put<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | null): void {
  if (value !== null && value !== undefined) target[key] = value;
}

function storyDocument(row: StoryRow): StoryDocument {
  const tags = JSON.parse(row.tags) as [string, TagKind | null][];
  const doc: StoryDocument = {
    id: row.id,
    idKey: row.id,
    title: row.title,
    titleKey: titleKey(row.title),
    tagNames: tags.map(([name]) => name),
    wordCount: row.wordCount,
    createdAt: epochMs(row.createdAt),
    updatedAt: epochMs(row.updatedAt),
    readCount: row.readCount,
    favourite: row.favourite === 1,
  };
  put(doc, 'summary', row.summary);
  put(doc, 'description', row.description);
  put(doc, 'contentPlain', row.contentPlain === null ? null : truncateCodePoints(row.contentPlain, MAX_CONTENT_CHARS));
  put(doc, 'authorId', row.authorId);
  put(doc, 'authorName', row.authorName);
  put(doc, 'authorNameKey', row.authorNameKey);
  put(doc, 'seriesId', row.seriesId);
  put(doc, 'seriesName', row.seriesName);
  put(doc, 'volume', row.volume);
  put(doc, 'rating', row.rating);
  put(doc, 'coverPath', row.coverPath);
  put(doc, 'sourceUrl', row.sourceUrl);
  put(doc, 'readingStatus', row.readingStatus);
  put(doc, 'finishedAt', row.finishedAt === null ? null : epochMs(row.finishedAt));
  for (const [name, kind] of tags) {
    if (kind !== null) (doc[TAG_KIND_FIELDS[kind].list] ??= []).push(name);
  }
  return doc;
}

function authorDocument(row: AuthorRow): AuthorDocument {
  const doc: AuthorDocument = {
    id: row.id,
    idKey: row.id,
    name: row.name,
    nameKey: row.nameKey,
    urls: JSON.parse(row.urls) as string[],
    storyCount: row.storyCount,
    createdAt: epochMs(row.createdAt),
    updatedAt: epochMs(row.updatedAt),
  };
  put(doc, 'notes', row.notes);
  put(doc, 'avatarImagePath', row.avatarImagePath);
  put(doc, 'authorRating', row.rating);
  // The same division as presentAuthor, so both engines show the same number.
  put(doc, 'averageStoryRating', row.ratedStoryCount === 0 ? null : row.ratingSum / row.ratedStoryCount);
  return doc;
}

/** The current documents of these stories, by id; an id that is not there any more is absent. */
export function readStoryDocuments(db: DbOrTx, ids: readonly string[]): Map<string, StoryDocument> {
  const rows = statementsFor(sqliteClient(db)).storiesByIds.all(JSON.stringify(ids));
  return new Map(rows.map((row) => [row.id, storyDocument(row)]));
}

/** The current documents of these authors, by id; a deleted author is absent. */
export function readAuthorDocuments(db: DbOrTx, ids: readonly string[]): Map<string, AuthorDocument> {
  const rows = statementsFor(sqliteClient(db)).authorsByIds.all(JSON.stringify(ids));
  return new Map(rows.map((row) => [row.id, authorDocument(row)]));
}

/** One page of every story's document in `seq` order, for a full rebuild; `next` is the cursor. */
export function storyDocumentPage(db: DbOrTx, after: number, limit: number): { documents: StoryDocument[]; next: number } {
  const rows = statementsFor(sqliteClient(db)).storiesAfter.all(after, limit);
  return { documents: rows.map(storyDocument), next: rows.at(-1)?.seq ?? after };
}

/** One page of every author's document in `seq` order, for a full rebuild. */
export function authorDocumentPage(db: DbOrTx, after: number, limit: number): { documents: AuthorDocument[]; next: number } {
  const rows = statementsFor(sqliteClient(db)).authorsAfter.all(after, limit);
  return { documents: rows.map(authorDocument), next: rows.at(-1)?.seq ?? after };
}
