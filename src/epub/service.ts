/**
 * EPUB export (docs/decisions.md, "EPUB export"; docs/api.md, "EPUB export"): a story, a series,
 * a tag or a search result as one EPUB 3 book, built in memory, bounded, and byte for byte the
 * same for the same contents. Every book handed out is recorded in `epub_renditions` under its
 * KOReader document hash (./renditions.ts), so KOReader sync can map a position in it back to a story.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db/open.js';
import { NotFound, TooLarge } from '../errors.js';
import { storedImageOfSource } from '../images/inline-images.js';
import type { ImageStore } from '../images/store.js';
import { Semaphore } from '../lib/semaphore.js';
import type { SearchEngine } from '../search/engine.js';
import { storySearchRequest } from '../search/service.js';
import { findSeriesById } from '../series/repository.js';
import { seriesNotFound } from '../series/service.js';
import { storyNotFound } from '../stories/service.js';
import { findTagById } from '../tags/repository.js';
import { tagNotFound } from '../tags/service.js';
import { loadChapters } from '../stories/chapter-repository.js';
import { CONTAINER_XML, STYLE_CSS, contentOpf, navXhtml, titlePage, tocNcx, type BookMeta, type BookResource, type ContentsEntry } from './package.js';
import { storyPages, type PageStory, type StoryPage } from './documents.js';
import { koreaderPartialMd5 } from './partial-md5.js';
import { bookFileNames } from './file-names.js';
import { bookStamp, contentDigest, recordRendition, storyTextDigest, UNSTAMPED, workTextDigest } from './renditions.js';
import { loadBookStories, seriesStoryIds, tagStoryIds, type BookStoryRow, type RenditionRow } from './repository.js';
import { chapterBlocks, ownImagePaths, type ImageResolver } from './xhtml.js';
import { zipEntries, type ZipEntry } from './zip.js';

/** Most stories in one book: a series, tag or search with more is refused (413). */
export const MAX_BOOK_STORIES = 200;
/** Most bytes of text and images in one book before zipping (413 beyond): the book is built in memory. */
export const MAX_BOOK_BYTES = 50 * 1024 * 1024;
/**
 * Books built at once; more wait their turn. Each holds its text and images in memory (up to
 * {@link MAX_BOOK_BYTES}), so this bounds the memory of concurrent downloads to about 100 MiB.
 */
const MAX_CONCURRENT_BUILDS = 2;

/** The queue of book builds, one per app (src/epub/plugin.ts), shared by every route that hands out books. */
export function bookBuilds(): Semaphore {
  return new Semaphore(MAX_CONCURRENT_BUILDS);
}

/** What making a book needs: the library, its images, and the app's build queue ({@link bookBuilds}). */
export interface EpubDeps {
  db: Db;
  images: ImageStore;
  builds: Semaphore;
}

/** Authors and subjects listed in a book's metadata at most (a tag book can have hundreds). */
const MAX_LISTED = 50;
/** The language of a story that records none, and of a book whose stories do not share one. */
const DEFAULT_LANGUAGE = 'en';

export type BookKind = RenditionRow['kind'];

export interface EpubFile {
  bytes: Buffer;
  /** The download's name, without `.epub` (the route makes the header from it). */
  title: string;
  /** KOReader's partial MD5 of the bytes. */
  hash: string;
}

function tooManyStories(count: number): TooLarge {
  return new TooLarge(`A book holds at most ${MAX_BOOK_STORIES} stories; this one would hold ${count}`, {
    stories: `must be at most ${MAX_BOOK_STORIES}`,
  });
}

function tooManyBytes(): TooLarge {
  return new TooLarge(`A book holds at most ${MAX_BOOK_BYTES / 1024 / 1024} MiB of text and images`, { bytes: `must be at most ${MAX_BOOK_BYTES}` });
}

const EXTENSIONS: Readonly<Record<string, string>> = { 'image/jpeg': 'jpg', 'image/png': 'png' };

