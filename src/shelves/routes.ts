import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sendBook } from '../epub/reply.js';
import { sendJson } from '../lib/json-bytes.js';
import { errorResponses, IdParams, MessageBody } from '../schemas/common.js';
import { BookResponses } from '../schemas/epub.js';
import {
  ShelfCreateBody,
  ShelfDto,
  ShelfListQuery,
  ShelfPage,
  ShelfStoriesQuery,
  ShelfStoryIdsBody,
  ShelfStoryParams,
  ShelfUpdateBody,
} from '../schemas/shelf.js';
import { StoryPage } from '../schemas/story.js';
import { shelfEpub } from './epub.js';
import * as shelves from './service.js';

const SHELVES = ['shelves'];

/** docs/api.md, "Shelves — /api/shelves": the shelves, a manual shelf's stories, any shelf's story page and EPUB. */
export const shelfRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/shelves',
    { schema: { tags: SHELVES, summary: 'List shelves (by name unless sorted otherwise)', querystring: ShelfListQuery, response: { 200: ShelfPage, ...errorResponses(400, 401) } } },
    async (request) => shelves.listShelves(app.db, request.query),
  );

  app.get(
    '/shelves/:id',
    { schema: { tags: SHELVES, summary: 'Get a shelf', params: IdParams, response: { 200: ShelfDto, ...errorResponses(400, 401, 404) } } },
    async (request) => shelves.getShelf(app.db, request.params.id),
  );

  app.post(
    '/shelves',
    {
      config: { bodyRules: shelves.shelfBodyIssues },
      schema: {
        tags: SHELVES,
        summary: 'Create a shelf: manual (stories you choose, in your order) or smart (a saved search)',
        body: ShelfCreateBody,
        response: { 201: ShelfDto, ...errorResponses(400, 401, 409, 415) },
      },
    },
    async (request, reply) => reply.code(201).send(shelves.createShelf(app.db, request.body)),
  );

  app.put(
    '/shelves/:id',
    {
      config: { bodyRules: shelves.shelfBodyIssues },
      schema: {
        tags: SHELVES,
        summary: 'Update a shelf (partial; description null clears; query replaces the saved search)',
        params: IdParams,
        body: ShelfUpdateBody,
        response: { 200: ShelfDto, ...errorResponses(400, 401, 404, 409, 415) },
      },
    },
    async (request) => shelves.updateShelf(app.db, request.params.id, request.body),
  );

  app.delete(
    '/shelves/:id',
    { schema: { tags: SHELVES, summary: 'Delete a shelf; its stories stay in the library', params: IdParams, response: { 200: MessageBody, ...errorResponses(400, 401, 404) } } },
    async (request) => {
      shelves.deleteShelf(app.db, request.params.id);
      return { message: 'Shelf deleted successfully' };
    },
  );

  app.get(
    '/shelves/:id/stories',
    {
      schema: {
        tags: SHELVES,
        summary: "A shelf's stories: a manual shelf's in its order, a smart shelf's as its search finds them now",
        params: IdParams,
        querystring: ShelfStoriesQuery,
        response: { 200: StoryPage, ...errorResponses(400, 401, 404, 503) },
      },
    },
    async (request, reply) => sendJson(reply, await shelves.shelfStoriesPage(app.db, app.searchEngine, request.params.id, request.query)),
  );

  app.put(
    '/shelves/:id/stories',
    {
      schema: {
        tags: SHELVES,
        summary: "Set a manual shelf's stories and their order",
        params: IdParams,
        body: ShelfStoryIdsBody,
        response: { 200: ShelfDto, ...errorResponses(400, 401, 404, 409, 415) },
      },
    },
    async (request) => shelves.setShelfStories(app.db, request.params.id, request.body.storyIds),
  );

  app.post(
    '/shelves/:id/stories/:storyId',
    {
      schema: {
        tags: SHELVES,
        summary: 'Add a story to a manual shelf, after its last (already there: no change)',
        params: ShelfStoryParams,
        response: { 200: ShelfDto, ...errorResponses(400, 401, 404, 409, 415) },
      },
    },
    async (request) => shelves.addShelfStory(app.db, request.params.id, request.params.storyId),
  );

  app.delete(
    '/shelves/:id/stories/:storyId',
    {
      schema: {
        tags: SHELVES,
        summary: 'Take a story off a manual shelf (not there: no change)',
        params: ShelfStoryParams,
        response: { 200: ShelfDto, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => shelves.removeShelfStory(app.db, request.params.id, request.params.storyId),
  );

  app.get(
    '/shelves/:id/epub',
    { schema: { tags: ['epub'], summary: "A shelf as one EPUB 3 book, in the shelf's order (at most 200 stories)", params: IdParams, response: BookResponses } },
    async (request, reply) => sendBook(reply, await shelfEpub(app.epub, app.searchEngine, request.params.id)),
  );
};
