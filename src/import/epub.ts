/**
 * An EPUB (2 or 3) as a story in chapters (docs/decisions.md, "File import"):
 * `META-INF/container.xml` names the package document, read by ./epub-package.ts. Each spine
 * document that holds story text is one chapter, titled by its navigation (EPUB 3 nav, else NCX)
 * entry or else its first heading. The cover, title page, contents page and navigation document
 * (EPUB 3 landmarks, EPUB 2 guide, FanFicFare's `fff_*page` body classes) are not text; the
 * FanFicFare title page is read for its typed metadata. The pictures the chapters show are taken
 * out of the book for the job to store (./raw-story.ts, `RawImage`).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path/posix';
import { parseHTML } from 'linkedom';
import { IMAGE_URL_PREFIX } from '../images/image-path.js';
import { titlePageFields } from './fanficfare/title-page.js';
import { titlePageEntries, type DomElement } from './fanficfare/title-page-dom.js';
import { archivePath, elements, NOT_TEXT_TYPES, parseXml, readPackage, type EpubPackage } from './epub-package.js';
import { squeeze, type RawChapter, type RawImage, type RawStory, type RawTag } from './raw-story.js';
import { openZip, type OpenedZip, UnsafeArchive } from './zip.js';

/** One EPUB's XML documents (container, package, NCX, nav) at most. */
const EPUB_XML_MAX = 4 * 1024 * 1024;
/** Every spine document of one EPUB together, like the largest story body the API takes. */
export const EPUB_TEXT_MAX = 16 * 1024 * 1024;
/** Pictures kept from one EPUB, each at most the image store's 5 MiB, all together at most 50 MiB (as a web page's). */
export const EPUB_IMAGES_MAX = 200;
export const EPUB_IMAGE_BYTES_MAX = 5 * 1024 * 1024;
export const EPUB_IMAGES_TOTAL_BYTES_MAX = 50 * 1024 * 1024;

/** FanFicFare's pages that are not story text, by their body class. */
const FFF_NOT_TEXT = /\bfff_(?:titlepage|tocpage|logpage|coverpage)\b/;
/** The download time FanFicFare's test sites put in each chapter: not story text, and it changes on every download. */
const FFF_TIMESTAMP = /^Timestamp:\s*\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?$/;
const IMAGE_TYPES = /\.(?:jpe?g|png|webp|gif|svg|avif|bmp|tiff?)$/i;

async function readText(zip: OpenedZip, name: string, maxBytes: number): Promise<string> {
  const entry = zip.entries.find((candidate) => candidate.name === name);
  if (entry === undefined) throw new Error(`the EPUB has no ${name}`);
  return (await zip.read(entry, maxBytes)).toString('utf8');
}

async function readOptional(zip: OpenedZip, name: string | undefined): Promise<string | undefined> {
  if (name === undefined || !zip.entries.some((entry) => entry.name === name)) return undefined;
  return readText(zip, name, EPUB_XML_MAX);
}

/** What the book's navigation says: each document's title (first entry wins) and the landmarks that are not text. */
interface Navigation {
  titles: Map<string, string>;
  notText: Set<string>;
}

function addTitle(titles: Map<string, string>, file: string | undefined, label: string | null | undefined): void {
  const title = squeeze(label);
  if (file !== undefined && title !== undefined && !titles.has(file)) titles.set(file, title);
}

async function navigationOf(zip: OpenedZip, pkg: EpubPackage): Promise<Navigation> {
  const navigation: Navigation = { titles: new Map(), notText: new Set() };
  const nav = await readOptional(zip, pkg.navPath);
  if (nav !== undefined && pkg.navPath !== undefined) {
    const base = path.dirname(pkg.navPath);
    const { document } = parseHTML(nav);
    for (const element of Array.from(document.querySelectorAll('nav')) as unknown as DomElement[]) {
      const type = (element.getAttribute('epub:type') ?? '').toLowerCase().split(/\s+/);
      for (const link of Array.from(element.querySelectorAll('a[href]'))) {
        const file = archivePath(base, link.getAttribute('href') ?? '');
        if (type.includes('toc')) addTitle(navigation.titles, file, link.textContent);
        const landmark = (link.getAttribute('epub:type') ?? '').toLowerCase();
        if (type.includes('landmarks') && file !== undefined && NOT_TEXT_TYPES.has(landmark)) navigation.notText.add(file);
      }
    }
  }
  const ncx = navigation.titles.size > 0 ? undefined : await readOptional(zip, pkg.ncxPath);
  if (ncx !== undefined && pkg.ncxPath !== undefined) {
    const base = path.dirname(pkg.ncxPath);
    for (const point of elements(parseXml(ncx), 'navpoint') as unknown as DomElement[]) {
      const label = point.querySelector('text')?.textContent;
      const src = point.querySelector('content')?.getAttribute('src');
      if (src !== null && src !== undefined) addTitle(navigation.titles, archivePath(base, src), label);
    }
  }
  return navigation;
}

