/**
 * The feeds as OPDS 1.2 Atom documents (docs/api.md, "OPDS catalog"), from small string templates: every
 * value goes through the one escaper, `xml` (./xml.ts). Each feed has an id, a title, an
 * `updated`, a feed-level author (so entries without one stay valid Atom), `self`/`start`/`up`
 * and search links; acquisition feeds add paging links and the OpenSearch counts.
 */
import { FORMATS } from '../images/formats.js';
import { OPDS_SORTS, type OpdsSort } from '../schemas/opds.js';
import type { OpdsLinks, QueryValues } from './links.js';
import type { OpdsStory } from './repository.js';
import { OPDS_PAGE_SIZE, type NavigationPage, type StoryPage } from './service.js';
import { escapeXml } from '../lib/xml.js';
import { linkElement } from './xml.js';

export const NAVIGATION_TYPE = 'application/atom+xml;profile=opds-catalog;kind=navigation';
export const ACQUISITION_TYPE = 'application/atom+xml;profile=opds-catalog;kind=acquisition';
export const OPENSEARCH_TYPE = 'application/opensearchdescription+xml';
export const EPUB_TYPE = 'application/epub+zip';

const REL_ACQUISITION = 'http://opds-spec.org/acquisition';
const REL_IMAGE = 'http://opds-spec.org/image';
const REL_THUMBNAIL = 'http://opds-spec.org/image/thumbnail';
const REL_FACET = 'http://opds-spec.org/facet';

/**
 * schema.org twice, because the two parsers that read a story's series disagree on its name:
 * NYPL's opds-feed-parser matches the prefix declared for `http://schema.org/` (with the slash)
 * and reads `<schema:Series name="…" schema:position="…">`; Readium's r2-opds-js resolves
 * `schema:Series` with `@schema:name`, `@schema:position` and `@schema:url` in
 * `http://schema.org` (without it). One element cannot be in both, so an entry carries one of
 * each (docs/decisions.md, "OPDS catalog").
 */
const NAMESPACES =
  'xmlns="http://www.w3.org/2005/Atom" xmlns:opds="http://opds-spec.org/2010/catalog" ' +
  'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:dc="http://purl.org/dc/terms/" xmlns:schema="http://schema.org/" xmlns:schemaorg="http://schema.org"';

/** Feed ids are stable names, never addresses: a path-form address would carry the token. */
const idOf = (key: string) => `urn:storyshelf:opds:${key}`;

/** What every feed names: its id, title, where it is (path and query, for `self` and paging) and its parent. */
export interface FeedHead {
  key: string;
  title: string;
  updated: string;
  path: string;
  query?: QueryValues;
  /** The feed one level up; the root when absent. */
  up?: { path: string; kind: 'navigation' | 'acquisition' };
}

function head(links: OpdsLinks, feed: FeedHead, kind: 'navigation' | 'acquisition', page = 0): string {
  const type = kind === 'navigation' ? NAVIGATION_TYPE : ACQUISITION_TYPE;
  const up = feed.up ?? { path: '', kind: 'navigation' as const };
  return [
    `<id>${escapeXml(idOf(feed.key))}</id>`,
    `<title>${escapeXml(feed.title)}</title>`,
    `<updated>${escapeXml(feed.updated)}</updated>`,
    '<author><name>Storyshelf</name></author>',
    linkElement({ rel: 'self', href: links.feed(feed.path, { ...feed.query, page: page === 0 ? undefined : page }), type }),
    linkElement({ rel: 'start', href: links.feed(''), type: NAVIGATION_TYPE }),
    ...(feed.path === '' ? [] : [linkElement({ rel: 'up', href: links.feed(up.path), type: up.kind === 'navigation' ? NAVIGATION_TYPE : ACQUISITION_TYPE })]),
    linkElement({ rel: 'search', href: links.feed('/search.xml'), type: OPENSEARCH_TYPE }),
    linkElement({ rel: 'search', href: `${links.feed('/search')}?q={searchTerms}`, type: ACQUISITION_TYPE }),
  ].join('\n');
}

