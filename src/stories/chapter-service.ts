/**
 * A story's chapters (docs/decisions.md, "Chapters"; docs/api.md, "Chapters — /api/stories/{id}/chapters"): the text's owner.
 * Every chapter change rewrites the story's whole-work columns (`content_html`, `content_plain`,
 * `word_count`, `chapter_count`) in the same write transaction, as counts and the search index
 * are kept: the API's `contentHtml`, the lists, search and snippets read the whole work from
 * the story row and never disagree with its chapters.
 */
import type { Db, Tx } from '../db/open.js';
import { Conflict, NotFound } from '../errors.js';
import { commitImageChange } from '../images/image-changes.js';
import { releasedInlineImages } from '../images/inline-images.js';
import type { ImageStore } from '../images/store.js';
import { nextUpdatedAt, nowIso } from '../lib/clock.js';
import { findStoryStamp, storyExists, updateStory } from './repository.js';
import { storyNotFound } from './errors.js';
import { CHAPTERS_MAX, type ChapterDto, type ChapterMetaDto } from '../schemas/chapter.js';
import * as repo from './chapter-repository.js';
import { assembleWork, deriveChapter, type ChapterText, type RawChapter } from './chapter-text.js';

function chapterNotFound(storyId: string, index: number): NotFound {
  return new NotFound(`Chapter ${index} not found in story: ${storyId}`);
}