/** The pictures of one book: each archive image once, under one placeholder, within the caps. */
class BookImages {
  readonly images: RawImage[] = [];
  readonly #byPath = new Map<string, string | null>();
  readonly #token = randomBytes(6).toString('hex');
  #bytes = 0;
  left = 0;

  constructor(private readonly zip: OpenedZip) {}

  /** The placeholder URL for the archive image at `file`, or undefined when it is not kept. */
  async placeholderOf(file: string): Promise<string | undefined> {
    const known = this.#byPath.get(file);
    if (known !== undefined) return known ?? undefined;
    const entry = this.zip.entries.find((candidate) => candidate.name === file);
    let placeholder: string | null = null;
    if (entry !== undefined && this.images.length < EPUB_IMAGES_MAX && entry.uncompressedSize <= EPUB_IMAGE_BYTES_MAX && this.#bytes + entry.uncompressedSize <= EPUB_IMAGES_TOTAL_BYTES_MAX) {
      const bytes = await this.zip.read(entry, EPUB_IMAGE_BYTES_MAX);
      this.#bytes += bytes.length;
      placeholder = `${IMAGE_URL_PREFIX}inline/epub-${this.#token}-${this.images.length}.png`;
      this.images.push({ placeholder, bytes });
    } else if (entry !== undefined) {
      this.left += 1;
    }
    this.#byPath.set(file, placeholder);
    return placeholder ?? undefined;
  }
}

type ChapterDocument = ReturnType<typeof parseHTML>['document'];
/** The little of linkedom's elements the chapter reading uses. */
type Element = { textContent: string | null; getAttribute(name: string): string | null; setAttribute(name: string, value: string): void; removeAttribute(name: string): void; remove(): void };

function all(document: ChapterDocument, selector: string): Element[] {
  return Array.from(document.querySelectorAll(selector)) as unknown as Element[];
}

/** Puts each picture's placeholder in its `<img>`; a picture that is not in the book (or over the caps) is removed, never hot-linked. */
async function takeImages(document: ChapterDocument, file: string, images: BookImages): Promise<void> {
  for (const img of all(document, 'img')) {
    const target = archivePath(path.dirname(file), img.getAttribute('src') ?? '');
    const placeholder = target !== undefined && IMAGE_TYPES.test(target) ? await images.placeholderOf(target) : undefined;
    if (placeholder === undefined) img.remove();
    else {
      img.setAttribute('src', placeholder);
      for (const attribute of ['srcset', 'sizes']) img.removeAttribute(attribute);
    }
  }
}

/** The first heading of the body, if it is the chapter's title (then it is dropped: the chapter's title is shown above its text). */
function firstHeading(document: ChapterDocument) {
  return document.querySelector('h1, h2, h3, h4, h5, h6');
}

