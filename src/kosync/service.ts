/**
 * KOReader sync (docs/decisions.md, "KOReader sync"; docs/api.md, "KOReader sync"). A document
 * hash that names a Storyshelf EPUB (`epub_renditions`) is a position in a story: KOReader's
 * xpointer is turned into the web reader's block index and saved as the story's reading
 * progress, and the story's progress, wherever it was saved, is turned back into an xpointer in
 * that file. Any other document is kept as KOReader sent it (`kosync_documents`), so the library
 * is also a plain sync server for the reader's other books.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db/open.js';
import { NotFound } from '../errors.js';
import { bookkeepingTransaction } from '../db/bookkeeping.js';
import { findRendition, loadStoryStamps, type RenditionRow } from '../epub/repository.js';
import { storyTextDigest, workTextDigest } from '../epub/renditions.js';
import { pageBlocks, type SpineDocument } from '../epub/documents.js';
import { chapterBlocks, storyBody, type BodyBlock } from '../epub/xhtml.js';
import { chapterCount, findChapterHtml, listChapterMeta, loadChapters } from '../stories/chapter-repository.js';
import { assembleWork } from '../stories/chapter-text.js';
import type { KosyncProgressBody, KosyncProgressDto, KosyncSaved } from '../schemas/kosync.js';
import { newestProgressAmong } from '../stories/progress-repository.js';
import { findStoryHead } from '../stories/repository.js';
import { saveProgress } from '../stories/progress-service.js';
import { findKosyncDocument, pruneKosyncDocuments, saveKosyncDocument, type KosyncDocumentRow } from './repository.js';
import { fragmentStart, parseXPointer, webBlockCount, webIndexOf, xpointerOf } from './xpointer.js';

/** Documents whose KOReader record is kept; older ones are forgotten (a device then finds no progress for them). */
export const KOSYNC_DOCUMENTS_KEPT = 10_000;

/** How a position saved in Storyshelf (the web reader, the API) names its device to KOReader. */
export const STORYSHELF_DEVICE = 'Storyshelf';
export const STORYSHELF_DEVICE_ID = 'storyshelf';

/**
 * One spine item of a rendition: null for the title page, a story id for a book made before
 * chapters (one page per story, its whole text), or the story page record of src/epub/documents.ts.
 */
type SpineItem = null | string | SpineDocument;

/** A book as KOReader sync sees it: its spine, its stories, and what each story's text was in the file. */
interface Book {
  rendition: RenditionRow;
  spine: SpineItem[];
  storyIds: string[];
  /** Per story of `storyIds`: the digest of its whole text in the file; null for a row made before texts were recorded. */
  texts: string[] | null;
}

/** A position in one story, as the web reader saves it: `chapter` 1-based or null, `progress` of the whole work, `position` a block of the chapter. */
interface StoryPosition {
  storyId: string;
  chapter: number | null;
  progress: number;
  position: string | null;
}

const clamp = (value: number) => Math.min(1, Math.max(0, value));

const storyOf = (item: SpineItem): string | null => (item === null || typeof item === 'string' ? item : item.story);

function openBook(rendition: RenditionRow): Book {
  const spine = JSON.parse(rendition.spine) as SpineItem[];
  const storyIds = [...new Set(spine.map(storyOf).filter((id): id is string => id !== null))];
  return { rendition, spine, storyIds, texts: rendition.texts === null ? null : (JSON.parse(rendition.texts) as string[]) };
}

/**
 * A row made before texts were recorded names its version by the stories' `updatedAt` (one
 * story's, or a digest of each id and stamp): unchanged only while no story of the book was
 * edited in any way.
 */
function legacyUnchanged(db: Db, book: Book): boolean {
  const stamps = loadStoryStamps(db, book.storyIds);
  if (stamps.length !== book.storyIds.length) return false;
  if (book.rendition.kind === 'story' && stamps.length === 1) return stamps[0]!.updatedAt === book.rendition.entityVersion;
  const digest = createHash('sha256');
  for (const story of stamps) digest.update(`${story.id}\n${story.updatedAt}\n`);
  return digest.digest('hex').slice(0, 32) === book.rendition.entityVersion;
}

/**
 * The top-level blocks of a story's one page in a book made before chapters, when the file still
 * holds the text the story has now and that text is its only chapter (a block of such a page is
 * then a block of chapter 1); undefined otherwise.
 */