function presentChapter(row: repo.ChapterRow): ChapterDto {
  return {
    index: row.index,
    title: row.title,
    contentHtml: row.contentHtml,
    contentPlain: row.contentPlain,
    wordCount: row.wordCount,
    sourceUrl: row.sourceUrl,
    sourceGoneAt: row.sourceGoneAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const EMPTY_CHAPTER = deriveChapter({});

/** Rebuilds the story's whole-work columns from its stored chapters (inside the caller's transaction). */
export function reassembleStory(tx: Tx, storyId: string): void {
  const chapters = repo.loadChapters(tx, storyId);
  repo.writeStoryText(tx, storyId, { ...assembleWork(chapters), chapterCount: chapters.length });
}

/**
 * Makes the story's chapters exactly these (an update through `contentHtml` or `chapters`, a
 * restore). At least one chapter: none is one empty. The caller writes the whole work they make
 * and `chapterCountOf` them in its own update of the story row: writing them here as well set
 * `content_plain` twice, and the search trigger re-indexed the whole text twice.
 */
export function replaceChapters(tx: Tx, storyId: string, chapters: readonly ChapterText[], now: string): void {
  repo.deleteChapters(tx, storyId);
  insertChapters(tx, storyId, chapters, now);
}

/**
 * The chapters of a story just inserted, whose row already holds the whole work they make
 * (src/stories/service.ts `insertNewStory`): none is one empty chapter.
 */
export function insertChapters(tx: Tx, storyId: string, chapters: readonly ChapterText[], now: string): void {
  const list = chapters.length > 0 ? chapters : [EMPTY_CHAPTER];
  list.forEach((chapter, i) => repo.insertChapter(tx, storyId, i + 1, chapter, now));
}

/** Appends chapters after the last one (a refresh, a re-import) and notes when chapters arrived. */
export function appendChapters(tx: Tx, storyId: string, chapters: readonly ChapterText[], now: string): void {
  if (chapters.length === 0) return;
  let position = repo.chapterCount(tx, storyId);
  for (const chapter of chapters) repo.insertChapter(tx, storyId, ++position, chapter, now);
  updateStory(tx, storyId, { chaptersAddedAt: now });
}

function requireStory(db: Db | Tx, storyId: string): { updatedAt: string } {
  const stamp = findStoryStamp(db, storyId);
  if (stamp === undefined) throw storyNotFound(storyId);
  return stamp;
}

/** `GET /api/stories/{id}/chapters`: the contents, without text; 404 for an unknown story. */
export function listChapters(db: Db, storyId: string): ChapterMetaDto[] {
  const contents = repo.listChapterMeta(db, storyId);
  // Every story has a chapter, so an empty list is an unknown story (asked only then: reads stay on the indexes).
  if (contents.length === 0 && !storyExists(db, storyId)) throw storyNotFound(storyId);
  return contents;
}

/** A chapter to read: its entry of `contents` (the story's {@link listChapters}) and its HTML; 404 like {@link getChapter}. */
export function getChapterToRead(db: Db, storyId: string, index: number, contents: readonly ChapterMetaDto[]): ChapterMetaDto & { contentHtml: string } {
  const meta = contents[index - 1];
  const contentHtml = meta === undefined ? undefined : repo.findChapterHtml(db, storyId, index);
  if (meta === undefined || contentHtml === undefined) {
    if (!storyExists(db, storyId)) throw storyNotFound(storyId);
    throw chapterNotFound(storyId, index);
  }
  return { ...meta, contentHtml };
}

/** `GET /api/stories/{id}/chapters/{index}`; 404 for an unknown story or chapter. */
export function getChapter(db: Db, storyId: string, index: number): ChapterDto {
  const row = repo.findChapter(db, storyId, index);
  if (row === undefined) {
    requireStory(db, storyId);
    throw chapterNotFound(storyId, index);
  }
  return presentChapter(row);
}

/** What a chapter change did: the chapter's index, and its HTML before and after (null when it had none, or has none now). */
interface ChapterChange {
  index: number;
  before: string | null;
  after: string | null;
}

/**
 * Runs a chapter change: the story's stamp moves on, its whole work is rebuilt, and the imported
 * pictures the changed chapter named and no longer does are released after the commit. Only that
 * chapter's HTML is compared: a picture another chapter still names is kept by the release's own
 * reference check (src/images/image-changes.ts), so the whole work is read once, to rebuild it.
 */
async function changeChapters(db: Db, store: ImageStore, storyId: string, change: (tx: Tx, now: string) => ChapterChange): Promise<number> {
  return commitImageChange(db, store, {}, (tx) => {
    const stamp = requireStory(tx, storyId);
    const { index, before, after } = change(tx, nowIso());
    reassembleStory(tx, storyId);
    updateStory(tx, storyId, { updatedAt: nextUpdatedAt(stamp.updatedAt) });
    return { result: index, released: releasedInlineImages(before, after) };
  });
}

/** `POST /api/stories/{id}/chapters`: appends one; answers it (201). 409 past `CHAPTERS_MAX`. */
export async function addChapter(db: Db, store: ImageStore, storyId: string, raw: RawChapter): Promise<ChapterDto> {
  const chapter = deriveChapter(raw);
  const index = await changeChapters(db, store, storyId, (tx, now) => {
    const position = repo.chapterCount(tx, storyId) + 1;
    // The bound a body's `chapters` has: past it, the chapter's index is one the API refuses.
    if (position > CHAPTERS_MAX) throw new Conflict(`A story has at most ${CHAPTERS_MAX} chapters`);
    repo.insertChapter(tx, storyId, position, chapter, now);
    updateStory(tx, storyId, { chaptersAddedAt: now });
    return { index: position, before: null, after: null };
  });
  return getChapter(db, storyId, index);
}

/** `PUT /api/stories/{id}/chapters/{index}`: absent fields are kept. */
export async function editChapter(db: Db, store: ImageStore, storyId: string, index: number, raw: RawChapter): Promise<ChapterDto> {
  const current = repo.findChapter(db, storyId, index);
  if (current === undefined) {
    requireStory(db, storyId);
    throw chapterNotFound(storyId, index);
  }
  const chapter = deriveChapter({
    title: raw.title ?? current.title,
    contentHtml: raw.contentHtml === undefined ? null : raw.contentHtml,
    sourceUrl: raw.sourceUrl === undefined ? current.sourceUrl : raw.sourceUrl,
    sourceKey: current.sourceKey,
  });
  // An absent body keeps the stored text as it is, without sanitizing it again.
  const text = raw.contentHtml === undefined ? { ...chapter, contentHtml: current.contentHtml, contentPlain: current.contentPlain, wordCount: current.wordCount } : chapter;
  await changeChapters(db, store, storyId, (tx, now) => {
    // Re-read inside the transaction: the text it replaces is the one whose pictures it releases (its HTML alone).
    const replaced = repo.findChapterHtml(tx, storyId, index);
    if (replaced === undefined || !repo.updateChapter(tx, storyId, index, text, now)) throw chapterNotFound(storyId, index);
    return { index, before: replaced, after: text.contentHtml };
  });
  return getChapter(db, storyId, index);
}

/** `DELETE /api/stories/{id}/chapters/{index}`: never the last one (409). */
export async function deleteChapter(db: Db, store: ImageStore, storyId: string, index: number): Promise<void> {
  await changeChapters(db, store, storyId, (tx) => {
    const deleted = repo.findChapterHtml(tx, storyId, index);
    if (deleted === undefined) throw chapterNotFound(storyId, index);
    if (repo.chapterCount(tx, storyId) <= 1) throw new Conflict('A story keeps at least one chapter: edit it, or delete the story');
    repo.deleteChapterAt(tx, storyId, index);
    return { index, before: deleted, after: null };
  });
}