/** One chapter document as a chapter. */
function chapterOf(document: ChapterDocument, navTitle: string | undefined, bookTitle: string | undefined, fanficfare: boolean): RawChapter {
  let title: string | undefined;
  const chapter: Partial<RawChapter> = {};
  const fffTitle = fanficfare ? document.querySelector('.fff_chapter_title') : null;
  if (fffTitle !== null) {
    title = squeeze(fffTitle.textContent);
    fffTitle.remove();
  } else {
    const heading = firstHeading(document);
    const headingText = squeeze(heading?.textContent);
    const documentTitle = squeeze(document.title);
    title = navTitle ?? headingText ?? (documentTitle === bookTitle ? undefined : documentTitle);
    if (heading !== null && headingText !== undefined && headingText === title) heading.remove();
  }
  if (fanficfare) {
    const url = squeeze(document.querySelector('meta[name="chapterurl"]')?.getAttribute('content'));
    if (url !== undefined && /^https?:\/\//i.test(url)) Object.assign(chapter, { sourceUrl: url, sourceKey: url });
    for (const paragraph of all(document, 'p')) {
      if (FFF_TIMESTAMP.test(squeeze(paragraph.textContent) ?? '')) paragraph.remove();
    }
  }
  return { title: title ?? '', html: document.body?.innerHTML ?? '', ...chapter };
}

/** The metadata of a FanFicFare book: its package's, with its title page's typed tags, status and dates over it. */
function withTitlePage(metadata: Omit<RawStory, 'chapters'>, page: Omit<RawStory, 'chapters'> & { tags: RawTag[] }): Omit<RawStory, 'chapters'> {
  const typed = new Set(page.tags.map((tag) => tag.name.toLowerCase()));
  // A subject the title page does not list is one the user added (FanFicFare's extra tags): kept, kind unknown.
  const extra = (metadata.tags ?? []).filter((tag) => !typed.has(tag.name.toLowerCase()));
  const merged: Omit<RawStory, 'chapters'> = { ...metadata, tags: [...page.tags, ...extra] };
  for (const key of ['status', 'publishedAt', 'sourceUpdatedAt'] as const) if (page[key] !== undefined) Object.assign(merged, { [key]: page[key] });
  for (const key of ['language', 'summary'] as const) if (merged[key] === undefined && page[key] !== undefined) merged[key] = page[key];
  // calibre's series (and EPUB 3's collection) first; else the title page's Series line.
  if (metadata.seriesName === undefined && page.seriesName !== undefined) {
    merged.seriesName = page.seriesName;
    if (page.volume !== undefined) merged.volume = page.volume;
  }
  return merged;
}

/** Parses an EPUB held at `source` (a path or its bytes) into a story. */
export async function parseEpub(source: string | Buffer): Promise<RawStory> {
  const zip = await openZip(source);
  try {
    const container = parseXml(await readText(zip, 'META-INF/container.xml', EPUB_XML_MAX));
    const opfPath = elements(container, 'rootfile')[0]?.getAttribute('full-path');
    if (opfPath === undefined || opfPath === null) throw new Error('META-INF/container.xml names no package document');
    const pkg = readPackage(await readText(zip, opfPath, EPUB_XML_MAX), opfPath);
    const navigation = await navigationOf(zip, pkg);
    const images = new BookImages(zip);
    let metadata = pkg.metadata;
    const chapters: RawChapter[] = [];
    let bytes = 0;
    for (const file of pkg.spine) {
      if (file === pkg.navPath || pkg.guideSkipped.has(file) || navigation.notText.has(file)) continue;
      const entry = zip.entries.find((candidate) => candidate.name === file);
      if (entry === undefined) continue;
      bytes += entry.uncompressedSize;
      if (bytes > EPUB_TEXT_MAX) throw new UnsafeArchive(`the text of this EPUB is over ${EPUB_TEXT_MAX} bytes`);
      const { document } = parseHTML((await zip.read(entry, EPUB_TEXT_MAX)).toString('utf8'));
      const bodyClass = document.body?.getAttribute('class') ?? '';
      if (FFF_NOT_TEXT.test(bodyClass)) {
        if (/\bfff_titlepage\b/.test(bodyClass)) metadata = withTitlePage(metadata, titlePageFields(titlePageEntries(document.body as unknown as DomElement)));
        continue;
      }
      await takeImages(document, file, images);
      chapters.push(chapterOf(document, navigation.titles.get(file), metadata.title, pkg.fanficfare));
    }
    if (chapters.length === 0) throw new Error('the EPUB spine names no readable document');
    const notes = images.left > 0 ? [`${images.left} pictures were left out (over ${EPUB_IMAGES_MAX} pictures, ${EPUB_IMAGE_BYTES_MAX / 1024 / 1024} MiB each or ${EPUB_IMAGES_TOTAL_BYTES_MAX / 1024 / 1024} MiB together)`] : [];
    return { ...metadata, chapters, ...(images.images.length > 0 ? { images: images.images } : {}), ...(notes.length > 0 ? { notes } : {}) };
  } finally {
    zip.close();
  }
}