function wholeStoryBlocks(db: Db, book: Book, storyId: string): BodyBlock[] | undefined {
  // The title alone, from the head's index: a book's story row would walk the whole work's text to reach its other columns.
  const story = findStoryHead(db, storyId);
  // Counted first: a story of many chapters is answered without reading their texts.
  if (story === undefined || chapterCount(db, storyId) !== 1) return undefined;
  const chapters = loadChapters(db, storyId);
  const unchanged = book.texts === null ? legacyUnchanged(db, book) : book.texts[book.storyIds.indexOf(storyId)] === workTextDigest(chapters);
  return unchanged ? storyBody(story.title, assembleWork(chapters).contentHtml ?? '', () => undefined).blocks : undefined;
}

/** The blocks of chapter `chapter` as the book wrote them, when the chapter's text is still what the file holds; undefined otherwise. */
function chapterBlocksInFile(db: Db, item: SpineDocument): BodyBlock[] | undefined {
  // The HTML alone: the chapter's plain text, after it in the row, is not read.
  const html = findChapterHtml(db, item.story, item.chapter);
  if (html === undefined || storyTextDigest(html) !== item.text) return undefined;
  return chapterBlocks(html, () => undefined).blocks;
}

/**
 * The fraction of the whole work at `share` of chapter `chapter`: the words of the chapters
 * before it and that share of its own, over the story's words (chapters counted alike when the
 * story has no words).
 */
function workFraction(db: Db, storyId: string, chapter: number, share: number): number {
  const chapters = listChapterMeta(db, storyId);
  const total = chapters.reduce((sum, each) => sum + each.wordCount, 0);
  const at = chapters.findIndex((each) => each.index === chapter);
  if (at < 0) return 0;
  if (total === 0) return clamp((at + share) / chapters.length);
  const before = chapters.slice(0, at).reduce((sum, each) => sum + each.wordCount, 0);
  return clamp((before + share * chapters[at]!.wordCount) / total);
}

/**
 * The story position a KOReader position in this book means. The spine item names the story
 * and, in a book made with chapters, the chapter (a pointer without one, such as a page number,
 * picks the story by percentage); the first element under its body names the block,
 * paragraph-exactly, while the chapter's text is unchanged since the file was made. Otherwise
 * only the fraction is kept (position null). The title page is the first story's top.
 */
function storyPositionOf(db: Db, book: Book, progress: string, percentage: number): StoryPosition | undefined {
  const count = book.storyIds.length;
  if (count === 0) return undefined;
  const pointer = parseXPointer(progress);
  const item = pointer === undefined ? undefined : book.spine[pointer.fragment - 1];
  if (item === null) return { storyId: book.storyIds[0]!, chapter: 1, progress: 0, position: null };
  const storyId = item === undefined ? book.storyIds[Math.min(count - 1, Math.floor(percentage * count))]! : storyOf(item)!;
  const ordinal = book.storyIds.indexOf(storyId);
  const share = count === 1 ? clamp(percentage) : clamp(percentage * count - ordinal);
  if (item === undefined) return { storyId, chapter: null, progress: share, position: null };
  if (typeof item === 'string') {
    const blocks = pointer?.step === undefined ? undefined : wholeStoryBlocks(db, book, storyId);
    const index = blocks === undefined ? undefined : webIndexOf(blocks, pointer!.step!);
    if (blocks === undefined || index === undefined) return { storyId, chapter: null, progress: share, position: null };
    const blockShare = index / Math.max(1, webBlockCount(blocks));
    return { storyId, chapter: 1, progress: count === 1 ? clamp(percentage) : clamp(blockShare), position: String(index) };
  }
  // A chapter deleted since the file was made: saving it would be refused (400), and KOReader
  // understands only 200 here, so only the fraction is kept.
  if (item.chapter > chapterCount(db, storyId)) return { storyId, chapter: null, progress: share, position: null };
  const blocks = pointer?.step === undefined ? undefined : chapterBlocksInFile(db, item);
  const index = blocks === undefined ? undefined : webIndexOf(pageBlocks(item, blocks), pointer!.step!);
  if (blocks === undefined || index === undefined) return { storyId, chapter: item.chapter, progress: share, position: null };
  const fraction = workFraction(db, storyId, item.chapter, index / Math.max(1, webBlockCount(blocks)));
  return { storyId, chapter: item.chapter, progress: count === 1 ? clamp(percentage) : fraction, position: String(index) };
}

/**
 * The xpointer for a saved web position in a book made with chapters: the saved block in the
 * page that holds it, or the start of the chapter's first page when the block cannot be placed
 * (no block saved, the chapter's text changed); the story's first page when the chapter is not
 * known or not in the book.
 */
