import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { ErrorDetails } from '../../errors.js';
import { deriveStoryText } from '../../html/story-text.js';
import { ChapterInput, ChapterParams } from '../../schemas/chapter.js';
import { IdParams } from '../../schemas/common.js';
import { addChapter, deleteChapter, editChapter, getChapter } from '../../stories/chapter-service.js';
import { storyNotFound } from '../../stories/errors.js';
import { storyCards } from '../../stories/list-service.js';
import type { StoryCard } from '../../stories/present.js';
import { checkBody } from '../../validation.js';
import { formFields, formRefusal } from '../form.js';
import { render, template } from '../render.js';
import { chapterBody, chapterFormValues } from './chapter-form.js';
import {
  chapterDeleteView,
  chaptersHref,
  editChapterView,
  newChapterView,
  type ChapterDeleteView,
  type ChapterFormState,
  type ChapterFormView,
  type ChapterNotice,
} from './chapter-view.js';
import { bodyHtml } from './story-form.js';

const CHAPTER_FORM = template<ChapterFormView>('edit/chapter-form');
const CHAPTER_DELETE = template<ChapterDeleteView>('edit/chapter-delete');

/**
 * The chapter form's body at most: a urlencoded body percent-encodes markup (about 2x for HTML,
 * up to 9x for non-Latin text), and 4 MiB still holds a 100,000-word chapter of English HTML.
 * Longer chapters go through the API (`PUT /api/stories/{id}/chapters/{index}`, 16 MiB).
 */
const CHAPTER_FORM_LIMIT = 4 * 1024 * 1024;

/** What the form says of a blank body: a chapter it saves has text. */
const EMPTY_TEXT = "is empty: write the chapter's text, or delete the chapter instead";

/** The message of a refusal about no one field (a story at its chapter bound): the form shows it above itself. */
const NOTICE = 'form';

/** The id checked as the API checks it; pages are not part of the OpenAPI document. */
const idParams = { schema: { params: IdParams } };
const chapterParams = { schema: { params: ChapterParams } };

/**
 * The chapter editor (docs/decisions.md, "Edit forms"): the pages that append, edit and delete a
 * story's chapters, each a plain form that writes through the chapter service the API's
 * `/api/stories/{id}/chapters` routes call and returns to the story's edit page (303). A refusal
 * shows the form again with what was typed and the message, changing nothing.
 */
export const chapterEditRoutes: FastifyPluginAsync = async (app) => {
  /** The story's card: its title and chapter count, without reading its whole work. */
  const storyOf = (id: string): StoryCard => {
    const [card] = storyCards(app.db, [id]);
    if (card === undefined) throw storyNotFound(id);
    return card;
  };

  /**
   * A posted chapter form: Preview shows the sanitizer's output; a body the API's chapter schema
   * refuses, or a blank one, is shown again with the messages (400); else `save` writes it and
   * the edit page says `done`.
   */
  const chapterForm = async (
    reply: FastifyReply,
    body: unknown,
    view: (state: ChapterFormState) => ChapterFormView,
    save: (chapter: ChapterInput) => Promise<unknown>,
    storyId: string,
    done: ChapterNotice,
  ) => {
    const form = formFields(body);
    const values = chapterFormValues(form);
    const fields = chapterBody(values);
    const checked = checkBody(ChapterInput, undefined, fields);
    const details: ErrorDetails = { ...checked.issues };
    if (fields.contentHtml === null) details.contentHtml ??= EMPTY_TEXT;
    const preview = form.first('action') === 'preview';
    if (preview || checked.body === undefined || Object.keys(details).length > 0) {
      const previewHtml = preview ? (deriveStoryText(bodyHtml(values)).contentHtml ?? '') : undefined;
      return render(reply, CHAPTER_FORM, view({ values, details, previewHtml }), Object.keys(details).length > 0 ? 400 : 200);
    }
    try {
      await save(checked.body);
    } catch (error) {
      const refusal = formRefusal(error, NOTICE);
      const { [NOTICE]: notice, ...rest } = refusal.details;
      return render(reply, CHAPTER_FORM, view({ values, details: rest, notice }), refusal.status);
    }
    return reply.redirect(chaptersHref(storyId, done), 303);
  };

  app.get<{ Params: IdParams }>('/stories/:id/chapters/new', idParams, async (request, reply) =>
    render(reply, CHAPTER_FORM, newChapterView(storyOf(request.params.id))),
  );
  app.post<{ Params: IdParams }>('/stories/:id/chapters/new', { ...idParams, bodyLimit: CHAPTER_FORM_LIMIT }, async (request, reply) => {
    const story = storyOf(request.params.id);
    const add = (chapter: ChapterInput) => addChapter(app.db, app.images, story.id, chapter);
    return chapterForm(reply, request.body, (state) => newChapterView(story, state), add, story.id, 'added');
  });

  app.get<{ Params: ChapterParams }>('/stories/:id/chapters/:index/edit', chapterParams, async (request, reply) => {
    const { id, index } = request.params;
    const story = storyOf(id);
    return render(reply, CHAPTER_FORM, editChapterView(story, getChapter(app.db, id, index)));
  });
  app.post<{ Params: ChapterParams }>('/stories/:id/chapters/:index/edit', { ...chapterParams, bodyLimit: CHAPTER_FORM_LIMIT }, async (request, reply) => {
    const { id, index } = request.params;
    const story = storyOf(id);
    const chapter = getChapter(app.db, id, index);
    const edit = (input: ChapterInput) => editChapter(app.db, app.images, id, index, input);
    return chapterForm(reply, request.body, (state) => editChapterView(story, chapter, state), edit, id, 'saved');
  });

  app.get<{ Params: ChapterParams }>('/stories/:id/chapters/:index/delete', chapterParams, async (request, reply) => {
    const { id, index } = request.params;
    return render(reply, CHAPTER_DELETE, chapterDeleteView(storyOf(id), getChapter(app.db, id, index)));
  });
  // The service refuses to delete a story's last chapter (409): the confirmation says so instead.
  app.post<{ Params: ChapterParams }>('/stories/:id/chapters/:index/delete', { ...chapterParams, bodyLimit: 8 * 1024 }, async (request, reply) => {
    const { id, index } = request.params;
    const story = storyOf(id);
    const chapter = getChapter(app.db, id, index);
    try {
      await deleteChapter(app.db, app.images, id, index);
    } catch (error) {
      const refusal = formRefusal(error, NOTICE);
      return render(reply, CHAPTER_DELETE, chapterDeleteView(story, chapter, Object.values(refusal.details).join(' ')), refusal.status);
    }
    return reply.redirect(chaptersHref(id, 'deleted'), 303);
  });
};
