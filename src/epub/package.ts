/**
 * The EPUB 3 package files around the story pages (docs/decisions.md, "EPUB export"): the OCF
 * container, the package document with its metadata (including the calibre series metas the way
 * FanFicFare writes them, which calibre and KOReader read, and EPUB 3's belongs-to-collection),
 * the EPUB 3 navigation document, the NCX for EPUB 2 readers, the style sheet and the title page.
 * Pure functions of the book: the same book gives the same text.
 */
import { escapeXml } from '../lib/xml.js';
import { xhtmlDocument } from './xml.js';

/** One XHTML document of the book after the title page: a chapter, or a part of one. */
export interface BookChapter {
  /** The file name inside OEBPS/. */
  file: string;
  xhtml: string;
}

/** An entry of the table of contents: its target (a file, maybe with a fragment), its title, and the entries under it. */
export interface ContentsEntry {
  href: string;
  title: string;
  children: readonly ContentsEntry[];
}

export interface BookResource {
  /** The path inside OEBPS/. */
  href: string;
  mediaType: string;
  bytes: Buffer;
}

export interface BookMeta {
  /** A UUID: the story, series or tag id, or one derived from a search. */
  uuid: string;
  title: string;
  creators: readonly string[];
  language: string;
  /** ISO 8601; written to the second, as dcterms:modified requires. */
  modified: string;
  subjects: readonly string[];
  description: string | null;
  source: string | null;
  series: { name: string; index: number | null } | null;
  cover: BookResource | null;
  /** A story book's: `complete`, `in-progress` or null (a collection has none). */
  status: 'complete' | 'in-progress' | null;
  /** When the source first published it and last updated it (ISO 8601), or null. */
  publishedAt: string | null;
  sourceUpdatedAt: string | null;
}

export const CONTAINER_XML =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">\n' +
  '<rootfiles>\n<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>\n</rootfiles>\n</container>\n';

export const STYLE_CSS = `body { margin: 0 5%; line-height: 1.5; }
h1.story-title, h1.book-title { text-align: center; margin: 1em 0; }
p { margin: 0 0 0.8em; }
.byline, .series-line { text-align: center; font-style: italic; }
.book-facts { text-align: center; }
.cover { text-align: center; }
.cover img { max-width: 100%; max-height: 90vh; }
img { max-width: 100%; }
table { border-collapse: collapse; }
td, th { border: 1px solid #999; padding: 0.2em 0.4em; }
blockquote { margin: 1em 2em; }
.image-alt { font-style: italic; }
`;

/** dcterms:modified must be `CCYY-MM-DDThh:mm:ssZ`: the stamp without its milliseconds. */
function toSecond(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 19)}Z`;
}

/** The calendar day of an ISO stamp (UTC): what the title page and `dc:date` show. */
function day(iso: string): string {
  return new Date(iso).toISOString().slice(0, 10);
}

function seriesIndex(index: number | null): string | undefined {
  return index === null ? undefined : String(index);
}

export function contentOpf(meta: BookMeta, chapters: readonly BookChapter[], resources: readonly BookResource[]): string {
  const lines: string[] = [
    `<dc:identifier id="book-id">urn:uuid:${escapeXml(meta.uuid)}</dc:identifier>`,
    `<dc:title>${escapeXml(meta.title)}</dc:title>`,
    ...meta.creators.map((creator) => `<dc:creator>${escapeXml(creator)}</dc:creator>`),
    `<dc:language>${escapeXml(meta.language)}</dc:language>`,
    ...(meta.publishedAt === null ? [] : [`<dc:date>${day(meta.publishedAt)}</dc:date>`]),
    `<meta property="dcterms:modified">${toSecond(meta.modified)}</meta>`,
    ...meta.subjects.map((subject) => `<dc:subject>${escapeXml(subject)}</dc:subject>`),
  ];
  if (meta.description !== null && meta.description.trim() !== '') lines.push(`<dc:description>${escapeXml(meta.description)}</dc:description>`);
  if (meta.source !== null) lines.push(`<dc:source>${escapeXml(meta.source)}</dc:source>`);
  if (meta.series !== null) {
    const index = seriesIndex(meta.series.index);
    lines.push(`<meta property="belongs-to-collection" id="series">${escapeXml(meta.series.name)}</meta>`);
    lines.push('<meta refines="#series" property="collection-type">series</meta>');
    if (index !== undefined) lines.push(`<meta refines="#series" property="group-position">${index}</meta>`);
    lines.push(`<meta name="calibre:series" content="${escapeXml(meta.series.name)}"/>`);
    if (index !== undefined) lines.push(`<meta name="calibre:series_index" content="${index}"/>`);
  }
  // EPUB 2 readers (and Nook) find the cover by this meta, name before content.
  if (meta.cover !== null) lines.push('<meta name="cover" content="cover-image"/>');

  const manifest = [
    '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>',
    '<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>',
    '<item id="style" href="style.css" media-type="text/css"/>',
    '<item id="title-page" href="title.xhtml" media-type="application/xhtml+xml"/>',
    ...chapters.map((chapter, i) => `<item id="chapter-${i + 1}" href="${chapter.file}" media-type="application/xhtml+xml"/>`),
    ...resources.map((resource, i) =>
      resource === meta.cover
        ? `<item id="cover-image" href="${resource.href}" media-type="${resource.mediaType}" properties="cover-image"/>`
        : `<item id="image-${i + 1}" href="${resource.href}" media-type="${resource.mediaType}"/>`,
    ),
  ];
  const spine = ['<itemref idref="title-page"/>', ...chapters.map((_, i) => `<itemref idref="chapter-${i + 1}"/>`)];
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="book-id" xml:lang="${escapeXml(meta.language)}">\n` +
    `<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">\n${lines.join('\n')}\n</metadata>\n` +
    `<manifest>\n${manifest.join('\n')}\n</manifest>\n` +
    `<spine toc="ncx">\n${spine.join('\n')}\n</spine>\n</package>\n`
  );
}

