/**
 * From a downloaded HTML page to the fields of a story (docs/decisions.md, "URL import"): the
 * article body found by Readability on a linkedom DOM (no script engine, nothing fetched), and the
 * title, author and summary chosen from the page's metadata (JSON-LD, Dublin Core, Open Graph,
 * `<meta name=author>`, ...) by Readability's precedence. Pure and synchronous, and costly on large pages (hundreds of milliseconds), so
 * the URL import runs it in a worker thread (src/import/url/extract-pool.ts).
 *
 * The body keeps its images only as placeholders: each picture's source becomes
 * `storyshelf-import:<n>` and the absolute URLs to try for it, best first, are listed in
 * `imageSources[n]` (./image-sources.ts chooses among `src`, `srcset`, `<picture>` and lazy
 * loaders' attributes). The caller downloads what it can and puts our own path in place; a placeholder left over is not an http(s) URL, so
 * the sanitizer drops that image, and no import ever hot-links a third-party image.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { IMAGE_PLACEHOLDER } from './image-placeholder.js';
import { absoluteHttpUrl, pictureCandidates, type SourceElement } from './image-sources.js';

export interface ExtractedStory {
  title: string;
  authorName: string | null;
  summary: string | null;
  /** Unsanitized: the caller sanitizes on write, as every story body is. */
  contentHtml: string;
  /** Per picture, in placeholder order: the absolute http(s) URLs to try, best first (never empty). */
  imageSources: string[][];
}

/**
 * Less text than this is a menu or an error page, not a story (Readability's own "is this page
 * readable" check wants 140 characters too).
 */
const MIN_TEXT_CHARS = 140;

/** Separators sites put between a title and their name: "Story – Site", "Site | Story". */
const TITLE_SEPARATORS = /\s+[-–—|·:»/]\s+/;

type Json = unknown;
/** linkedom's document (the server is compiled without the DOM library). */
type Doc = ReturnType<typeof parseHTML>['document'];
type Root = Doc['body'];

function clean(text: string | null | undefined): string | null {
  const value = (text ?? '').replace(/\s+/g, ' ').trim();
  return value === '' ? null : value;
}

function metaContent(document: Doc, keys: readonly string[]): string | null {
  for (const key of keys) {
    for (const element of document.querySelectorAll('meta')) {
      const name = element.getAttribute('property') ?? element.getAttribute('name') ?? '';
      if (name.toLowerCase() !== key) continue;
      const value = clean(element.getAttribute('content'));
      if (value !== null) return value;
    }
  }
  return null;
}

/** Every JSON-LD object of the page, `@graph` members included; invalid blocks are skipped. */
function jsonLdObjects(document: Doc): Record<string, Json>[] {
  const objects: Record<string, Json>[] = [];
  const visit = (value: Json): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, Json>;
      objects.push(record);
      if ('@graph' in record) visit(record['@graph']);
    }
  };
  for (const script of document.querySelectorAll('script[type="application/ld+json"]')) {
    try {
      visit(JSON.parse(script.textContent ?? '') as Json);
    } catch {
      // a broken block says nothing
    }
  }
  return objects;
}

function ldName(value: Json): string | null {
  if (typeof value === 'string') return clean(value);
  if (Array.isArray(value)) {
    const names = value.map(ldName).filter((name): name is string => name !== null);
    return names.length === 0 ? null : names.join(', ');
  }
  if (value !== null && typeof value === 'object') return ldName((value as Record<string, Json>).name);
  return null;
}

function firstLd(objects: readonly Record<string, Json>[], read: (object: Record<string, Json>) => string | null): string | null {
  for (const object of objects) {
    const value = read(object);
    if (value !== null) return value;
  }
  return null;
}

