/**
 * The record of every book handed out (docs/decisions.md, "EPUB export" and "KOReader sync"):
 * what lets KOReader sync map a document hash back to stories, for as long as the story, series
 * or tag exists. A book's bytes depend only on its contents: its `dcterms:modified` is the time
 * those contents were first made into a book (reused from the earlier rendition with the same
 * content digest), so an edit that changes nothing in the book (a rating, a read mark) gives the
 * same file and the same hash.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db/open.js';
import { bookkeepingTransaction } from '../db/bookkeeping.js';
import { nowIso } from '../lib/clock.js';
import { assembleWork, type WorkPart } from '../stories/chapter-text.js';
import { fileNameDigest } from './file-names.js';
import { insertRendition, modifiedOfContents, pruneBook, pruneSearchBooks, upsertNamedRendition, type RenditionRow } from './repository.js';
import type { SpineDocument } from './documents.js';
import type { ZipEntry } from './zip.js';

type BookKind = RenditionRow['kind'];

/**
 * Rows kept per book (file hashes and file names together), newest first. Equal bytes are one
 * row, so a story book reaches 1,000 only after 1,000 downloads of different contents; a series
 * or tag book changes with any of its stories and holds up to 200 of them, so its rows are
 * larger and fewer are kept; a search book is made again for every query.
 */
export const RENDITIONS_PER_BOOK: Readonly<Record<BookKind, number>> = { story: 1000, series: 200, tag: 200, search: 20, shelf: 200 };
/** Search-book rows kept overall: queries are not bounded by the library. */
export const SEARCH_RENDITIONS_KEPT = 10_000;

/** Stands in for `dcterms:modified` while the contents are digested. */
export const UNSTAMPED = '1970-01-01T00:00:00.000Z';

/** SHA-256 of the book's entries (names and bytes, in order), made with {@link UNSTAMPED} as their stamp. */
export function contentDigest(entries: readonly ZipEntry[]): string {
  const digest = createHash('sha256');
  for (const entry of entries) {
    digest.update(`${entry.name}\n${entry.bytes.length}\n`);
    digest.update(entry.bytes);
  }
  return digest.digest('hex');
}

/**
 * A digest of a story's text as a book writes it: what a KOReader position's block numbers
 * depend on. Equal while the stored HTML is (a retitle or a tag edit keeps it).
 */
export function storyTextDigest(contentHtml: string | null): string {
  return createHash('sha256')
    .update(contentHtml ?? '')
    .digest('hex')
    .slice(0, 32);
}

/**
 * {@link storyTextDigest} of the whole work these chapters make (src/stories/chapter-text.ts
 * `assembleWork`, which the stored `contentHtml` is): a book already holds the chapters, so the
 * story's whole text is not read a second time for it.
 */
export function workTextDigest(chapters: readonly WorkPart[]): string {
  return storyTextDigest(chapters.length === 0 ? null : assembleWork(chapters).contentHtml);
}

/** The stamp a book with this content digest carries: an earlier rendition's, else `fallback` (the newest change of its stories). */
export function bookStamp(db: Db, kind: BookKind, entityKey: string, digest: string, fallback: string): string {
  return modifiedOfContents(db, kind, entityKey, digest) ?? fallback;
}

export interface HandedOut {
  kind: BookKind;
  entityKey: string;
  /** KOReader's partial MD5 of the bytes. */
  hash: string;
  contentDigest: string;
  modified: string;
  /** Per story, in order: {@link storyTextDigest} of its whole-work HTML (what a book made before chapters is checked against). */
  texts: readonly string[];
  /** The story pages after the title page, in spine order (src/epub/documents.ts). */
  pages: readonly SpineDocument[];
  /** The names the file may be saved under (src/epub/file-names.ts). */
  fileNames: readonly string[];
}

/**
 * Records a book handed out: its file hash (kept with its first row), the digest of each name it
 * may be saved under (moved to this version), then the book's bound and, for a search book, the
 * overall one. One bookkeeping transaction.
 */
export function recordRendition(db: Db, book: HandedOut): void {
  const row: RenditionRow = {
    hash: book.hash,
    kind: book.kind,
    entityKey: book.entityKey,
    entityVersion: book.contentDigest,
    spine: JSON.stringify([null, ...book.pages]),
    createdAt: nowIso(),
    contentDigest: book.contentDigest,
    modified: book.modified,
    texts: JSON.stringify(book.texts),
    byName: false,
  };
  bookkeepingTransaction(db, (tx) => {
    insertRendition(tx, row);
    for (const name of book.fileNames) {
      const hash = fileNameDigest(name);
      if (hash !== book.hash) upsertNamedRendition(tx, { ...row, hash, byName: true });
    }
    pruneBook(tx, book.kind, book.entityKey, RENDITIONS_PER_BOOK[book.kind]);
    if (book.kind === 'search') pruneSearchBooks(tx, SEARCH_RENDITIONS_KEPT);
  });
}
