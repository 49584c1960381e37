/**
 * Reading pages of the otwarchive software (the Archive of Our Own and the other archives that
 * run it) by their markup, not their host name (docs/decisions.md, "Sources"): its work page
 * (`works/show`: `dl.work.meta.group`, `div#workskin`, `div#chapters` with one `div.chapter` per
 * chapter in the entire-work view), its adult-content notice (`works/_adult`), the login page a
 * restricted work redirects to (`users/sessions/new` with `restricted`), and a series page
 * (`series/show`: `dl.series.meta.group`, `ul.series.work.index.group`). Runs in the URL import's
 * extraction thread (src/import/url/extract-worker.ts); everything it returns is plain data.
 */
import { DomUtils, ElementType, parseDocument } from 'htmlparser2';
import { sanitizeStoryHtml } from '../../../html/sanitize.js';
import type { SourceChapter, SourceSeries, SourceTag, SourceTagKind, SourceWork } from '../source-work.js';
import { otwLanguage } from './language.js';

type DomNode = ReturnType<typeof parseDocument>['children'][number];
type DomElement = Extract<DomNode, { attribs: Record<string, string> }>;

/** What an otwarchive page is, once recognised. */
export type OtwPage =
  /** A work with every chapter (the entire-work view, or a one-chapter work). */
  | { kind: 'work'; work: SourceWork }
  /** A work page showing only some chapters (one chapter's page): fetch `fullUrl`. */
  | { kind: 'partial-work'; workUrl: string; fullUrl: string }
  /** The work has more chapters than the import allows. */
  | { kind: 'too-many-chapters'; workUrl: string; chapters: number; limit: number }
  /** The adult-content notice; `continueUrl` is its "Yes, Continue" link. */
  | { kind: 'adult'; continueUrl: string }
  /** The login page: the work is visible to logged-in users only. */
  | { kind: 'restricted' }
  /** A series page: its works in order, and the address of its next page if it has one. */
  | { kind: 'series'; name: string; url: string; works: string[]; nextPage: string | null };

export interface OtwParseOptions {
  /** More chapters than this is `too-many-chapters` (their text is not copied out). */
  maxChapters: number;
}

const KIND_OF_CLASS: ReadonlyArray<[string, SourceTagKind]> = [
  ['rating', 'rating'],
  ['warning', 'warning'],
  ['category', 'category'],
  ['fandom', 'fandom'],
  ['relationship', 'relationship'],
  ['character', 'character'],
  ['freeform', 'freeform'],
];

function isElement(node: DomNode): node is DomElement {
  return ElementType.isTag(node);
}

function classes(element: DomElement): string[] {
  return (element.attribs.class ?? '').split(/\s+/).filter((name) => name !== '');
}

function hasClasses(element: DomElement, ...names: string[]): boolean {
  const own = classes(element);
  return names.every((name) => own.includes(name));
}

function findAll(root: DomNode[] | DomElement, test: (element: DomElement) => boolean): DomElement[] {
  const nodes = Array.isArray(root) ? root : root.children;
  return DomUtils.findAll((element) => test(element as DomElement), nodes as never) as DomElement[];
}

function findOne(root: DomNode[] | DomElement, test: (element: DomElement) => boolean): DomElement | undefined {
  const nodes = Array.isArray(root) ? root : root.children;
  return (DomUtils.findOne((element) => test(element as DomElement), nodes as never, true) as DomElement | null) ?? undefined;
}

function childElements(element: DomElement): DomElement[] {
  return (element.children as DomNode[]).filter(isElement);
}

function text(node: DomElement | undefined): string {
  return node === undefined ? '' : DomUtils.textContent(node as never).replace(/\s+/g, ' ').trim();
}

function innerHtml(element: DomElement): string {
  return DomUtils.getInnerHTML(element as never, { encodeEntities: 'utf8' }).trim();
}

