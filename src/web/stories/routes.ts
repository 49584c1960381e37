import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ChapterParams, type ChapterMetaDto } from '../../schemas/chapter.js';
import { getChapterToRead, listChapters } from '../../stories/chapter-service.js';
import { BadRequest, HttpError } from '../../errors.js';
import { IdParams } from '../../schemas/common.js';
import { changeStory, deleteStory, getStoryHead, rateStory } from '../../stories/service.js';
import { chapterToOpen, getProgress } from '../../stories/progress-service.js';
import { changeFavourite, changeReadingStatus } from '../../stories/reading-status.js';
import { READING_STATUSES } from '../../schemas/reading-status.js';
import { failureText, refreshStory } from '../../follow/service.js';
import { formFields } from '../form.js';
import { safeNext } from '../login/next.js';
import { render, template } from '../render.js';
import { parseReaderCookie, parseReaderForm, READER_COOKIE, readerCookieValue } from './settings.js';
import { chapterReadHref, storyHref } from '../layout/links.js';
import { jobHref } from '../import/view.js';
import { sendStory } from '../../send/service.js';
import {
  deleteView,
  loadStoryPage,
  neighboursOf,
  readerView,
  refreshedParam,
  type DeleteView,
  type ReaderView,
  type StoryPageQuery,
  type StoryPageView,
} from './view.js';

const STORY = template<StoryPageView>('stories/story');
const READER = template<ReaderView>('stories/reader');
const DELETE = template<DeleteView>('stories/delete');

/** A year, like the theme: a preference, not a secret. */
const READER_COOKIE_SECONDS = 365 * 24 * 60 * 60;

/** The id checked as the API checks it (a malformed one is a 400 page); pages are not part of the OpenAPI document. */
const params = { schema: { params: IdParams, hide: true } };

/**
 * The story page, its rating, reading-status, favourite and delete forms, and the reader (docs/decisions.md, "Story page and
 * reader"). Every action is a plain form that redirects (303), so all of it works without
 * JavaScript; the handlers call the API's own services.
 */