/** Tracks the book's size as parts are added, refusing past {@link MAX_BOOK_BYTES}. */
class Budget {
  used = 0;
  add(bytes: number): void {
    this.used += bytes;
    if (this.used > MAX_BOOK_BYTES) throw tooManyBytes();
  }
}

/**
 * A stored JPEG or PNG read whole (the store caps images at 5 MiB), or undefined when the path
 * is not a stored image or is WebP: WebP is only an EPUB 3.3 core type, so older readers and
 * epubcheck 4 reject it, and the book shows the alt text instead (docs/decisions.md, "EPUB export").
 */
async function readEmbeddable(store: ImageStore, relPath: string, budget: Budget): Promise<{ mediaType: string; bytes: Buffer } | undefined> {
  let opened;
  try {
    opened = await store.openImage(relPath);
  } catch {
    return undefined;
  }
  if (EXTENSIONS[opened.contentType] === undefined) {
    await opened.close();
    return undefined;
  }
  budget.add(opened.size);
  const chunks: Buffer[] = [];
  for await (const chunk of opened.stream()) chunks.push(chunk as Buffer);
  return { mediaType: opened.contentType, bytes: Buffer.concat(chunks) };
}

interface BookSpec {
  kind: BookKind;
  entityKey: string;
  meta: Omit<BookMeta, 'cover'>;
  stories: readonly BookStoryRow[];
  /** The download's name, without `.epub`. */
  downloadTitle: string;
}

/** Builds the book's bytes, records the rendition, and returns the file; at most {@link MAX_CONCURRENT_BUILDS} at once. */
function makeBook({ db, images, builds }: EpubDeps, spec: BookSpec): Promise<EpubFile> {
  return builds.run(() => buildBook(db, images, spec));
}

