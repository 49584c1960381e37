import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendBook } from '../epub/reply.js';
import { storyEpub } from '../epub/service.js';
import { sendImage } from '../files/reply.js';
import { errorResponses } from '../schemas/common.js';
import { ImageBytes, ImageTailParams, ImageTailQuery, NotModified } from '../schemas/files.js';
import { BookResponses } from '../schemas/epub.js';
import { OpdsIdParams, OpdsPageQuery, OpdsSearchQuery, OpdsStoriesQuery, XmlDocument, type OpdsSort } from '../schemas/opds.js';
import { OpdsLinks } from './links.js';
import {
  ACQUISITION_TYPE,
  acquisitionFeed,
  NAVIGATION_TYPE,
  catalogRoot,
  OPENSEARCH_TYPE,
  openSearchDescription,
  pagedNavigationFeed,
  type FeedHead,
} from './present.js';
import * as opds from './service.js';
import { ATOM_TYPE, updatesFeed } from './updates-feed.js';
import { latestUpdateEntries } from '../follow/updates-service.js';

const OPDS = ['opds'];
const xmlResponses = { 200: XmlDocument, 304: NotModified, ...errorResponses(400, 401, 403, 404) };

/** The title of the all-stories feed in each order. */
const SORT_TITLES: Readonly<Record<OpdsSort, string>> = {
  added: 'Recently added',
  updated: 'Recently updated',
  title: 'All stories A–Z',
  rating: 'All stories by rating',
  words: 'All stories by length',
};

/** The reader's lists (docs/decisions.md, "Reading status"): path segment, title, filter. */
const READER_LISTS: ReadonlyArray<readonly [string, string, opds.ReaderListFilter]> = [
  ['want-to-read', 'Want to read', { readingStatus: 'want-to-read' }],
  ['reading', 'Reading', { readingStatus: 'reading' }],
  ['favourites', 'Favourites', { favourite: true }],
];

/** The path form's token (`/opds/k/:token/…`), or undefined for the header forms. */
function linksOf(request: FastifyRequest): OpdsLinks {
  const token = (request.params as { token?: unknown }).token;
  return new OpdsLinks(typeof token === 'string' ? token : undefined);
}

/**
 * Sends an XML document with a weak ETag of its bytes, or 304 when the client's copy is that one:
 * e-readers poll the catalog, and a hash of ~100 KB costs well under a millisecond.
 */