function chapterPointer(db: Db, book: Book, storyId: string, chapter: number | null, position: string | null): string {
  const items = book.spine.flatMap((item, i) => (item !== null && typeof item !== 'string' && item.story === storyId ? [{ item, fragment: i + 1 }] : []));
  const ofChapter = items.filter((each) => each.item.chapter === chapter);
  const first = ofChapter[0] ?? items[0];
  if (first === undefined) return fragmentStart(1);
  if (ofChapter.length === 0 || position === null || !/^\d{1,7}$/.test(position)) return fragmentStart(first.fragment);
  const blocks = chapterBlocksInFile(db, first.item);
  if (blocks === undefined) return fragmentStart(first.fragment);
  for (const { item, fragment } of ofChapter) {
    const pointer = xpointerOf(fragment, pageBlocks(item, blocks), Number(position));
    if (pointer !== undefined) return pointer;
  }
  return fragmentStart(first.fragment);
}

function present(row: KosyncDocumentRow): KosyncProgressDto {
  return { document: row.document, progress: row.progress, percentage: row.percentage, device: row.device, device_id: row.deviceId, timestamp: row.timestamp };
}

/**
 * Saves what KOReader sent: always as the document's KOReader record (bounded to
 * {@link KOSYNC_DOCUMENTS_KEPT}), and, for a Storyshelf book, as the reading progress of the story
 * it points into. Two transactions: the record and the story's progress are separate facts, and
 * saving progress is the story domain's own write.
 */
export function saveKoreaderProgress(db: Db, body: KosyncProgressBody, nowMs: number): KosyncSaved {
  const row: KosyncDocumentRow = {
    document: body.document,
    progress: String(body.progress),
    percentage: body.percentage,
    device: body.device,
    deviceId: body.device_id,
    timestamp: Math.floor(nowMs / 1000),
  };
  const rendition = findRendition(db, body.document);
  const position = rendition === undefined ? undefined : storyPositionOf(db, openBook(rendition), row.progress, body.percentage);
  bookkeepingTransaction(db, (tx) => {
    saveKosyncDocument(tx, row);
    pruneKosyncDocuments(tx, KOSYNC_DOCUMENTS_KEPT);
  });
  try {
    if (position !== undefined) saveProgress(db, position.storyId, { progress: position.progress, position: position.position, chapter: position.chapter });
  } catch (error) {
    // The story was deleted since the book was made: KOReader's record is kept all the same,
    // and KOReader understands only 200 here.
    if (!(error instanceof NotFound)) throw error;
  }
  return { document: row.document, timestamp: row.timestamp };
}

/**
 * The position to hand KOReader for a document, or `{}`. For a Storyshelf book: the most
 * recently read of its stories, as an xpointer to that block (or to the story's start when the
 * stories changed since the file was made, or no block was saved), unless KOReader's own record
 * still means exactly that position, which is then returned as sent (it points inside the
 * paragraph, and names the device).
 */
export function koreaderProgress(db: Db, document: string): KosyncProgressDto {
  const record = findKosyncDocument(db, document);
  const rendition = findRendition(db, document);
  if (rendition === undefined) return record === undefined ? {} : present(record);
  const book = openBook(rendition);
  const latest = newestProgressAmong(db, book.storyIds);
  if (latest === undefined) return record === undefined ? {} : present(record);
  if (record !== undefined) {
    const meant = storyPositionOf(db, book, record.progress, record.percentage);
    if (
      meant !== undefined &&
      meant.storyId === latest.storyId &&
      meant.chapter === latest.chapter &&
      meant.position === latest.position &&
      meant.progress === latest.progress
    )
      return present(record);
  }
  const ordinal = book.storyIds.indexOf(latest.storyId);
  const count = book.storyIds.length;
  const legacy = book.spine.some((item) => typeof item === 'string');
  // A position saved before chapters is a block of the whole work: chapter 1's when the story is one chapter.
  const chapter = latest.chapter ?? (chapterCount(db, latest.storyId) === 1 ? 1 : null);
  let progress: string;
  if (legacy) {
    const fragment = book.spine.indexOf(latest.storyId) + 1;
    progress = fragmentStart(fragment);
    if (chapter === 1 && latest.position !== null && /^\d{1,7}$/.test(latest.position)) {
      const blocks = wholeStoryBlocks(db, book, latest.storyId);
      progress = (blocks === undefined ? undefined : xpointerOf(fragment, blocks, Number(latest.position))) ?? progress;
    }
  } else progress = chapterPointer(db, book, latest.storyId, chapter, latest.position);
  return {
    document,
    progress,
    percentage: count === 1 ? latest.progress : (ordinal + latest.progress) / count,
    device: STORYSHELF_DEVICE,
    device_id: STORYSHELF_DEVICE_ID,
    timestamp: Math.floor(Date.parse(latest.updatedAt) / 1000),
  };
}