async function buildBook(db: Db, store: ImageStore, spec: BookSpec): Promise<EpubFile> {
  const budget = new Budget();
  const resources: BookResource[] = [];

  let cover: BookResource | null = null;
  for (const story of spec.stories) {
    if (story.coverPath === null) continue;
    const image = await readEmbeddable(store, story.coverPath, budget);
    if (image === undefined) continue;
    cover = { href: `images/cover.${EXTENSIONS[image.mediaType]}`, ...image };
    resources.push(cover);
    break;
  }

  const chaptersOf = new Map(spec.stories.map((story) => [story.id, loadChapters(db, story.id)]));
  const imageHrefs = new Map<string, string | undefined>();
  for (const chapters of chaptersOf.values()) {
    for (const relPath of chapters.flatMap((chapter) => ownImagePaths(chapter.contentHtml))) {
      if (imageHrefs.has(relPath)) continue;
      const image = await readEmbeddable(store, relPath, budget);
      if (image === undefined) {
        imageHrefs.set(relPath, undefined);
        continue;
      }
      const resource = { href: `images/image-${resources.length + 1}.${EXTENSIONS[image.mediaType]}`, ...image };
      resources.push(resource);
      imageHrefs.set(relPath, resource.href);
    }
  }
  const resolveImage: ImageResolver = (src) => {
    const relPath = storedImageOfSource(src);
    return relPath === undefined ? undefined : imageHrefs.get(relPath);
  };

  const meta: BookMeta = { ...spec.meta, cover };
  const collection = spec.kind !== 'story';
  const contents: ContentsEntry[] = [];
  const pages: StoryPage[] = [];
  spec.stories.forEach((story, i) => {
    const rows = chaptersOf.get(story.id) ?? [];
    const page: PageStory = {
      id: story.id,
      title: story.title,
      language: story.language ?? DEFAULT_LANGUAGE,
      // A story is never without a chapter; should one be, it reads as one empty chapter.
      chapters: (rows.length === 0 ? [{ index: 1, title: '', contentHtml: '' }] : rows).map((chapter) => ({
        index: chapter.index,
        title: chapter.title,
        blocks: chapterBlocks(chapter.contentHtml, resolveImage),
        text: storyTextDigest(chapter.contentHtml),
      })),
    };
    const own = storyPages(i + 1, page, collection);
    for (const each of own) budget.add(Buffer.byteLength(each.xhtml));
    const chapterEntries = own.flatMap((each) =>
      each.label === null ? [] : [{ href: collection && each.anchor !== null ? `${each.file}#${each.anchor}` : each.file, title: each.label, children: [] }],
    );
    if (!collection) contents.push(...chapterEntries);
    else contents.push({ href: own[0]!.file, title: story.title, children: own[0]!.anchor === null ? [] : chapterEntries });
    pages.push(...own);
  });

  const text = (name: string, content: string): ZipEntry => ({ name: `OEBPS/${name}`, bytes: Buffer.from(content, 'utf8'), compress: true });
  const entriesAt = (modified: string): ZipEntry[] => {
    const stamped = { ...meta, modified };
    return [
      { name: 'mimetype', bytes: Buffer.from('application/epub+zip', 'ascii'), compress: false },
      { name: 'META-INF/container.xml', bytes: Buffer.from(CONTAINER_XML, 'utf8'), compress: true },
      text('content.opf', contentOpf(stamped, pages, resources)),
      text('nav.xhtml', navXhtml(stamped, contents)),
      text('toc.ncx', tocNcx(stamped, contents)),
      text('style.css', STYLE_CSS),
      text('title.xhtml', titlePage(stamped)),
      ...pages.map((page) => text(page.file, page.xhtml)),
      ...resources.map((resource) => ({ name: `OEBPS/${resource.href}`, bytes: resource.bytes, compress: false })),
    ];
  };
  // The stamp is the only part of the book that is not its contents: the first rendition of
  // these contents fixes it, so the same contents give the same bytes (and KOReader hash).
  const digest = contentDigest(entriesAt(UNSTAMPED));
  const modified = bookStamp(db, spec.kind, spec.entityKey, digest, meta.modified);
  const bytes = await zipEntries(entriesAt(modified), modified);
  const hash = koreaderPartialMd5(bytes);
  recordRendition(db, {
    kind: spec.kind,
    entityKey: spec.entityKey,
    hash,
    contentDigest: digest,
    modified,
    texts: spec.stories.map((story) => workTextDigest(chaptersOf.get(story.id) ?? [])),
    pages: pages.map((page) => page.spine),
    fileNames: bookFileNames(spec.downloadTitle, spec.kind === 'story' ? { title: spec.stories[0]!.title, author: spec.stories[0]!.author } : undefined),
  });
  return { bytes, title: spec.downloadTitle, hash };
}

/** The newest stamp of these (ISO strings sort as time). */
function newest(stamps: readonly string[]): string {
  return stamps.reduce((a, b) => (b > a ? b : a));
}

function distinct(values: ReadonlyArray<string | null>): string[] {
  return [...new Set(values.filter((value): value is string => value !== null))].slice(0, MAX_LISTED);
}

/** The language every story of the book declares, else {@link DEFAULT_LANGUAGE}. */
function sharedLanguage(stories: readonly BookStoryRow[]): string {
  const languages = new Set(stories.map((story) => story.language));
  const [only] = languages;
  return languages.size === 1 && only !== null && only !== undefined ? only : DEFAULT_LANGUAGE;
}

/** A book of several stories: their authors and tags, the newest of their stamps and `ownStamp`. */
function collectionMeta(uuid: string, title: string, description: string | null, ownStamp: string, stories: readonly BookStoryRow[]): BookSpec['meta'] {
  return {
    uuid,
    title,
    creators: distinct(stories.flatMap((story) => story.authors)),
    modified: newest([ownStamp, ...stories.map((story) => story.updatedAt)]),
    subjects: distinct(stories.flatMap((story) => story.tags)).sort(),
    description,
    source: null,
    series: null,
    language: sharedLanguage(stories),
    status: null,
    publishedAt: null,
    sourceUpdatedAt: null,
  };
}