export const storyRoutes: FastifyPluginAsync = async (app) => {
  app.get<{ Params: IdParams; Querystring: StoryPageQuery }>('/stories/:id', params, async (request, reply) =>
    render(reply, STORY, loadStoryPage(app.db, app.config.mail, request.params.id, request.query)),
  );

  // The API's refresh (`POST /api/stories/{id}/refresh`): 303 back with what changed; a refusal or a
  // failing source is the story page again, with the message by the form and the error's status.
  app.post<{ Params: IdParams }>('/stories/:id/refresh', { ...params, bodyLimit: 8 * 1024 }, async (request, reply) => {
    const { id } = request.params;
    try {
      const outcome = await refreshStory({ urlImports: app.urlImports, fanficfare: app.fanficfareRefresh }, id);
      // FanFicFare's download runs as a job: its page follows it.
      if ('jobId' in outcome) return reply.redirect(jobHref(outcome.jobId), 303);
      return reply.redirect(`${storyHref(id)}?refreshed=${refreshedParam(outcome)}#updates`, 303);
    } catch (error) {
      if (!(error instanceof HttpError) || error.statusCode === 401 || error.statusCode === 404) throw error;
      const page = loadStoryPage(app.db, app.config.mail, id, {}, failureText(error));
      // A story the page offers no refresh for (it follows no source, or no longer) has no place for the message: the error page says it.
      if (page.follow?.refresh === undefined) throw error;
      // htmx shows this answer in place: the address it keeps is the story page's, which a reload can open.
      reply.header('HX-Push-Url', storyHref(id));
      return render(reply, STORY, page, error.statusCode);
    }
  });

  // status=<a status> sets it, status= (empty) clears it: the API's `PUT /api/stories/{id}/reading-status`.
  app.post<{ Params: IdParams }>('/stories/:id/reading-status', { ...params, bodyLimit: 8 * 1024 }, async (request, reply) => {
    const { id } = request.params;
    const raw = formFields(request.body).first('status') ?? '';
    const status = READING_STATUSES.find((value) => value === raw);
    if (raw !== '' && status === undefined) throw new BadRequest('Choose a reading status', { status: `must be one of ${READING_STATUSES.join(', ')}, or empty` });
    changeReadingStatus(app.db, id, status ?? null);
    return reply.redirect(`${storyHref(id)}?status=1#reading-status`, 303);
  });

  // favourite=1 marks it, favourite=0 unmarks it: the API's `PUT /api/stories/{id}/favourite`.
  app.post<{ Params: IdParams }>('/stories/:id/favourite', { ...params, bodyLimit: 8 * 1024 }, async (request, reply) => {
    const { id } = request.params;
    const raw = formFields(request.body).first('favourite');
    if (raw !== '1' && raw !== '0') throw new BadRequest('Mark the story a favourite or not', { favourite: 'must be 1 or 0' });
    changeFavourite(app.db, id, raw === '1');
    return reply.redirect(`${storyHref(id)}?favourite=1#favourite`, 303);
  });

  // The API's send (`POST /api/stories/{id}/send`): the same checks and answers, then 303 back.
  app.post<{ Params: IdParams }>('/stories/:id/send', { ...params, bodyLimit: 8 * 1024 }, async (request, reply) => {
    const { id } = request.params;
    await sendStory(app.mailer, app.epub, id, formFields(request.body).first('to'), request.log);
    return reply.redirect(`${storyHref(id)}?sent=1#send`, 303);
  });

  // rating=1..5 sets it (the API's `POST /api/stories/{id}/rating`); clear=1 removes it (the API's update with `rating: null`).
  app.post<{ Params: IdParams }>('/stories/:id/rating', { ...params, bodyLimit: 8 * 1024 }, async (request, reply) => {
    const { id } = request.params;
    const form = formFields(request.body);
    if (form.first('clear') !== undefined) {
      await changeStory(app.db, app.images, id, { rating: null });
    } else {
      const raw = form.first('rating') ?? '';
      const rating = /^[1-5]$/.test(raw) ? Number(raw) : undefined;
      if (rating === undefined) throw new BadRequest('Choose a rating from 1 to 5', { rating: 'must be a whole number from 1 to 5' });
      rateStory(app.db, id, rating);
    }
    return reply.redirect(`${storyHref(id)}?rated=1#rating`, 303);
  });

  // The confirmation names the story: its head is enough, where the whole story would read its work's text.
  app.get<{ Params: IdParams }>('/stories/:id/delete', params, async (request, reply) =>
    render(reply, DELETE, deleteView(getStoryHead(app.db, request.params.id))),
  );

  app.post<{ Params: IdParams }>('/stories/:id/delete', { ...params, bodyLimit: 8 * 1024 }, async (request, reply) => {
    await deleteStory(app.db, app.images, request.params.id);
    return reply.redirect('/library', 303);
  });

  // The reader, one chapter a page (docs/decisions.md, "Story page and reader"). `/read` is the
  // address from before chapters: a one-chapter story reads there as it always did; a story of
  // several chapters is sent on to the chapter the reader was in, so old bookmarks still resume.
  app.get<{ Params: IdParams }>('/stories/:id/read', params, async (request, reply) => {
    const { id } = request.params;
    const contents = listChapters(app.db, id);
    if (contents.length <= 1) return readerPage(request, reply, id, contents, 1);
    const to = chapterToOpen(getProgress(app.db, id), contents.map((chapter) => chapter.wordCount));
    return reply.redirect(chapterReadHref(id, to), 302);
  });

  app.get<{ Params: ChapterParams }>('/stories/:id/read/:index', { schema: { params: ChapterParams, hide: true } }, async (request, reply) => {
    const { id, index } = request.params;
    return readerPage(request, reply, id, listChapters(app.db, id), index);
  });

  /**
   * The chapter page: the story's head and contents and this one chapter's HTML, each read from an
   * index or its own text, never the whole work (docs/performance.md, "Chapters").
   */
  async function readerPage(request: FastifyRequest, reply: FastifyReply, id: string, contents: ChapterMetaDto[], index: number) {
    const story = getStoryHead(app.db, id);
    const chapter = getChapterToRead(app.db, id, index, contents);
    const settings = parseReaderCookie(request.cookies[READER_COOKIE]);
    return render(reply, READER, readerView(story, contents, chapter, getProgress(app.db, id), settings, neighboursOf(app.db, story)));
  }

  // The reader's typography form: stores the choice in the `reader` cookie and returns to the reader.
  app.post('/reader/settings', { bodyLimit: 8 * 1024 }, async (request, reply) => {
    const form = formFields(request.body);
    const settings = parseReaderForm({ size: form.first('size'), leading: form.first('leading'), width: form.first('width') });
    if ('invalid' in settings) throw new BadRequest('Unknown reader setting', { [settings.invalid]: 'is not one of the choices' });
    reply.setCookie(READER_COOKIE, readerCookieValue(settings), { path: '/', maxAge: READER_COOKIE_SECONDS, sameSite: 'lax', httpOnly: false });
    return reply.redirect(safeNext(form.first('back')), 303);
  });
};
