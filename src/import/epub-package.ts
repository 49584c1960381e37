/**
 * An EPUB's package document (OPF) read for the import (docs/decisions.md, "File import"): its
 * metadata as the story's, and where its documents are: manifest, spine, EPUB 2 guide, EPUB 3
 * navigation document, NCX. FanFicFare's files are recognised here (its `dc:contributor` or its
 * `fanficfare-uid` identifier), since some of its metadata needs reading its way.
 */
import path from 'node:path/posix';
import { DOMParser, parseHTML } from 'linkedom';
import { isoDateOf, languageTagOf, statusOf } from './fanficfare/title-page.js';
import { squeeze, type RawStory, type RawTag } from './raw-story.js';

export type XmlElement = {
  tagName: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
};
export type XmlDocument = { querySelectorAll(selector: string): ArrayLike<XmlElement> };

/** Elements by local name whatever their prefix (`dc:title`, `opf:meta`, `meta`). */
export function elements(doc: XmlDocument, localName: string): XmlElement[] {
  return Array.from(doc.querySelectorAll('*')).filter((element) => {
    const tag = element.tagName.toLowerCase();
    return tag === localName || tag.endsWith(`:${localName}`);
  });
}

function attribute(element: XmlElement, name: string): string | undefined {
  return element.getAttribute(name) ?? element.getAttribute(`opf:${name}`) ?? undefined;
}

export function parseXml(text: string): XmlDocument {
  return new DOMParser().parseFromString(text, 'text/xml') as unknown as XmlDocument;
}