function document(body: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<feed ${NAMESPACES}>\n${body.join('\n')}\n</feed>\n`;
}

/** `first`/`previous`/`next`/`last` for a page of `total` entries, keeping the feed's other query values. */
function paging(links: OpdsLinks, feed: FeedHead, page: number, total: number, type: string): string[] {
  const last = Math.max(0, Math.ceil(total / OPDS_PAGE_SIZE) - 1);
  const at = (target: number) => links.feed(feed.path, { ...feed.query, page: target === 0 ? undefined : target });
  return [
    linkElement({ rel: 'first', href: at(0), type }),
    ...(page > 0 ? [linkElement({ rel: 'previous', href: at(Math.min(page - 1, last)), type })] : []),
    ...(page < last ? [linkElement({ rel: 'next', href: at(page + 1), type })] : []),
    linkElement({ rel: 'last', href: at(last), type }),
    `<opensearch:totalResults>${total}</opensearch:totalResults>`,
    `<opensearch:itemsPerPage>${OPDS_PAGE_SIZE}</opensearch:itemsPerPage>`,
    `<opensearch:startIndex>${page * OPDS_PAGE_SIZE + 1}</opensearch:startIndex>`,
  ];
}

/** A link of the root or of a navigation feed. */
export interface NavigationLink {
  key: string;
  title: string;
  text: string;
  path: string;
  query?: QueryValues;
  kind: 'navigation' | 'acquisition';
  /** `subsection` unless an OPDS relation says more (`…/sort/new`, `…/sort/popular`). */
  rel?: string;
  updated: string;
}

function navigationEntry(links: OpdsLinks, item: NavigationLink): string {
  return [
    '<entry>',
    `<id>${escapeXml(item.key.startsWith('urn:') ? item.key : idOf(item.key))}</id>`,
    `<title>${escapeXml(item.title)}</title>`,
    `<updated>${escapeXml(item.updated)}</updated>`,
    `<content type="text">${escapeXml(item.text)}</content>`,
    linkElement({ rel: item.rel ?? 'subsection', href: links.feed(item.path, item.query), type: item.kind === 'navigation' ? NAVIGATION_TYPE : ACQUISITION_TYPE }),
    '</entry>',
  ].join('\n');
}

/** The root, or any list of links to other feeds (not paged). */
function navigationFeed(links: OpdsLinks, feed: FeedHead, items: readonly NavigationLink[]): string {
  return document([head(links, feed, 'navigation'), ...items.map((item) => navigationEntry(links, item))]);
}

/** The catalog root: every list, each entry as new as the library (`updated`). */
export function catalogRoot(links: OpdsLinks, updated: string): string {
  const entry = (key: string, title: string, text: string, path: string, extra: Partial<NavigationLink> = {}): NavigationLink => ({
    key,
    title,
    text,
    path,
    kind: 'acquisition',
    updated,
    ...extra,
  });
  const items = [
    entry('continue', 'Continue reading', 'Stories you have started, last read first', '/continue'),
    entry('new-chapters', 'Updated', 'Stories that gained chapters, newest first', '/updated'),
    entry('want-to-read', 'Want to read', 'Stories you mean to read, newest first', '/want-to-read'),
    entry('reading', 'Reading', 'Stories you are reading, newest first', '/reading'),
    entry('favourites', 'Favourites', 'Your favourite stories, newest first', '/favourites'),
    entry('recent', 'Recently added', 'The newest stories first', '/stories', { query: { sort: 'added' }, rel: 'http://opds-spec.org/sort/new' }),
    entry('updated', 'Recently updated', 'The most recently changed stories first', '/stories', { query: { sort: 'updated' } }),
    entry('all', 'All stories A–Z', 'Every story by title', '/stories'),
    entry('top-rated', 'Top rated', 'Rated stories, best first', '/top-rated', { rel: 'http://opds-spec.org/sort/popular' }),
    entry('authors', 'Authors', 'Authors A–Z', '/authors', { kind: 'navigation' }),
    entry('series', 'Series', 'Series A–Z, each in volume order', '/series', { kind: 'navigation' }),
    entry('tags', 'Tags', 'Tags, most used first', '/tags', { kind: 'navigation' }),
    entry('shelves', 'Shelves', 'Your shelves A–Z, each in its own order', '/shelves', { kind: 'navigation' }),
    entry('fandoms', 'By fandom', 'Fandoms, most stories first', '/fandoms', { kind: 'navigation' }),
  ];
  return navigationFeed(links, { key: 'catalog', title: 'Storyshelf', updated, path: '' }, items);
}

/** A paged list of authors, series, tags or shelves, each leading to the acquisition feed of its stories at `itemPath(id)`. */
export function pagedNavigationFeed(links: OpdsLinks, feed: FeedHead, result: NavigationPage, itemPath: (id: string) => string): string {
  const items = result.items.map((item) => ({
    key: `urn:uuid:${item.id}`,
    title: item.name,
    text: item.storyCount === null ? 'A saved search' : item.storyCount === 1 ? '1 story' : `${item.storyCount} stories`,
    path: itemPath(item.id),
    kind: 'acquisition' as const,
    updated: item.updated,
  }));
  return document([
    head(links, feed, 'navigation', result.page),
    ...paging(links, feed, result.page, result.total, NAVIGATION_TYPE),
    ...items.map((item) => navigationEntry(links, item)),
  ]);
}

/** The media type of a stored cover, from its extension (the store names files by their sniffed format). */
function imageType(relPath: string): string | undefined {
  const ext = relPath.slice(relPath.lastIndexOf('.') + 1);
  return Object.values(FORMATS).find((format) => format.ext === ext)?.contentType;
}

const STATUS_TEXT = { complete: 'Complete', 'in-progress': 'In progress' } as const;

/** The chapters and completion line: "12 chapters · In progress" (Atom has no element for either). */
function workLine(story: OpdsStory): string {
  const chapters = story.chapterCount === 1 ? '1 chapter' : `${story.chapterCount} chapters`;
  return story.status === null ? chapters : `${chapters} · ${STATUS_TEXT[story.status]}`;
}

/** The entry's text: the chapters and status, the series line, then the summary. */
function entryText(story: OpdsStory): string {
  const series = story.seriesName === null ? undefined : story.volume === null ? `Series: ${story.seriesName}` : `Series: ${story.seriesName}, volume ${story.volume}`;
  return [workLine(story), series, story.summary ?? undefined].filter((part) => part !== undefined && part !== '').join('\n\n');
}

/** A story's series where NYPL's and Readium's parsers look for it (see {@link NAMESPACES}). */
function seriesElements(links: OpdsLinks, seriesId: string, name: string, volume: number | null): string[] {
  const position = volume === null ? '' : ` schema:position="${volume}"`;
  const url = escapeXml(links.feed(`/series/${seriesId}`));
  return [
    `<schema:Series name="${escapeXml(name)}"${position} schema:url="${url}"/>`,
    `<schemaorg:Series schemaorg:name="${escapeXml(name)}"${position.replace('schema:', 'schemaorg:')} schemaorg:url="${url}"/>`,
  ];
}

function storyEntry(links: OpdsLinks, story: OpdsStory): string {
  const lines = ['<entry>', `<id>urn:uuid:${escapeXml(story.id)}</id>`, `<title>${escapeXml(story.title)}</title>`, `<updated>${escapeXml(story.updatedAt)}</updated>`];
  lines.push(`<published>${escapeXml(story.createdAt)}</published>`);
  // One <author> each, in order: Atom allows several, and readers list them all.
  for (const author of story.authors) {
    lines.push(`<author><name>${escapeXml(author.name)}</name><uri>${escapeXml(links.feed(`/authors/${author.id}`))}</uri></author>`);
  }
  if (story.language !== null) lines.push(`<dc:language>${escapeXml(story.language)}</dc:language>`);
  for (const tag of story.tags) lines.push(`<category term="${escapeXml(tag)}" label="${escapeXml(tag)}"/>`);
  if (story.seriesId !== null && story.seriesName !== null) lines.push(...seriesElements(links, story.seriesId, story.seriesName, story.volume));
  // Foliate and others show <summary> and never <content>; NYPL's parser reads <content> first.
  if (story.summary !== null && story.summary !== '') lines.push(`<summary type="text">${escapeXml(story.summary)}</summary>`);
  lines.push(`<content type="text">${escapeXml(entryText(story))}</content>`);
  lines.push(linkElement({ rel: REL_ACQUISITION, href: links.epub(story.id), type: EPUB_TYPE }));
  if (story.coverPath !== null) {
    lines.push(linkElement({ rel: REL_IMAGE, href: links.image(story.coverPath), type: imageType(story.coverPath) }));
    lines.push(linkElement({ rel: REL_THUMBNAIL, href: links.thumbnail(story.coverPath), type: 'image/jpeg' }));
  }
  const page = links.webPage(story.id);
  if (page !== undefined) lines.push(linkElement({ rel: 'alternate', href: page, type: 'text/html' }));
  lines.push('</entry>');
  return lines.join('\n');
}

/** The sort facets of the all-stories feed: one link per order, the current one marked active. */
function sortFacets(links: OpdsLinks, path: string, active: OpdsSort): string[] {
  const titles: Record<OpdsSort, string> = { added: 'Recently added', updated: 'Recently updated', title: 'Title A–Z', rating: 'Top rated', words: 'Longest' };
  return OPDS_SORTS.map((sort) =>
    linkElement({
      rel: REL_FACET,
      href: links.feed(path, { sort }),
      type: ACQUISITION_TYPE,
      title: titles[sort],
      'opds:facetGroup': 'Sort',
      'opds:activeFacet': sort === active ? 'true' : undefined,
    }),
  );
}

/** A page of stories; `facets` gives the all-stories feed its sort facets. */
export function acquisitionFeed(links: OpdsLinks, feed: FeedHead, result: StoryPage, facets?: { active: OpdsSort }): string {
  return document([
    head(links, feed, 'acquisition', result.page),
    ...paging(links, feed, result.page, result.total, ACQUISITION_TYPE),
    ...(facets === undefined ? [] : sortFacets(links, feed.path, facets.active)),
    ...result.stories.map((story) => storyEntry(links, story)),
  ]);
}

/** The OpenSearch description: where to send a search, as an absolute URL template (some readers resolve nothing). */
export function openSearchDescription(origin: string, links: OpdsLinks): string {
  const template = `${origin}${links.feed('/search')}?q={searchTerms}`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">',
    '<ShortName>Storyshelf</ShortName>',
    '<Description>Search the stories of this Storyshelf library</Description>',
    '<InputEncoding>UTF-8</InputEncoding>',
    '<OutputEncoding>UTF-8</OutputEncoding>',
    `<Url type="${escapeXml(ACQUISITION_TYPE)}" template="${escapeXml(template)}"/>`,
    '</OpenSearchDescription>',
    '',
  ].join('\n');
}
