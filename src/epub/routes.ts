import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { attachment } from '../lib/content-disposition.js';
import { errorResponses, IdParams } from '../schemas/common.js';
import { EpubBytes, EpubSearchQuery } from '../schemas/epub.js';
import * as epub from './service.js';

const EPUB = ['epub'];
/** Every book route's answers. */
export const bookResponses = { 200: EpubBytes, ...errorResponses(400, 401, 403, 404, 413) };

/** Sends a built book as a download (also for the OPDS catalog's acquisition link). */
export function sendBook(reply: FastifyReply, file: epub.EpubFile): FastifyReply {
  return reply
    .header('content-type', 'application/epub+zip')
    .header('content-disposition', attachment(file.title, '.epub', 'book'))
    .header('cache-control', 'private, no-cache')
    .header('etag', `"${file.hash}"`)
    .send(file.bytes);
}

/**
 * EPUB export (docs/api.md, "EPUB export"; docs/decisions.md, "EPUB export"). Read-only, so a
 * device token with the `read` scope may download books.
 */
export const epubRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/stories/:id/epub',
    { schema: { tags: EPUB, summary: 'A story as an EPUB 3 book', params: IdParams, response: bookResponses } },
    async (request, reply) => sendBook(reply, await epub.storyEpub(app.db, app.images, request.params.id)),
  );

  app.get(
    '/series/:id/epub',
    { schema: { tags: EPUB, summary: `A series as one EPUB 3 book, its stories in volume order (at most ${epub.MAX_BOOK_STORIES})`, params: IdParams, response: bookResponses } },
    async (request, reply) => sendBook(reply, await epub.seriesEpub(app.db, app.images, request.params.id)),
  );

  app.get(
    '/tags/:id/epub',
    { schema: { tags: EPUB, summary: `Every story with a tag as one EPUB 3 book, oldest first (at most ${epub.MAX_BOOK_STORIES})`, params: IdParams, response: bookResponses } },
    async (request, reply) => sendBook(reply, await epub.tagEpub(app.db, app.images, request.params.id)),
  );

  app.get(
    '/search/epub',
    { schema: { tags: EPUB, summary: 'The best matches of a story search as one EPUB 3 book, most relevant first', querystring: EpubSearchQuery, response: bookResponses } },
    async (request, reply) => sendBook(reply, await epub.searchEpub(app.db, app.images, app.searchEngine, request.query.query, request.query.limit)),
  );
};
