import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, IdParams, MessageBody } from '../schemas/common.js';
import {
  SeriesCreateBody,
  SeriesDto,
  SeriesListQuery,
  SeriesPage,
  SeriesPopularQuery,
  SeriesSearchQuery,
  SeriesStats,
  SeriesUpdateBody,
  SeriesWithStoriesQuery,
} from '../schemas/series.js';
import * as seriesService from './service.js';

const SERIES = ['series'];

/** docs/api.md, "Tags — /api/tags and series — /api/series". Literal segments (search, with-stories, popular, empty, stats) win over `{id}`. */
export const seriesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/series',
    { schema: { tags: SERIES, summary: 'List series', querystring: SeriesListQuery, response: { 200: SeriesPage, ...errorResponses(400, 401) } } },
    async (request) => seriesService.listSeries(app.db, request.query),
  );

  app.get(
    '/series/search',
    {
      schema: {
        tags: SERIES,
        summary: 'Search series by name (case-insensitive substring), by name',
        querystring: SeriesSearchQuery,
        response: { 200: SeriesPage, ...errorResponses(400, 401) },
      },
    },
    async (request) => seriesService.listSeries(app.db, request.query),
  );

  app.get(
    '/series/with-stories',
    {
      schema: {
        tags: SERIES,
        summary: 'Series that have stories, by name',
        querystring: SeriesWithStoriesQuery,
        response: { 200: Type.Array(SeriesDto), ...errorResponses(400, 401) },
      },
    },
    async (request) => seriesService.seriesWithStories(app.db, request.query.limit),
  );

  app.get(
    '/series/popular',
    {
      schema: {
        tags: SERIES,
        summary: 'Series with the most stories',
        querystring: SeriesPopularQuery,
        response: { 200: Type.Array(SeriesDto), ...errorResponses(400, 401) },
      },
    },
    async (request) => seriesService.popularSeries(app.db, request.query.limit),
  );

  app.get(
    '/series/empty',
    { schema: { tags: SERIES, summary: 'Series with no stories, by name', response: { 200: Type.Array(SeriesDto), ...errorResponses(401) } } },
    async () => seriesService.emptySeries(app.db),
  );

  app.get(
    '/series/stats',
    { schema: { tags: SERIES, summary: 'Series counts', response: { 200: SeriesStats, ...errorResponses(401) } } },
    async () => seriesService.seriesStats(app.db),
  );

  app.get(
    '/series/:id',
    { schema: { tags: SERIES, summary: 'Get a series', params: IdParams, response: { 200: SeriesDto, ...errorResponses(400, 401, 404) } } },
    async (request) => seriesService.getSeries(app.db, request.params.id),
  );

  app.post(
    '/series',
    {
      config: { bodyRules: seriesService.seriesBodyIssues },
      schema: {
        tags: SERIES,
        summary: 'Create a series',
        body: SeriesCreateBody,
        response: { 201: SeriesDto, ...errorResponses(400, 401, 409, 415) },
      },
    },
    async (request, reply) => reply.code(201).send(seriesService.createSeries(app.db, request.body)),
  );

  app.put(
    '/series/:id',
    {
      config: { bodyRules: seriesService.seriesBodyIssues },
      schema: {
        tags: SERIES,
        summary: 'Update a series (partial; description null clears)',
        params: IdParams,
        body: SeriesUpdateBody,
        response: { 200: SeriesDto, ...errorResponses(400, 401, 404, 409, 415) },
      },
    },
    async (request) => seriesService.updateSeries(app.db, request.params.id, request.body),
  );

  app.delete(
    '/series/:id',
    {
      schema: {
        tags: SERIES,
        summary: 'Delete a series; its stories are kept and unlinked',
        params: IdParams,
        response: { 200: MessageBody, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      seriesService.deleteSeries(app.db, request.params.id);
      return { message: 'Series deleted successfully' };
    },
  );
};