function sendXml(request: FastifyRequest, reply: FastifyReply, body: string, type: string) {
  const etag = `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  reply.header('ETag', etag).header('Cache-Control', 'private, no-cache');
  const given = request.headers['if-none-match'];
  if (given !== undefined && given.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) return reply.code(304).send();
  return reply.type(type).send(body);
}

/**
 * The catalog's feeds (docs/api.md, "OPDS catalog"), registered twice by ./plugin.ts: at `/opds` for the
 * cookie, Bearer and Basic forms and at `/opds/k/:token` for the path form. Every route is a GET
 * and so needs a device token's `read` scope.
 */
export const opdsFeedRoutes: FastifyPluginAsyncTypebox = async (app) => {
  /** An acquisition feed of the page, `updated` when its newest entry was (else the library). */
  const acquisition = (request: FastifyRequest, reply: FastifyReply, head: Omit<FeedHead, 'updated'>, page: opds.StoryPage, sort?: OpdsSort) => {
    const updated = opds.newest(app.db, page.stories.map((story) => story.updatedAt));
    const facets = sort === undefined ? undefined : { active: sort };
    return sendXml(request, reply, acquisitionFeed(linksOf(request), { ...head, updated }, page, facets), ACQUISITION_TYPE);
  };
  /** A paged navigation feed (authors, series, tags, shelves, fandoms), stamped with its newest item. */
  const navigation = (request: FastifyRequest, reply: FastifyReply, head: Omit<FeedHead, 'updated'>, page: opds.NavigationPage, itemPath: (id: string) => string) => {
    const updated = opds.newest(app.db, page.items.map((item) => item.updated));
    return sendXml(request, reply, pagedNavigationFeed(linksOf(request), { ...head, updated }, page, itemPath), NAVIGATION_TYPE);
  };

  app.get('/', { schema: { tags: OPDS, summary: 'The catalog root (navigation)', response: xmlResponses } }, async (request, reply) =>
    sendXml(request, reply, catalogRoot(linksOf(request), opds.libraryUpdated(app.db)), NAVIGATION_TYPE),
  );

  app.get(
    '/stories',
    { schema: { tags: OPDS, summary: 'Every story, in one of five orders (sort facets)', querystring: OpdsStoriesQuery, response: xmlResponses } },
    async (request, reply) => {
      const { sort, page } = request.query;
      const result = opds.allStories(app.db, sort, page);
      const query = sort === 'title' ? {} : { sort };
      return acquisition(request, reply, { key: `stories:${sort}`, title: SORT_TITLES[sort], path: '/stories', query }, result, sort);
    },
  );

  app.get(
    '/top-rated',
    { schema: { tags: OPDS, summary: 'Rated stories, best first', querystring: OpdsPageQuery, response: xmlResponses } },
    async (request, reply) => {
      const result = opds.topRated(app.db, request.query.page);
      return acquisition(request, reply, { key: 'top-rated', title: 'Top rated', path: '/top-rated' }, result);
    },
  );

  app.get(
    '/updated',
    { schema: { tags: OPDS, summary: 'Stories that gained chapters, newest arrival first', querystring: OpdsPageQuery, response: xmlResponses } },
    async (request, reply) => {
      const result = opds.updated(app.db, request.query.page);
      return acquisition(request, reply, { key: 'new-chapters', title: 'Updated', path: '/updated' }, result);
    },
  );

  // Plain Atom for feed readers, authenticated like every feed here (docs/decisions.md, "Sources › Telling the reader").
  app.get('/updates.atom', { schema: { tags: OPDS, summary: 'The newest 50 updates from the sources, as an Atom feed', response: xmlResponses } }, async (request, reply) =>
    sendXml(request, reply, updatesFeed(`${request.protocol}://${request.host}`, linksOf(request), latestUpdateEntries(app.db), opds.libraryUpdated(app.db)), ATOM_TYPE),
  );

  app.get('/continue', { schema: { tags: OPDS, summary: 'Stories being read, last read first', response: xmlResponses } }, async (request, reply) => {
    const result = opds.continueReading(app.db);
    return acquisition(request, reply, { key: 'continue', title: 'Continue reading', path: '/continue' }, result);
  });

  for (const [segment, title, filter] of READER_LISTS) {
    app.get(
      `/${segment}`,
      { schema: { tags: OPDS, summary: `${title}: the reader's list, newest first`, querystring: OpdsPageQuery, response: xmlResponses } },
      async (request, reply) => {
        const result = await opds.readerList(app.db, app.searchEngine, filter, request.query.page);
        return acquisition(request, reply, { key: segment, title, path: `/${segment}` }, result);
      },
    );
  }

  app.get(
    '/search',
    { schema: { tags: OPDS, summary: 'Search the stories', querystring: OpdsSearchQuery, response: xmlResponses } },
    async (request, reply) => {
      const { q, page } = request.query;
      const result = await opds.search(app.db, app.searchEngine, q, page);
      return acquisition(request, reply, { key: 'search', title: `Search: ${q}`, path: '/search', query: { q } }, result);
    },
  );

  app.get('/search.xml', { schema: { tags: OPDS, summary: 'The OpenSearch description', response: xmlResponses } }, async (request, reply) =>
    sendXml(request, reply, openSearchDescription(`${request.protocol}://${request.host}`, linksOf(request)), OPENSEARCH_TYPE),
  );

  for (const [segment, title, list, stories] of [
    ['authors', 'Authors', opds.authors, opds.authorStories],
    ['series', 'Series', opds.series, opds.seriesStories],
    ['tags', 'Tags', opds.tags, opds.tagStories],
  ] as const) {
    app.get(
      `/${segment}`,
      { schema: { tags: OPDS, summary: `${title} (navigation)`, querystring: OpdsPageQuery, response: xmlResponses } },
      async (request, reply) => {
        return navigation(request, reply, { key: segment, title, path: `/${segment}` }, list(app.db, request.query.page), (id) => `/${segment}/${id}`);
      },
    );

    app.get(
      `/${segment}/:id`,
      { schema: { tags: OPDS, summary: `The stories of one of the ${segment}`, params: OpdsIdParams, querystring: OpdsPageQuery, response: xmlResponses } },
      async (request, reply) => {
        const { id } = request.params;
        const result = stories(app.db, id, request.query.page);
        const head = { key: `${segment}:${id}`, title: result.name, path: `/${segment}/${id}`, up: { path: `/${segment}`, kind: 'navigation' as const } };
        return acquisition(request, reply, head, result);
      },
    );
  }

  app.get(
    '/shelves',
    { schema: { tags: OPDS, summary: 'Shelves (navigation)', querystring: OpdsPageQuery, response: xmlResponses } },
    async (request, reply) => {
      return navigation(request, reply, { key: 'shelves', title: 'Shelves', path: '/shelves' }, opds.shelves(app.db, request.query.page), (id) => `/shelves/${id}`);
    },
  );

  app.get(
    '/shelves/:id',
    { schema: { tags: OPDS, summary: "A shelf's stories in its order", params: OpdsIdParams, querystring: OpdsPageQuery, response: xmlResponses } },
    async (request, reply) => {
      const { id } = request.params;
      const result = await opds.shelfStories(app.db, app.searchEngine, id, request.query.page);
      const head = { key: `shelves:${id}`, title: result.name, path: `/shelves/${id}`, up: { path: '/shelves', kind: 'navigation' as const } };
      return acquisition(request, reply, head, result);
    },
  );

  // Fandoms lead to the tag's own feed: a fandom is a tag of that kind (docs/decisions.md, "Tag kinds").
  app.get(
    '/fandoms',
    { schema: { tags: OPDS, summary: 'Fandoms: tags of kind fandom, most stories first (navigation)', querystring: OpdsPageQuery, response: xmlResponses } },
    async (request, reply) => {
      return navigation(request, reply, { key: 'fandoms', title: 'By fandom', path: '/fandoms' }, opds.fandoms(app.db, request.query.page), (id) => `/tags/${id}`);
    },
  );

  // The story's EPUB under the catalog, so a path-form feed's acquisition link keeps its form (./links.ts).
  app.get(
    '/stories/:id.epub',
    { schema: { tags: OPDS, summary: 'A story as an EPUB 3 book, the same file as GET /api/stories/{id}/epub', params: OpdsIdParams, response: BookResponses } },
    async (request, reply) => sendBook(reply, await storyEpub(app.epub, request.params.id)),
  );

  // Covers under the catalog, so a path-form feed's images keep its form (./links.ts).
  app.get(
    '/images/*',
    {
      schema: { tags: OPDS, summary: 'A cover by its path; with ?w= its thumbnail (WebP, or JPEG with ?format=jpeg)', params: ImageTailParams, querystring: ImageTailQuery, response: { 200: ImageBytes, 304: NotModified, ...errorResponses(400, 401, 403, 404) } },
    },
    async (request, reply) => sendImage(reply, app.images, request.params['*'], request.query, request.headers),
  );
};
