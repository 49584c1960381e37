import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IdParams } from '../schemas/common.js';
import { BookResponses, EpubSearchQuery } from '../schemas/epub.js';
import { sendBook } from './reply.js';
import * as epub from './service.js';

const EPUB = ['epub'];

/**
 * EPUB export (docs/api.md, "EPUB export"; docs/decisions.md, "EPUB export"). Read-only, so a
 * device token with the `read` scope may download books.
 */
export const epubRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/stories/:id/epub',
    { schema: { tags: EPUB, summary: 'A story as an EPUB 3 book', params: IdParams, response: BookResponses } },
    async (request, reply) => sendBook(reply, await epub.storyEpub(app.epub, request.params.id)),
  );

  app.get(
    '/series/:id/epub',
    { schema: { tags: EPUB, summary: `A series as one EPUB 3 book, its stories in volume order (at most ${epub.MAX_BOOK_STORIES})`, params: IdParams, response: BookResponses } },
    async (request, reply) => sendBook(reply, await epub.seriesEpub(app.epub, request.params.id)),
  );

  app.get(
    '/tags/:id/epub',
    { schema: { tags: EPUB, summary: `Every story with a tag as one EPUB 3 book, oldest first (at most ${epub.MAX_BOOK_STORIES})`, params: IdParams, response: BookResponses } },
    async (request, reply) => sendBook(reply, await epub.tagEpub(app.epub, request.params.id)),
  );

  app.get(
    '/search/epub',
    { schema: { tags: EPUB, summary: 'The best matches of a story search as one EPUB 3 book, most relevant first', querystring: EpubSearchQuery, response: BookResponses } },
    async (request, reply) => sendBook(reply, await epub.searchEpub(app.epub, app.searchEngine, request.query.query, request.query.limit)),
  );
};
