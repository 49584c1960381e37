import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, IdParams, MessageBody } from '../schemas/common.js';
import {
  TagAutocompleteQuery,
  TagCreateBody,
  TagDto,
  TagListQuery,
  TagPage,
  TagPopularQuery,
  TagSearchQuery,
  TagStats,
  TagUpdateBody,
} from '../schemas/tag.js';
import * as tags from './service.js';

const TAGS = ['tags'];

/** docs/api.md, "Tags — /api/tags and series — /api/series". Literal segments (search, autocomplete, popular, unused, stats) win over `{id}`. */
export const tagRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/tags',
    { schema: { tags: TAGS, summary: 'List tags', querystring: TagListQuery, response: { 200: TagPage, ...errorResponses(400, 401) } } },
    async (request) => tags.listTags(app.db, request.query),
  );

  app.get(
    '/tags/search',
    {
      schema: {
        tags: TAGS,
        summary: 'Search tags by name (case-insensitive substring)',
        querystring: TagSearchQuery,
        response: { 200: TagPage, ...errorResponses(400, 401) },
      },
    },
    async (request) => tags.listTags(app.db, request.query),
  );

  app.get(
    '/tags/autocomplete',
    {
      schema: {
        tags: TAGS,
        summary: 'Tags whose name starts with the text, most used first',
        querystring: TagAutocompleteQuery,
        response: { 200: Type.Array(TagDto), ...errorResponses(400, 401) },
      },
    },
    async (request) => tags.autocompleteTags(app.db, request.query.query, request.query.limit),
  );

  app.get(
    '/tags/popular',
    {
      schema: {
        tags: TAGS,
        summary: 'Most used tags',
        querystring: TagPopularQuery,
        response: { 200: Type.Array(TagDto), ...errorResponses(400, 401) },
      },
    },
    async (request) => tags.popularTags(app.db, request.query.limit),
  );

  app.get(
    '/tags/unused',
    { schema: { tags: TAGS, summary: 'Tags no story uses', response: { 200: Type.Array(TagDto), ...errorResponses(401) } } },
    async () => tags.unusedTags(app.db),
  );

  app.get(
    '/tags/stats',
    { schema: { tags: TAGS, summary: 'Tag usage counts', response: { 200: TagStats, ...errorResponses(401) } } },
    async () => tags.tagStats(app.db),
  );

  app.get(
    '/tags/:id',
    { schema: { tags: TAGS, summary: 'Get a tag', params: IdParams, response: { 200: TagDto, ...errorResponses(400, 401, 404) } } },
    async (request) => tags.getTag(app.db, request.params.id),
  );

  app.post(
    '/tags',
    {
      schema: {
        tags: TAGS,
        summary: 'Create a tag (stored lowercased)',
        body: TagCreateBody,
        response: { 201: TagDto, ...errorResponses(400, 401, 409, 415) },
      },
    },
    async (request, reply) => reply.code(201).send(tags.createTag(app.db, request.body.name)),
  );

  app.put(
    '/tags/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Rename a tag',
        params: IdParams,
        body: TagUpdateBody,
        response: { 200: TagDto, ...errorResponses(400, 401, 404, 409, 415) },
      },
    },
    async (request) => tags.updateTag(app.db, request.params.id, request.body.name),
  );

  app.delete(
    '/tags/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Delete a tag and remove it from every story',
        params: IdParams,
        response: { 200: MessageBody, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      tags.deleteTag(app.db, request.params.id);
      return { message: 'Tag deleted successfully' };
    },
  );
};
