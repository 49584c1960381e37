import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, IdParams, MessageBody } from '../schemas/common.js';
import { ChapterDto, ChapterInput, ChapterList, ChapterParams, ChapterUpdateBody } from '../schemas/chapter.js';
import * as chapters from './chapter-service.js';

const CHAPTERS = ['chapters'];

/** docs/api.md, "Chapters — /api/stories/{id}/chapters": a story's contents and its chapters, `index` 1-based in reading order. */
export const chapterRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/stories/:id/chapters',
    { schema: { tags: CHAPTERS, summary: "A story's chapters in reading order, without their text", params: IdParams, response: { 200: ChapterList, ...errorResponses(400, 401, 404) } } },
    async (request) => chapters.listChapters(app.db, request.params.id),
  );

  app.get(
    '/stories/:id/chapters/:index',
    { schema: { tags: CHAPTERS, summary: 'One chapter with its text', params: ChapterParams, response: { 200: ChapterDto, ...errorResponses(400, 401, 404) } } },
    async (request) => chapters.getChapter(app.db, request.params.id, request.params.index),
  );

  app.post(
    '/stories/:id/chapters',
    {
      schema: {
        tags: CHAPTERS,
        summary: 'Append a chapter after the last one',
        params: IdParams,
        body: ChapterInput,
        response: { 201: ChapterDto, ...errorResponses(400, 401, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => reply.code(201).send(await chapters.addChapter(app.db, app.images, request.params.id, request.body)),
  );

  app.put(
    '/stories/:id/chapters/:index',
    {
      schema: {
        tags: CHAPTERS,
        summary: "Edit a chapter's title, text or source address (absent fields are kept)",
        params: ChapterParams,
        body: ChapterUpdateBody,
        response: { 200: ChapterDto, ...errorResponses(400, 401, 404, 413, 415) },
      },
    },
    async (request) => chapters.editChapter(app.db, app.images, request.params.id, request.params.index, request.body),
  );

  app.delete(
    '/stories/:id/chapters/:index',
    {
      schema: {
        tags: CHAPTERS,
        summary: 'Remove a chapter (never the last one: 409); the ones after it move up',
        params: ChapterParams,
        response: { 200: MessageBody, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      await chapters.deleteChapter(app.db, app.images, request.params.id, request.params.index);
      return { message: 'Chapter deleted successfully' };
    },
  );
};