/**
 * The table of contents: the title page (named after the book), then `entries`. A book of one
 * entry lists it alone: its title page bears the same title, so readers showed the one chapter
 * twice.
 */
function contents(meta: BookMeta, entries: readonly ContentsEntry[]): readonly ContentsEntry[] {
  return entries.length === 1 ? entries : [{ href: 'title.xhtml', title: meta.title, children: [] }, ...entries];
}

function navList(entries: readonly ContentsEntry[]): string {
  const items = entries.map(
    (entry) => `<li><a href="${escapeXml(entry.href)}">${escapeXml(entry.title)}</a>${entry.children.length === 0 ? '' : `\n${navList(entry.children)}\n`}</li>`,
  );
  return `<ol>\n${items.join('\n')}\n</ol>`;
}

export function navXhtml(meta: BookMeta, entries: readonly ContentsEntry[]): string {
  return xhtmlDocument(meta.title, meta.language, `<nav epub:type="toc" id="toc">\n<h1>Contents</h1>\n${navList(contents(meta, entries))}\n</nav>`);
}

export function tocNcx(meta: BookMeta, entries: readonly ContentsEntry[]): string {
  let order = 0;
  let depth = 1;
  const points = (list: readonly ContentsEntry[], level: number): string[] =>
    list.map((entry) => {
      order += 1;
      depth = Math.max(depth, level);
      const head = `<navPoint id="nav-${order}" playOrder="${order}"><navLabel><text>${escapeXml(entry.title)}</text></navLabel><content src="${escapeXml(entry.href)}"/>`;
      return entry.children.length === 0 ? `${head}</navPoint>` : `${head}\n${points(entry.children, level + 1).join('\n')}\n</navPoint>`;
    });
  const map = points(contents(meta, entries), 1);
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">\n' +
    `<head>\n<meta name="dtb:uid" content="urn:uuid:${escapeXml(meta.uuid)}"/>\n<meta name="dtb:depth" content="${depth}"/>\n` +
    '<meta name="dtb:totalPageCount" content="0"/>\n<meta name="dtb:maxPageNumber" content="0"/>\n</head>\n' +
    `<docTitle><text>${escapeXml(meta.title)}</text></docTitle>\n<navMap>\n${map.join('\n')}\n</navMap>\n</ncx>\n`
  );
}

const STATUS_TEXT: Readonly<Record<NonNullable<BookMeta['status']>, string>> = { complete: 'Complete', 'in-progress': 'In progress' };

/**
 * The first page: the cover when there is one, the title, every author, the series line, the
 * status, the source's publication and update days, and the description.
 */
export function titlePage(meta: BookMeta): string {
  const parts: string[] = [];
  if (meta.cover !== null) parts.push(`<div class="cover"><img src="${meta.cover.href}" alt="Cover"/></div>`);
  parts.push(`<h1 class="book-title">${escapeXml(meta.title)}</h1>`);
  if (meta.creators.length > 0) parts.push(`<p class="byline">by ${escapeXml(meta.creators.join(', '))}</p>`);
  if (meta.series !== null) {
    const index = seriesIndex(meta.series.index);
    parts.push(`<p class="series-line">${index === undefined ? '' : `Book ${index} of `}${escapeXml(meta.series.name)}</p>`);
  }
  const facts = [
    `Language: ${meta.language}`,
    meta.status === null ? undefined : `Status: ${STATUS_TEXT[meta.status]}`,
    meta.publishedAt === null ? undefined : `Published: ${day(meta.publishedAt)}`,
    meta.sourceUpdatedAt === null ? undefined : `Updated: ${day(meta.sourceUpdatedAt)}`,
  ].filter((fact) => fact !== undefined);
  if (facts.length > 0) parts.push(`<p class="book-facts">${facts.map(escapeXml).join('<br/>')}</p>`);
  if (meta.description !== null && meta.description.trim() !== '') {
    for (const paragraph of meta.description.split(/\n\s*\n/)) if (paragraph.trim() !== '') parts.push(`<p>${escapeXml(paragraph.trim())}</p>`);
  }
  return xhtmlDocument(meta.title, meta.language, parts.join('\n'));
}
