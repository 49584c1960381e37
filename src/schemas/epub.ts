/**
 * The EPUB export contracts (docs/api.md, "EPUB export"; docs/decisions.md, "EPUB export"): the
 * book bytes, every book route's answers and the search book's query.
 */
import { Type, type Static } from '@sinclair/typebox';
import { errorResponses, SearchText } from './common.js';

/** Most stories a search book holds (the service's `MAX_BOOK_STORIES`). */
export const SEARCH_BOOK_MAX = 200;

export const EpubBytes = Type.String({ format: 'binary', contentMediaType: 'application/epub+zip', description: 'The EPUB 3 file' });

/** Every book route's answers, under /api and under the OPDS catalog alike. */
export const BookResponses = { 200: EpubBytes, ...errorResponses(400, 401, 403, 404, 413) };

/** `GET /api/search/epub`: the search text and how many of the best matches to include. */
export const EpubSearchQuery = Type.Object({
  query: SearchText,
  limit: Type.Integer({ minimum: 1, maximum: SEARCH_BOOK_MAX, default: 50, description: `Best matches to include, 1 to ${SEARCH_BOOK_MAX}` }),
});
export type EpubSearchQuery = Static<typeof EpubSearchQuery>;
