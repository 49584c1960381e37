import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  AuthorCreateBody,
  AuthorDto,
  AuthorListQuery,
  AuthorPage,
  AuthorSearchQuery,
  AuthorTopRatedQuery,
  AuthorUpdateBody,
  AuthorUrlBody,
  AuthorUrlRemoveBody,
} from '../schemas/author.js';
import { errorResponses, IdParams, MessageBody } from '../schemas/common.js';
import { invalidField } from '../errors.js';
import { authorAvatarRoutes } from './avatar-routes.js';
import { AuthorUpdateForm, updateAuthorFromForm } from './form.js';
import * as authors from './service.js';

const AUTHORS = ['authors'];

/**
 * docs/api.md, "Authors — /api/authors", except `search-typesense`; the avatar endpoints in
 * `avatar-routes.ts`. Literal segments (search, top-rated) win over `{id}`.
 */
export const authorRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(authorAvatarRoutes);

  app.get(
    '/authors',
    {
      schema: { tags: AUTHORS, summary: 'List authors', querystring: AuthorListQuery, response: { 200: AuthorPage, ...errorResponses(400, 401) } },
    },
    async (request) => authors.listAuthors(app.db, request.query),
  );

  app.get(
    '/authors/search',
    {
      schema: {
        tags: AUTHORS,
        summary: 'Search authors by name (case-insensitive substring), by name',
        querystring: AuthorSearchQuery,
        response: { 200: AuthorPage, ...errorResponses(400, 401) },
      },
    },
    async (request) => authors.listAuthors(app.db, request.query),
  );

  app.get(
    '/authors/top-rated',
    {
      schema: {
        tags: AUTHORS,
        summary: 'Rated authors, best first',
        querystring: AuthorTopRatedQuery,
        response: { 200: Type.Array(AuthorDto), ...errorResponses(400, 401) },
      },
    },
    async (request) => authors.topRatedAuthors(app.db, request.query.limit),
  );

  app.get(
    '/authors/:id',
    { schema: { tags: AUTHORS, summary: 'Get an author', params: IdParams, response: { 200: AuthorDto, ...errorResponses(400, 401, 404) } } },
    async (request) => authors.getAuthor(app.db, request.params.id),
  );

  app.post(
    '/authors',
    {
      config: { bodyRules: authors.authorBodyIssues },
      schema: {
        tags: AUTHORS,
        summary: 'Create an author',
        body: AuthorCreateBody,
        response: { 201: AuthorDto, ...errorResponses(400, 401, 409, 415) },
      },
    },
    async (request, reply) => reply.code(201).send(authors.createAuthor(app.db, request.body)),
  );

  app.put(
    '/authors/:id',
    {
      // docs/api.md, "Authors — /api/authors": one route, two forms. JSON is validated by its
      // schema below; the multipart form (not parsed into request.body) is read and checked by
      // the service, same rules.
      config: { acceptsMultipart: true, multipartForm: AuthorUpdateForm, bodyRules: authors.authorBodyIssues },
      schema: {
        tags: AUTHORS,
        summary: 'Update an author: JSON (partial, null clears, urls replace) or multipart (name, notes, urls, authorRating, avatar)',
        params: IdParams,
        consumes: ['application/json', 'multipart/form-data'],
        body: { content: { 'application/json': { schema: AuthorUpdateBody } } },
        response: { 200: AuthorDto, ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    },
    async (request) => {
      if (request.isMultipart()) return updateAuthorFromForm(app.db, app.images, request, request.params.id);
      // Only a bodiless request without a Content-Type gets here unvalidated.
      if (request.body === undefined || request.body === null) throw invalidField('body', 'must be an object');
      return authors.updateAuthor(app.db, app.images, request.params.id, request.body as AuthorUpdateBody);
    },
  );

  app.delete(
    '/authors/:id',
    {
      schema: {
        tags: AUTHORS,
        summary: 'Delete an author, its URLs and its avatar file; its stories are kept and unlinked',
        params: IdParams,
        response: { 200: MessageBody, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      await authors.deleteAuthor(app.db, app.images, request.params.id);
      return { message: 'Author deleted successfully' };
    },
  );

  app.post(
    '/authors/:id/urls',
    {
      schema: {
        tags: AUTHORS,
        summary: 'Add a URL to an author (already present: unchanged)',
        params: IdParams,
        body: AuthorUrlBody,
        response: { 200: AuthorDto, ...errorResponses(400, 401, 404, 415) },
      },
    },
    async (request) => authors.addAuthorUrl(app.db, request.params.id, request.body.url),
  );

  app.delete(
    '/authors/:id/urls',
    {
      schema: {
        tags: AUTHORS,
        summary: 'Remove a URL from an author (not present: unchanged)',
        params: IdParams,
        body: AuthorUrlRemoveBody,
        response: { 200: AuthorDto, ...errorResponses(400, 401, 404, 415) },
      },
    },
    async (request) => authors.removeAuthorUrl(app.db, request.params.id, request.body.url),
  );
};
