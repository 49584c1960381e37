import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sendJson } from '../lib/json-bytes.js';
import { errorResponses } from '../schemas/common.js';
import {
  AuthorScopeParams,
  SeriesScopeParams,
  StoryLimitQuery,
  StoryList,
  StoryListQuery,
  StoryPage,
  TagNameParams,
} from '../schemas/story.js';
import * as lists from './list-service.js';

const STORIES = ['stories'];

/** The story lists (docs/api.md, "Stories — /api/stories"; orders in docs/decisions.md, "Lists and pagination"). */
export const storyListRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/stories',
    {
      schema: {
        tags: STORIES,
        summary: 'List stories (default newest first)',
        querystring: StoryListQuery,
        response: { 200: StoryPage, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => sendJson(reply, lists.listStories(app.db, request.query)),
  );

  app.get(
    '/stories/author/:authorId',
    {
      schema: {
        tags: STORIES,
        summary: "An author's stories",
        params: AuthorScopeParams,
        querystring: StoryListQuery,
        response: { 200: StoryPage, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => sendJson(reply, lists.listStoriesByAuthor(app.db, request.params.authorId, request.query)),
  );

  app.get(
    '/stories/series/:seriesId',
    {
      schema: {
        tags: STORIES,
        summary: "A series' stories by volume (unnumbered last), then oldest first",
        params: SeriesScopeParams,
        response: { 200: StoryList, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => sendJson(reply, lists.listSeriesStories(app.db, request.params.seriesId)),
  );

  app.get(
    '/stories/tags/:tagName',
    {
      schema: {
        tags: STORIES,
        summary: 'Stories with a tag (name matched case-insensitively)',
        params: TagNameParams,
        querystring: StoryListQuery,
        response: { 200: StoryPage, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => sendJson(reply, lists.listStoriesByTag(app.db, request.params.tagName, request.query)),
  );

  app.get(
    '/stories/recent',
    {
      schema: {
        tags: STORIES,
        summary: 'The most recently added stories',
        querystring: StoryLimitQuery,
        response: { 200: StoryList, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => sendJson(reply, lists.recentStories(app.db, request.query.limit)),
  );

  app.get(
    '/stories/top-rated',
    {
      schema: {
        tags: STORIES,
        summary: 'Rated stories, best first, newer first among equals',
        querystring: StoryLimitQuery,
        response: { 200: StoryList, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => sendJson(reply, lists.topRatedStories(app.db, request.query.limit)),
  );
};