/** `href` resolved against the page, or undefined when it is not an http(s) address. */
function resolve(href: string | undefined, base: URL): URL | undefined {
  if (href === undefined) return undefined;
  try {
    const url = new URL(href, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** The work id in a path such as `/works/1001`, `/works/1001/chapters/5001` or `/works/1001/share`. */
export function workIdOfPath(path: string): string | undefined {
  return /^\/works\/(\d{1,12})(?:\/|$)/.exec(path)?.[1];
}

/** The canonical work address on the page's site: `<origin>/works/<id>`. */
function workAddress(origin: string, id: string): string {
  return `${origin}/works/${id}`;
}

/** The entire-work view of a work, past the adult notice: one request gives every chapter. */
export function fullWorkAddress(workUrl: string): string {
  return `${workUrl}?view_full_work=true&view_adult=true`;
}

/** "1,234" → 1234; undefined when it is not a count. */
function count(value: string): number | undefined {
  const digits = value.replace(/,/g, '').trim();
  return /^\d{1,9}$/.test(digits) ? Number(digits) : undefined;
}

/** `YYYY-MM-DD` as the archive prints dates, or null. */
function isoDate(value: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  return match === null ? null : value.trim();
}

/** The stats `dd.<name>` inside `dd.stats`. */
function stat(meta: DomElement, name: string): string {
  return text(findOne(meta, (element) => element.name === 'dd' && hasClasses(element, name)));
}

function tagsOf(meta: DomElement): SourceTag[] {
  const tags: SourceTag[] = [];
  for (const [className, kind] of KIND_OF_CLASS) {
    const dd = childElements(meta).find((element) => element.name === 'dd' && hasClasses(element, className, 'tags'));
    if (dd === undefined) continue;
    const seen = new Set<string>();
    for (const link of findAll(dd, (element) => element.name === 'a' && hasClasses(element, 'tag'))) {
      const name = text(link);
      if (name !== '' && !seen.has(name)) {
        seen.add(name);
        tags.push({ name, kind });
      }
    }
  }
  return tags;
}

function seriesOf(meta: DomElement, page: URL): SourceSeries[] {
  const dd = childElements(meta).find((element) => element.name === 'dd' && hasClasses(element, 'series'));
  if (dd === undefined) return [];
  const series: SourceSeries[] = [];
  for (const position of findAll(dd, (element) => element.name === 'span' && hasClasses(element, 'position'))) {
    const part = /Part\s+([\d,]+)/.exec(text(position));
    const link = findOne(position, (element) => element.name === 'a');
    const url = resolve(link?.attribs.href, page);
    const partNumber = part === null ? undefined : count(part[1] as string);
    if (link === undefined || url === undefined || partNumber === undefined) continue;
    url.hash = '';
    series.push({ name: text(link), part: partNumber, url: url.href });
  }
  return series;
}

/** `"3/10"` or `"3/?"`: posted chapters and the planned total (null for `?`). */
function chapterStat(value: string): { posted: number; planned: number | null } | undefined {
  const match = /^([\d,]+)\s*\/\s*([\d,]+|\?)$/.exec(value.trim());
  if (match === null) return undefined;
  const posted = count(match[1] as string);
  if (posted === undefined) return undefined;
  return { posted, planned: match[2] === '?' ? null : (count(match[2] as string) ?? null) };
}

/** A block of the author's notes or a chapter summary, kept with a plain label before it. */
function notesBlock(label: string, quote: DomElement | undefined): string {
  if (quote === undefined) return '';
  const inner = innerHtml(quote);
  return inner === '' ? '' : `<p><strong>${label}</strong></p>\n<blockquote>${inner}</blockquote>\n`;
}

function moduleQuote(root: DomElement, ...moduleClasses: string[]): DomElement | undefined {
  const module = findOne(root, (element) => element.name === 'div' && hasClasses(element, ...moduleClasses));
  return module === undefined ? undefined : findOne(module, (element) => element.name === 'blockquote' && hasClasses(element, 'userstuff'));
}

/** The chapter text of `div.userstuff.module` without its "Chapter Text" landmark heading. */
function chapterText(userstuff: DomElement): string {
  const landmark = childElements(userstuff).find((element) => /^h\d$/.test(element.name) && hasClasses(element, 'landmark'));
  if (landmark !== undefined) DomUtils.removeElement(landmark as never);
  return innerHtml(userstuff);
}

function chapterOf(element: DomElement, position: number, workUrl: string, page: URL): SourceChapter | undefined {
  const heading = findOne(element, (node) => node.name === 'h3' && hasClasses(node, 'title'));
  const link = heading === undefined ? undefined : findOne(heading, (node) => node.name === 'a');
  const chapterUrl = resolve(link?.attribs.href, page);
  const chapterId = chapterUrl === undefined ? undefined : /\/chapters\/(\d{1,12})(?:\/|$)/.exec(chapterUrl.pathname)?.[1];
  if (chapterId === undefined) return undefined;
  const headingText = text(heading);
  const linkText = text(link);
  const own = headingText.startsWith(linkText) ? headingText.slice(linkText.length).replace(/^\s*:\s*/, '').trim() : '';
  const userstuff = findOne(element, (node) => node.name === 'div' && hasClasses(node, 'userstuff', 'module'));
  if (userstuff === undefined) return undefined;
  const preface = childElements(element).find((node) => node.name === 'div' && hasClasses(node, 'chapter', 'preface'));
  const summary = preface === undefined ? undefined : moduleQuote(preface, 'summary', 'module');
  const notes = preface === undefined ? undefined : moduleQuote(preface, 'notes', 'module');
  const endModule = findOne(element, (node) => node.name === 'div' && hasClasses(node, 'end', 'notes', 'module'));
  const endNotes = endModule === undefined ? undefined : findOne(endModule, (node) => node.name === 'blockquote' && hasClasses(node, 'userstuff'));
  const contentHtml = `${notesBlock('Summary:', summary)}${notesBlock('Notes:', notes)}${chapterText(userstuff)}${endNotes === undefined ? '' : `\n${notesBlock('Notes:', endNotes)}`}`;
  return {
    title: own === '' ? `Chapter ${position}` : own,
    contentHtml,
    sourceUrl: `${workUrl}/chapters/${chapterId}`,
    sourceKey: chapterId,
  };
}

/** The work's id: from the page's own address, else from its chapter, share or download links. */
function workIdOf(workDiv: DomElement, page: URL): string | undefined {
  const own = workIdOfPath(page.pathname);
  if (own !== undefined) return own;
  for (const link of findAll(workDiv, (element) => element.name === 'a' && element.attribs.href !== undefined)) {
    const url = resolve(link.attribs.href, page);
    const id = url === undefined || url.origin !== page.origin ? undefined : (workIdOfPath(url.pathname) ?? /^\/downloads\/(\d{1,12})\//.exec(url.pathname)?.[1]);
    if (id !== undefined) return id;
  }
  return undefined;
}

function parseWork(workDiv: DomElement, meta: DomElement, page: URL, options: OtwParseOptions): OtwPage | undefined {
  const id = workIdOf(workDiv, page);
  const workskin = findOne(workDiv, (element) => element.attribs.id === 'workskin');
  const chaptersDiv = workskin === undefined ? undefined : findOne(workskin, (element) => element.attribs.id === 'chapters');
  if (id === undefined || workskin === undefined || chaptersDiv === undefined) return undefined;
  const workUrl = workAddress(page.origin, id);

  const chapterStats = chapterStat(stat(meta, 'chapters'));
  const chapterDivs = childElements(chaptersDiv).filter((element) => element.name === 'div' && hasClasses(element, 'chapter') && /^chapter-\d+$/.test(element.attribs.id ?? ''));
  const shown = chapterDivs.length === 0 ? 1 : chapterDivs.length;
  if (chapterStats !== undefined && chapterStats.posted > options.maxChapters) return { kind: 'too-many-chapters', workUrl, chapters: chapterStats.posted, limit: options.maxChapters };
  if (chapterDivs.length > options.maxChapters) return { kind: 'too-many-chapters', workUrl, chapters: chapterDivs.length, limit: options.maxChapters };
  if (chapterStats !== undefined && shown < chapterStats.posted) return { kind: 'partial-work', workUrl, fullUrl: fullWorkAddress(workUrl) };

  const preface = childElements(workskin).find((element) => element.name === 'div' && hasClasses(element, 'preface', 'group'));
  const title = text(preface === undefined ? undefined : findOne(preface, (element) => element.name === 'h2' && hasClasses(element, 'title')));
  const byline = preface === undefined ? undefined : findOne(preface, (element) => element.name === 'h3' && hasClasses(element, 'byline'));
  const authors: string[] = [];
  if (byline !== undefined) {
    for (const link of findAll(byline, (element) => element.name === 'a' && (element.attribs.rel ?? '').split(/\s+/).includes('author'))) {
      const name = text(link);
      if (name !== '' && !authors.includes(name)) authors.push(name);
    }
  }
  const summaryQuote = preface === undefined ? undefined : moduleQuote(preface, 'summary', 'module');
  const summaryHtml = summaryQuote === undefined ? '' : sanitizeStoryHtml(innerHtml(summaryQuote)).trim();
  const workNotes = preface === undefined ? undefined : moduleQuote(preface, 'notes', 'module');
  const endnotesModule = findOne(workskin, (element) => element.attribs.id === 'work_endnotes');
  const workEndNotes = endnotesModule === undefined ? undefined : findOne(endnotesModule, (element) => element.name === 'blockquote' && hasClasses(element, 'userstuff'));

  const chapters: SourceChapter[] = [];
  if (chapterDivs.length === 0) {
    // A one-chapter work: works/show prints its text without a chapter heading.
    const userstuff = childElements(chaptersDiv).find((element) => element.name === 'div' && hasClasses(element, 'userstuff'));
    const chapterLink = findAll(workDiv, (element) => element.name === 'a').map((link) => resolve(link.attribs.href, page)).find((url) => url !== undefined && url.pathname.startsWith(`/works/${id}/chapters/`));
    const chapterId = chapterLink === undefined ? undefined : /\/chapters\/(\d{1,12})/.exec(chapterLink.pathname)?.[1];
    if (userstuff === undefined) return undefined;
    chapters.push({ title: '', contentHtml: chapterText(userstuff), sourceUrl: chapterId === undefined ? workUrl : `${workUrl}/chapters/${chapterId}`, sourceKey: chapterId ?? `work-${id}` });
  } else {
    for (const [index, element] of chapterDivs.entries()) {
      const chapter = chapterOf(element, index + 1, workUrl, page);
      if (chapter === undefined) return undefined;
      chapters.push(chapter);
    }
  }
  const first = chapters[0];
  if (first !== undefined) first.contentHtml = `${notesBlock('Notes:', workNotes)}${first.contentHtml}`;
  const last = chapters[chapters.length - 1];
  if (last !== undefined && workEndNotes !== undefined) last.contentHtml = `${last.contentHtml}\n${notesBlock('Notes:', workEndNotes)}`;

  const languageDd = childElements(meta).find((element) => element.name === 'dd' && hasClasses(element, 'language'));
  const publishedAt = isoDate(stat(meta, 'published'));
  const updated = isoDate(stat(meta, 'status'));
  let status: SourceWork['status'] = null;
  if (chapterStats !== undefined) status = chapterStats.planned !== null && chapterStats.posted >= chapterStats.planned ? 'complete' : 'in-progress';

  return {
    kind: 'work',
    work: {
      url: workUrl,
      uid: `otwarchive:${page.host}:${id}`,
      site: page.host,
      title,
      authors,
      summary: summaryHtml === '' ? null : summaryHtml,
      tags: tagsOf(meta),
      language: languageDd === undefined ? null : otwLanguage(text(languageDd), languageDd.attribs.lang),
      publishedAt,
      sourceUpdatedAt: updated ?? publishedAt,
      status,
      series: seriesOf(meta, page),
      chapters,
    },
  };
}

function parseSeries(main: DomElement, page: URL): OtwPage | undefined {
  const list = findOne(main, (element) => element.name === 'ul' && hasClasses(element, 'series', 'work', 'index', 'group'));
  if (list === undefined) return undefined;
  const works: string[] = [];
  for (const item of childElements(list).filter((element) => element.name === 'li' && hasClasses(element, 'work'))) {
    const heading = findOne(item, (element) => element.name === 'h4' && hasClasses(element, 'heading'));
    const link = heading === undefined ? undefined : findOne(heading, (element) => element.name === 'a');
    const url = resolve(link?.attribs.href, page);
    const id = url === undefined || url.origin !== page.origin ? undefined : workIdOfPath(url.pathname);
    if (id === undefined) continue;
    const address = workAddress(page.origin, id);
    if (!works.includes(address)) works.push(address);
  }
  const pagination = findOne(main, (element) => element.name === 'ol' && hasClasses(element, 'pagination'));
  const next = pagination === undefined ? undefined : findOne(pagination, (element) => element.name === 'a' && (element.attribs.rel ?? '').split(/\s+/).includes('next'));
  const nextUrl = resolve(next?.attribs.href, page);
  const heading = childElements(main).find((element) => element.name === 'h2' && hasClasses(element, 'heading'));
  const seriesUrl = new URL(page.href);
  seriesUrl.search = '';
  seriesUrl.hash = '';
  return { kind: 'series', name: text(heading), url: seriesUrl.href, works, nextPage: nextUrl === undefined || nextUrl.origin !== page.origin ? null : nextUrl.href };
}

function parseAdult(main: DomElement, page: URL): OtwPage | undefined {
  const caution = findOne(main, (element) => element.name === 'p' && hasClasses(element, 'caution', 'notice'));
  const blurbs = findOne(main, (element) => element.name === 'ol' && hasClasses(element, 'work', 'index', 'group'));
  if (caution === undefined || blurbs === undefined) return undefined;
  for (const link of findAll(main, (element) => element.name === 'a')) {
    const url = resolve(link.attribs.href, page);
    if (url !== undefined && url.origin === page.origin && url.searchParams.get('view_adult') === 'true') return { kind: 'adult', continueUrl: url.href };
  }
  return undefined;
}

/**
 * The otwarchive page in `html` (served from `pageUrl`, the address after redirects), or
 * undefined when the markup is not otwarchive's: then the page is an ordinary web page.
 */
export function parseOtwPage(html: string, pageUrl: string, options: OtwParseOptions): OtwPage | undefined {
  const page = new URL(pageUrl);
  const document = parseDocument(html);
  const main = findOne(document.children as DomNode[], (element) => element.name === 'div' && element.attribs.id === 'main' && hasClasses(element, 'region'));
  if (main === undefined) return undefined;

  const workDiv = childElements(main).find((element) => element.name === 'div' && hasClasses(element, 'work'));
  const meta = workDiv === undefined ? undefined : findOne(workDiv, (element) => element.name === 'dl' && hasClasses(element, 'work', 'meta', 'group'));
  if (workDiv !== undefined && meta !== undefined) return parseWork(workDiv, meta, page, options);

  if (findOne(main, (element) => element.name === 'dl' && hasClasses(element, 'series', 'meta', 'group')) !== undefined) return parseSeries(main, page);

  const adult = parseAdult(main, page);
  if (adult !== undefined) return adult;

  const loginForm = findOne(main, (element) => element.attribs.id === 'loginform');
  // check_visibility redirects a visitor to new_user_session_path(restricted: true, return_to: the work).
  const returnTo = page.searchParams.get('return_to') ?? '';
  if (loginForm !== undefined && (page.searchParams.get('restricted') === 'true' || workIdOfPath(returnTo) !== undefined)) return { kind: 'restricted' };
  return undefined;
}