/** `"By Jane Doe"` → `"Jane Doe"`; profile URLs and @handles are not names. */
function authorName(raw: string | null): string | null {
  const name = clean(raw?.replace(/^by\s+/i, ''));
  if (name === null || /^(https?:)?\/\//i.test(name) || name.startsWith('@')) return null;
  return name;
}

/**
 * The title without the site's name: "Story – Site Name" or "Site Name | Story" becomes
 * "Story" when the part cut off is the site's name (compared case- and space-insensitively).
 */
export function withoutSiteName(title: string, siteName: string | null): string {
  if (siteName === null) return title;
  const site = siteName.toLowerCase().replace(/\s+/g, ' ');
  const parts = title.split(TITLE_SEPARATORS);
  if (parts.length < 2) return title;
  const separators = title.match(new RegExp(TITLE_SEPARATORS.source, 'g')) ?? [];
  if ((parts.at(-1) ?? '').toLowerCase() === site) return title.slice(0, title.length - (parts.at(-1) as string).length - (separators.at(-1) as string).length);
  if ((parts[0] ?? '').toLowerCase() === site) return title.slice((parts[0] as string).length + (separators[0] as string).length);
  return title;
}

/** Absolute http(s) form of a URL in the page, or undefined. */

/**
 * The URL the page's relative links mean: its `<base href>` (itself relative to the page), else
 * the page's own URL (as a browser resolves them).
 */
function documentBase(document: Doc, pageUrl: string): string {
  return absoluteHttpUrl(document.querySelector('base[href]')?.getAttribute('href') ?? null, pageUrl) ?? pageUrl;
}

/**
 * Links of the extracted body made absolute, so they still lead somewhere from our pages; a link
 * to a place in the same page stays `#name`. This runs after Readability, never before: it counts
 * in-page `#` links at 0.3 of other links when it decides what is navigation, and links made
 * absolute first turned a contents list or a figure caption into "mostly links" it dropped. A
 * link that is not http(s) (`javascript:`, a broken URL) keeps its text and loses its target.
 */
function resolveLinks(root: Root, base: string, pageUrl: string): void {
  const page = new URL(pageUrl);
  page.hash = '';
  for (const link of root.querySelectorAll('a[href]')) {
    const href = absoluteHttpUrl(link.getAttribute('href'), base);
    if (href === undefined) {
      link.removeAttribute('href');
      continue;
    }
    const target = new URL(href);
    const fragment = target.hash;
    target.hash = '';
    link.setAttribute('href', fragment !== '' && target.href === page.href ? fragment : href);
  }
}

/** What a lazy loader or a `srcset` left on an `<img>`: nothing of it is kept once the source is chosen. */
const SOURCE_ATTRIBUTES = ['srcset', 'sizes', 'data-src', 'data-srcset', 'data-lazy-src', 'data-lazy-srcset', 'data-original'];

/**
 * Replaces each picture's source with a placeholder (at most `maxImages`; pictures beyond, and
 * those with no http(s) source, are removed), returning the URLs to try for each in placeholder
 * order. A `<picture>` that Readability left without its `<img>` gets one, so its `<source>`s
 * count; the `<source>`s go once read.
 */
function placeholdImages(root: Root, base: string, maxImages: number): string[][] {
  const document = root.ownerDocument;
  for (const picture of [...root.querySelectorAll('picture')]) {
    if (picture.querySelector('img') === null) picture.appendChild(document.createElement('img'));
  }
  const sources: string[][] = [];
  for (const image of [...root.querySelectorAll('img')]) {
    const candidates = pictureCandidates(image as unknown as SourceElement, (raw) => absoluteHttpUrl(raw, base));
    for (const name of SOURCE_ATTRIBUTES) image.removeAttribute(name);
    if (candidates.length === 0 || sources.length >= maxImages) {
      image.remove();
      continue;
    }
    image.setAttribute('src', `${IMAGE_PLACEHOLDER}${sources.length}`);
    sources.push(candidates);
  }
  for (const source of [...root.querySelectorAll('picture source')]) source.remove();
  return sources;
}

/**
 * The story in `html`, fetched from `pageUrl`, or `undefined` when Readability finds no article.
 * At most `maxImages` images are kept.
 */
export function extractStory(html: string, pageUrl: string, maxImages: number): ExtractedStory | undefined {
  let { document } = parseHTML(html);
  // linkedom builds no <html> around a bare fragment (its first element becomes the root) nor
  // anything for an empty text; Readability needs a whole document.
  if (document.documentElement?.tagName !== 'HTML') {
    ({ document } = parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`));
  }
  const ld = jsonLdObjects(document);
  const siteName =
    metaContent(document, ['og:site_name', 'application-name']) ?? firstLd(ld, (object) => ldName(object.publisher) ?? (object['@type'] === 'WebSite' ? ldName(object.name) : null));
  // Read before Readability runs: it removes the scripts.
  const ldAuthor = authorName(firstLd(ld, (object) => ldName(object.author)));
  const pageTitle = clean(document.querySelector('title')?.textContent);

  const base = documentBase(document, pageUrl);
  const article = new Readability(document, { keepClasses: false }).parse();
  const text = clean(article?.textContent);
  if (article === null || text === null || text.length < MIN_TEXT_CHARS || article.content === null || article.content === undefined) return undefined;

  const { document: body } = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`);
  resolveLinks(body.body, base, pageUrl);
  const imageSources = placeholdImages(body.body, base, maxImages);
  // Title, author and summary by Readability's precedence of the page's metadata (docs/decisions.md, "URL import").
  const title = withoutSiteName(clean(article.title) ?? pageTitle ?? new URL(pageUrl).hostname, siteName);
  return {
    title,
    authorName: authorName(article.byline ?? null) ?? ldAuthor,
    summary: clean(article.excerpt),
    contentHtml: body.body.innerHTML,
    imageSources,
  };
}