/** An href of a document at `base` as the archive path it names, without its `#fragment`; undefined when it leaves the archive. */
export function archivePath(base: string, href: string): string | undefined {
  let file: string;
  try {
    file = decodeURIComponent(href.split('#')[0] as string);
  } catch {
    return undefined;
  }
  if (file === '' || /^[a-z][a-z0-9+.-]*:/i.test(file)) return undefined;
  const joined = path.normalize(path.join(base, file)).replace(/^\.\//, '');
  return joined.startsWith('../') || joined.startsWith('/') ? undefined : joined;
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

/** The role of a creator: EPUB 2's `opf:role`, or EPUB 3's refining `role` meta. */
function roleOf(creator: XmlElement, metas: readonly XmlElement[]): string | undefined {
  const direct = attribute(creator, 'role');
  if (direct !== undefined) return direct;
  const id = creator.getAttribute('id');
  if (id === null) return undefined;
  return squeeze(metas.find((meta) => meta.getAttribute('refines') === `#${id}` && meta.getAttribute('property') === 'role')?.textContent);
}

/** Every author (`dc:creator` without a role, or with `aut`), in order, each once. */
function authorsOf(doc: XmlDocument): string[] {
  const metas = elements(doc, 'meta');
  const names = elements(doc, 'creator')
    .filter((creator) => {
      const role = roleOf(creator, metas);
      return role === undefined || role === 'aut';
    })
    .map((creator) => squeeze(creator.textContent))
    .filter((name): name is string => name !== undefined);
  return [...new Set(names)];
}

/**
 * `dc:subject` values that are FanFicFare's (and calibre's) bookkeeping, not what a story is
 * about: never tags. The status words give the status instead.
 */
const BOOKKEEPING = /^(fanfiction|in-progress|completed?|last update(?: year\/month)?:.*)$/i;

/**
 * FanFicFare escapes `&` in a subject twice (the parsed text is `Harry Potter &amp; Hermione
 * Granger`): one more round of the XML entities, in its files only.
 */
function unescapeOnce(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos|#39);/g, (_entity, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" })[name] as string);
}

export interface EpubPackage {
  metadata: Omit<RawStory, 'chapters'>;
  /** Whether FanFicFare made the file. */
  fanficfare: boolean;
  /** Manifest items by id: archive path, media type, properties. */
  manifest: Map<string, { path: string; mediaType: string; properties: string }>;
  /** The spine's documents in reading order (archive paths). */
  spine: string[];
  /** Documents the EPUB 2 guide calls cover, title page or contents. */
  guideSkipped: Set<string>;
  /** The EPUB 3 navigation document and the NCX, when there are. */
  navPath?: string;
  ncxPath?: string;
}

/** Guide reference types (EPUB 2) and landmark types (EPUB 3) that are not story text. */
export const NOT_TEXT_TYPES = new Set(['cover', 'title-page', 'titlepage', 'toc', 'loi', 'lot']);

function fanficfareUid(doc: XmlDocument): string | undefined {
  const identifiers = elements(doc, 'identifier');
  const uid = identifiers.find((element) => element.getAttribute('id') === 'fanficfare-uid') ?? identifiers.find((element) => /^fanficfare-uid:/i.test(squeeze(element.textContent) ?? ''));
  return squeeze(uid?.textContent);
}

function subjectTags(doc: XmlDocument, fanficfare: boolean): { tags: RawTag[]; status?: RawStory['status'] } {
  const tags: RawTag[] = [];
  let status: RawStory['status'];
  for (const element of elements(doc, 'subject')) {
    const raw = squeeze(element.textContent);
    if (raw === undefined) continue;
    const name = fanficfare ? unescapeOnce(raw) : raw;
    if (BOOKKEEPING.test(name)) status ??= statusOf(name);
    else tags.push({ name });
  }
  return { tags, ...(status === undefined ? {} : { status }) };
}

/** The dates EPUB 2 writes (`opf:event` publication and modification); EPUB 3 files have only their own `dcterms:modified`. */
function datesOf(doc: XmlDocument): Pick<RawStory, 'publishedAt' | 'sourceUpdatedAt'> {
  const dated = (event: string) => isoDateOf(squeeze(elements(doc, 'date').find((element) => attribute(element, 'event') === event)?.textContent));
  const publishedAt = dated('publication');
  const sourceUpdatedAt = dated('modification');
  return { ...(publishedAt === undefined ? {} : { publishedAt }), ...(sourceUpdatedAt === undefined ? {} : { sourceUpdatedAt }) };
}

/** Reads the package document at `opfPath`. */
export function readPackage(opfText: string, opfPath: string): EpubPackage {
  const opf = parseXml(opfText);
  const base = path.dirname(opfPath);
  const uid = fanficfareUid(opf);
  const fanficfare = uid !== undefined || elements(opf, 'contributor').some((element) => /^FanFicFare\b/.test(squeeze(element.textContent) ?? ''));
  const first = (name: string) => elements(opf, name).map((element) => squeeze(element.textContent)).find((text) => text !== undefined);
  const title = first('title');
  const description = first('description');
  // A description is often HTML (FanFicFare, AO3): its text is the summary.
  const summary = description === undefined ? undefined : squeeze(parseHTML(`<!doctype html><html><body>${description}</body></html>`).document.body?.textContent);
  const authorNames = authorsOf(opf);
  const { tags, status } = subjectTags(opf, fanficfare);
  const sourceUrl = sourceUrlOf(opf);
  const language = languageTagOf(first('language'));
  const metadata: Omit<RawStory, 'chapters'> = {
    ...(title === undefined ? {} : { title }),
    ...(authorNames.length === 0 ? {} : { authorNames }),
    ...(summary === undefined ? {} : { summary }),
    ...(sourceUrl === undefined ? {} : { sourceUrl }),
    ...(tags.length === 0 ? {} : { tags }),
    ...(status === undefined ? {} : { status }),
    ...(language === undefined ? {} : { language }),
    ...(uid === undefined ? {} : { uid }),
    ...datesOf(opf),
    ...seriesOf(opf),
  };

  const manifest = new Map<string, { path: string; mediaType: string; properties: string }>();
  for (const item of elements(opf, 'item')) {
    const id = item.getAttribute('id');
    const file = archivePath(base, item.getAttribute('href') ?? '');
    if (id !== null && file !== undefined) manifest.set(id, { path: file, mediaType: item.getAttribute('media-type') ?? '', properties: item.getAttribute('properties') ?? '' });
  }
  const spine = elements(opf, 'itemref').flatMap((itemref) => {
    const item = manifest.get(itemref.getAttribute('idref') ?? '');
    return item === undefined ? [] : [item.path];
  });
  const guideSkipped = new Set(
    elements(opf, 'reference')
      .filter((reference) => NOT_TEXT_TYPES.has((reference.getAttribute('type') ?? '').toLowerCase()))
      .map((reference) => archivePath(base, reference.getAttribute('href') ?? ''))
      .filter((file): file is string => file !== undefined),
  );
  const items = [...manifest.values()];
  const navPath = items.find((item) => item.properties.split(/\s+/).includes('nav'))?.path;
  const ncxId = elements(opf, 'spine')[0]?.getAttribute('toc');
  const ncxPath = (ncxId ? manifest.get(ncxId) : undefined)?.path ?? items.find((item) => item.mediaType === 'application/x-dtbncx+xml')?.path;
  return { metadata, fanficfare, manifest, spine, guideSkipped, ...(navPath === undefined ? {} : { navPath }), ...(ncxPath === undefined ? {} : { ncxPath }) };
}