/** One story as a book: its own metadata, its series and volume as calibre and EPUB 3 say them. */
export async function storyEpub(deps: EpubDeps, id: string): Promise<EpubFile> {
  const { db } = deps;
  const [story] = loadBookStories(db, [id]);
  if (story === undefined) throw storyNotFound(id);
  const meta: BookSpec['meta'] = {
    uuid: story.id,
    title: story.title,
    creators: story.authors,
    language: story.language ?? DEFAULT_LANGUAGE,
    modified: story.updatedAt,
    subjects: story.tags,
    description: story.summary ?? story.description,
    source: story.sourceUrl,
    series: story.seriesName === null ? null : { name: story.seriesName, index: story.volume },
    status: story.status,
    publishedAt: story.publishedAt,
    sourceUpdatedAt: story.sourceUpdatedAt,
  };
  return makeBook(deps, { kind: 'story', entityKey: id, meta, stories: [story], downloadTitle: story.author === null ? story.title : `${story.title} - ${story.author}` });
}

/** Ids of a collection, refused when there are more than a book holds. */
function bounded(ids: string[]): string[] {
  if (ids.length > MAX_BOOK_STORIES) throw tooManyStories(ids.length);
  return ids;
}

/** A book of several stories: what it is, its title and description, and its story ids in order. */
export interface Collection {
  kind: Exclude<BookKind, 'story' | 'search'>;
  /** The series, tag or shelf: its id is the book's uuid and its rendition key. */
  id: string;
  title: string;
  description: string | null;
  /** The collection's own `updatedAt`, a floor for the book's stamp. */
  updatedAt: string;
  /** In the book's order; more than {@link MAX_BOOK_STORIES} is a 413. */
  storyIds: string[];
}

/** A series, a tag or a shelf as one book (src/shelves/epub.ts makes shelves' through it). */
export async function collectionEpub(deps: EpubDeps, collection: Collection): Promise<EpubFile> {
  const stories = loadBookStories(deps.db, bounded(collection.storyIds));
  const meta = collectionMeta(collection.id, collection.title, collection.description, collection.updatedAt, stories);
  return makeBook(deps, { kind: collection.kind, entityKey: collection.id, meta, stories, downloadTitle: meta.title });
}

/** A series as one book, its stories in volume order. */
export async function seriesEpub(deps: EpubDeps, id: string): Promise<EpubFile> {
  const row = findSeriesById(deps.db, id);
  if (row === undefined) throw seriesNotFound(id);
  const storyIds = seriesStoryIds(deps.db, id, MAX_BOOK_STORIES + 1);
  return collectionEpub(deps, { kind: 'series', id, title: row.name, description: row.description, updatedAt: row.updatedAt, storyIds });
}

/** Every story with a tag as one book, oldest first. */
export async function tagEpub(deps: EpubDeps, id: string): Promise<EpubFile> {
  const row = findTagById(deps.db, id);
  if (row === undefined) throw tagNotFound(id);
  const storyIds = tagStoryIds(deps.db, id, MAX_BOOK_STORIES + 1);
  return collectionEpub(deps, { kind: 'tag', id, title: `Tag: ${row.name}`, description: null, updatedAt: row.updatedAt, storyIds });
}

/** A UUID (v4-shaped, so readers accept it) that is the same for the same search text. */
function searchUuid(query: string): string {
  const hex = createHash('sha256').update(`storyshelf search\n${query}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The best `limit` matches of a search (at most {@link MAX_BOOK_STORIES}) as one book, in relevance order; 404 when nothing matches. */
export async function searchEpub(deps: EpubDeps, engine: SearchEngine, query: string, limit: number): Promise<EpubFile> {
  const { db } = deps;
  const page = await engine.searchStories(storySearchRequest({ query, page: 0, size: Math.min(limit, MAX_BOOK_STORIES), sortBy: 'relevance', sortDir: 'desc' }));
  const stories = loadBookStories(
    db,
    page.results.map((result) => result.id),
  );
  if (stories.length === 0) throw new NotFound(`No story matches the search: ${query}`);
  const meta = collectionMeta(searchUuid(query), `Search: ${query}`, null, stories[0]!.updatedAt, stories);
  return makeBook(deps, { kind: 'search', entityKey: query, meta, stories, downloadTitle: meta.title });
}
