/**
 * An EPUB (2 or 3) as one story (docs/decisions.md, "File import"): `META-INF/container.xml`
 * names the package document (OPF), whose metadata gives the title, author (`dc:creator`), tags
 * (`dc:subject`), summary (`dc:description`), source URL (`dc:source`, else a URL
 * `dc:identifier`) and series with volume (calibre's `calibre:series`/`calibre:series_index`, or
 * EPUB 3's `belongs-to-collection` with `group-position`). The spine's XHTML documents are
 * joined in reading order, each chapter's headings kept. Images are dropped: their relative
 * sources point inside the EPUB, which the story HTML policy does not allow.
 */
import path from 'node:path/posix';
import { DOMParser, parseHTML } from 'linkedom';
import { squeeze, type RawStory } from './raw-story.js';
import { openZip, type OpenedZip, UnsafeArchive } from './zip.js';

/** One EPUB's XML documents (container, package) at most. */
const EPUB_XML_MAX = 4 * 1024 * 1024;
/** Every spine document of one EPUB together, like the largest story body the API takes. */
export const EPUB_TEXT_MAX = 16 * 1024 * 1024;

type XmlElement = {
  tagName: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
};
type XmlDocument = { querySelectorAll(selector: string): ArrayLike<XmlElement> };

/** Elements by local name whatever their prefix (`dc:title`, `opf:meta`, `meta`). */
function elements(doc: XmlDocument, localName: string): XmlElement[] {
  return Array.from(doc.querySelectorAll('*')).filter((element) => {
    const tag = element.tagName.toLowerCase();
    return tag === localName || tag.endsWith(`:${localName}`);
  });
}

function attribute(element: XmlElement, name: string): string | undefined {
  return element.getAttribute(name) ?? element.getAttribute(`opf:${name}`) ?? undefined;
}

function parseXml(text: string): XmlDocument {
  return new DOMParser().parseFromString(text, 'text/xml') as unknown as XmlDocument;
}

async function readText(zip: OpenedZip, name: string, maxBytes: number): Promise<string> {
  const entry = zip.entries.find((candidate) => candidate.name === name);
  if (entry === undefined) throw new Error(`the EPUB has no ${name}`);
  return (await zip.read(entry, maxBytes)).toString('utf8');
}

function isHttpUrl(text: string | undefined): text is string {
  return text !== undefined && /^https?:\/\/\S+$/i.test(text);
}

/** The source URL: `dc:source`, else an identifier that is a URL (FanFicFare writes `URL:` or a scheme of URL). */
function sourceUrlOf(doc: XmlDocument): string | undefined {
  const source = elements(doc, 'source').map((element) => squeeze(element.textContent)).find(isHttpUrl);
  if (source !== undefined) return source;
  return elements(doc, 'identifier')
    .map((element) => squeeze(element.textContent)?.replace(/^url:\s*/i, ''))
    .find(isHttpUrl);
}

function volumeOf(text: string | undefined): number | undefined {
  const value = Number.parseFloat(text ?? '');
  return Number.isFinite(value) && value >= 0 ? Math.trunc(value) : undefined;
}

/** calibre's series metadata, else EPUB 3's collection with its position. */
function seriesOf(doc: XmlDocument): { seriesName?: string; volume?: number } {
  const metas = elements(doc, 'meta');
  const named = (name: string) => squeeze(metas.find((meta) => attribute(meta, 'name') === name)?.getAttribute('content'));
  const calibre = named('calibre:series');
  if (calibre !== undefined) {
    const volume = volumeOf(named('calibre:series_index'));
    return { seriesName: calibre, ...(volume === undefined ? {} : { volume }) };
  }
  const collection = metas.find((meta) => meta.getAttribute('property') === 'belongs-to-collection');
  const seriesName = squeeze(collection?.textContent);
  if (collection === undefined || seriesName === undefined) return {};
  const id = collection.getAttribute('id');
  const position = metas.find((meta) => meta.getAttribute('refines') === `#${id}` && meta.getAttribute('property') === 'group-position');
  const volume = volumeOf(squeeze(position?.textContent));
  return { seriesName, ...(volume === undefined ? {} : { volume }) };
}

