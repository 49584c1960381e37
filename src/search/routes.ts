import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../schemas/common.js';
import {
  AuthorFullTextQuery,
  AuthorSearchResult,
  ReindexResult,
  SearchHealth,
  StorySearchQuery,
  StorySearchResult,
  SuggestionList,
  SuggestionQuery,
} from '../schemas/search.js';
import * as search from './service.js';

const SEARCH = ['search'];

/**
 * Story search and suggestions, `search-typesense`, reindex and health (docs/api.md, "Search —
 * /api/stories/search and /api/search"), with the behaviour of docs/decisions.md, "Search". Every
 * route asks `app.searchEngine`, whichever engine that is. `/stories/search` is a literal segment,
 * so it wins over `/stories/:id`.
 */
export const searchRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/stories/search',
    {
      schema: {
        tags: SEARCH,
        summary: 'Full-text story search with filters, sorting and snippets',
        querystring: StorySearchQuery,
        response: { 200: StorySearchResult, ...errorResponses(400, 401, 503) },
      },
    },
    async (request) => search.answerStorySearch(app.searchEngine, request.query),
  );

  app.get(
    '/stories/search/suggestions',
    {
      schema: {
        tags: SEARCH,
        summary: 'Titles and author, series and tag names with a word starting with the text',
        querystring: SuggestionQuery,
        response: { 200: SuggestionList, ...errorResponses(400, 401, 503) },
      },
    },
    async (request) => app.searchEngine.suggest(request.query.query, request.query.limit),
  );

  app.get(
    '/authors/search-typesense',
    {
      schema: {
        tags: SEARCH,
        summary: 'Full-text author search over name, notes and URLs',
        querystring: AuthorFullTextQuery,
        response: { 200: AuthorSearchResult, ...errorResponses(400, 401, 503) },
      },
    },
    async (request) => search.answerAuthorSearch(app.searchEngine, request.query),
  );

  app.post(
    '/search/reindex',
    {
      schema: {
        tags: SEARCH,
        summary: 'Rebuild the search index from the library',
        response: { 200: ReindexResult, ...errorResponses(401) },
      },
    },
    async () => search.reindex(app.searchEngine),
  );

  app.get(
    '/search/health',
    {
      schema: {
        tags: SEARCH,
        summary: 'Whether the search engine answers',
        response: { 200: SearchHealth, 503: SearchHealth, ...errorResponses(401) },
      },
    },
    async (_request, reply) => {
      const health = await app.searchEngine.health();
      return reply.code(health.status === 'healthy' ? 200 : 503).send(health);
    },
  );
};