/** The metadata fields of a package document. */
function metadataOf(opf: XmlDocument): Omit<RawStory, 'html'> {
  const first = (name: string) => elements(opf, name).map((element) => squeeze(element.textContent)).find((text) => text !== undefined);
  const title = first('title');
  const authorName = first('creator');
  const description = first('description');
  // A description is often HTML (FanFicFare, AO3): its text is the summary.
  const summary = description === undefined ? undefined : squeeze(parseHTML(`<!doctype html><html><body>${description}</body></html>`).document.body?.textContent);
  const tagNames = elements(opf, 'subject')
    .map((element) => squeeze(element.textContent))
    .filter((text): text is string => text !== undefined);
  const sourceUrl = sourceUrlOf(opf);
  return {
    ...(title === undefined ? {} : { title }),
    ...(authorName === undefined ? {} : { authorName }),
    ...(summary === undefined ? {} : { summary }),
    ...(sourceUrl === undefined ? {} : { sourceUrl }),
    ...(tagNames.length === 0 ? {} : { tagNames }),
    ...seriesOf(opf),
  };
}

/** The archive paths of the spine's documents, in reading order. */
function spinePaths(opf: XmlDocument, opfPath: string): string[] {
  const manifest = new Map<string, string>();
  for (const item of elements(opf, 'item')) {
    const id = item.getAttribute('id');
    const href = item.getAttribute('href');
    if (id !== null && href !== null) manifest.set(id, href);
  }
  const base = path.dirname(opfPath);
  return elements(opf, 'itemref').flatMap((itemref) => {
    const href = manifest.get(itemref.getAttribute('idref') ?? '');
    if (href === undefined) return [];
    const file = decodeURIComponent(href.split('#')[0] as string);
    return [path.normalize(path.join(base, file)).replace(/^\.\//, '')];
  });
}

/** One chapter's body; a chapter without a heading of its own gets its document title as one. */
function chapterHtml(xhtml: string, bookTitle: string | undefined): string {
  const { document } = parseHTML(xhtml);
  const body = document.body?.innerHTML ?? '';
  const title = squeeze(document.title);
  if (title !== undefined && title !== bookTitle && document.querySelector('h1, h2, h3') === null) {
    const heading = parseHTML('<h2></h2>').document.querySelector('h2') as { textContent: string; outerHTML: string };
    heading.textContent = title;
    return `${heading.outerHTML}\n${body}`;
  }
  return body;
}

/** Parses an EPUB held at `source` (a path or its bytes) into a story. */
export async function parseEpub(source: string | Buffer): Promise<RawStory> {
  const zip = await openZip(source);
  try {
    const container = parseXml(await readText(zip, 'META-INF/container.xml', EPUB_XML_MAX));
    const opfPath = elements(container, 'rootfile')[0]?.getAttribute('full-path');
    if (opfPath === undefined || opfPath === null) throw new Error('META-INF/container.xml names no package document');
    const opf = parseXml(await readText(zip, opfPath, EPUB_XML_MAX));
    const metadata = metadataOf(opf);
    const chapters: string[] = [];
    let bytes = 0;
    for (const file of spinePaths(opf, opfPath)) {
      const entry = zip.entries.find((candidate) => candidate.name === file);
      if (entry === undefined) continue;
      bytes += entry.uncompressedSize;
      if (bytes > EPUB_TEXT_MAX) throw new UnsafeArchive(`the text of this EPUB is over ${EPUB_TEXT_MAX} bytes`);
      chapters.push(chapterHtml((await zip.read(entry, EPUB_TEXT_MAX)).toString('utf8'), metadata.title));
    }
    if (chapters.length === 0) throw new Error('the EPUB spine names no readable document');
    return { ...metadata, html: chapters.join('\n') };
  } finally {
    zip.close();
  }
}
