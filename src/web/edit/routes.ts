import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { formPatch, FORM_RATING_FIELD } from '../../authors/form.js';
import { getAuthor, listAuthors, updateAuthor } from '../../authors/service.js';
import { HttpError, type ErrorDetails } from '../../errors.js';
import type { ImageKind } from '../../images/image-path.js';
import { receiveUpload } from '../../images/upload.js';
import { deriveStoryText } from '../../html/story-text.js';
import { IMPORT_SERIES_KIND } from '../../import/url/series-job.js';
import { importFromUrl } from '../../import/url/service.js';
import { IdParams } from '../../schemas/common.js';
import { StoryCreateBody, StoryUpdateBody, type StoryDto } from '../../schemas/story.js';
import { listSeries } from '../../series/service.js';
import { storyBodyIssues } from '../../stories/input.js';
import { addStory, changeStory, getStoryDto } from '../../stories/service.js';
import { listChapters } from '../../stories/chapter-service.js';
import { autocompleteTags } from '../../tags/service.js';
import { storyHref } from '../layout/links.js';
import { render, template } from '../render.js';
import { checkBody } from '../../validation.js';
import { formRefusal } from '../form.js';
import { bodyHtml, formValues, storyBody } from './story-form.js';
import { chapterNotice } from './chapter-view.js';
import {
  authorFormView,
  editStoryView,
  newStoryView,
  type AuthorFormValues,
  type AuthorFormView,
  type StoryFormState,
  type StoryFormView,
} from './view.js';

const STORY_FORM = template<StoryFormView>('edit/story-form');
const AUTHOR_FORM = template<AuthorFormView>('edit/author-form');
/** At most this many names in a datalist. */
const SUGGESTIONS = 50;

const ImportForm = Type.Object({
  url: Type.Optional(Type.String({ maxLength: 4096 })),
  update: Type.Optional(Type.String({ maxLength: 10 })),
});
type ImportForm = Static<typeof ImportForm>;

const EditQuery = Type.Object({ chapters: Type.Optional(Type.String({ maxLength: 20 })) });
type EditQuery = Static<typeof EditQuery>;

const SuggestQuery = Type.Object({
  authorName: Type.Optional(Type.String({ maxLength: 255 })),
  seriesName: Type.Optional(Type.String({ maxLength: 255 })),
  tags: Type.Optional(Type.String({ maxLength: 20_000 })),
});
type SuggestQuery = Static<typeof SuggestQuery>;

/** An upload's failure (415, 413, a malformed body) as a message on the file field. */
function uploadDetails(error: unknown, field: string): ErrorDetails {
  if (error instanceof HttpError && error.statusCode < 500) {
    const details = error.details ?? {};
    const messages = Object.values(details);
    return { [field]: messages.length > 0 ? messages.join('; ') : error.message };
  }
  const status = (error as { statusCode?: unknown }).statusCode;
  if (status === 413) return { [field]: 'must be at most 5 MiB' };
  throw error;
}

/** A multipart form with one optional image: its text fields (kept even when the image fails), the stored image or the image's error. */
async function receiveForm(request: FastifyRequest, kind: ImageKind, fileField: string) {
  const fields: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  try {
    const { image } = await receiveUpload(request, request.server.images, { kind, fileField, required: false, fields });
    return { fields, image, uploadErrors: {} as ErrorDetails };
  } catch (error) {
    return { fields, image: undefined, uploadErrors: uploadDetails(error, fileField) };
  }
}

/**
 * The story create and edit forms and the author edit form (docs/decisions.md, "Edit forms"):
 * multipart posts mapped to the API's bodies and applied by the API's services; a 400 or 409
 * shows the form again with what was typed and a message beside each field.
 */
export const editRoutes: FastifyPluginAsync = async (app) => {
  const storyForm = async (request: FastifyRequest, reply: FastifyReply, story: StoryDto | undefined) => {
    const { fields, image, uploadErrors } = await receiveForm(request, 'covers', 'cover');
    const values = formValues(fields);
    const view = (state: StoryFormState) => (story === undefined ? newStoryView(state) : editStoryView(story, listChapters(app.db, story.id), state));
    const preview = fields.action?.at(-1) === 'preview';
    const body = storyBody(values, image ?? (values.removeCover ? null : undefined));
    // A story of several chapters has no body field: a contentHtml would make it one chapter.
    if (story !== undefined && story.chapterCount > 1) delete body.contentHtml;
    const { issues, save } = storySave(story?.id, body);
    const details = { ...issues, ...uploadErrors };
    const again = async (state: StoryFormState, status: number) => {
      await app.images.discardUpload(image);
      const notice = image === undefined ? state.notice : 'The chosen cover image was not kept: choose it again before saving.';
      return render(reply, STORY_FORM, view({ ...state, notice, values }), status);
    };
    if (preview || save === undefined || Object.keys(details).length > 0) {
      const previewHtml = preview ? (deriveStoryText(bodyHtml(values)).contentHtml ?? '') : undefined;
      return again({ details, previewHtml }, Object.keys(details).length > 0 ? 400 : 200);
    }
    let savedId: string;
    try {
      savedId = await save();
    } catch (error) {
      const refusal = formRefusal(error, 'title');
      return again({ details: refusal.details }, refusal.status);
    }
    return reply.redirect(storyHref(savedId), 303);
  };

  /**
   * The form's body checked as `POST`/`PUT /api/stories` check theirs (the same schema, validator
   * and service rules, src/validation.ts), and the write that saves it once it passes.
   */
  const storySave = (storyId: string | undefined, body: Record<string, unknown>): { issues: ErrorDetails; save?: () => Promise<string> } => {
    const rules = (fields: Partial<StoryUpdateBody>) => storyBodyIssues(app.db, fields);
    if (storyId === undefined) {
      const created = checkBody(StoryCreateBody, rules, body);
      if (created.body === undefined) return { issues: created.issues };
      const valid = created.body;
      return { issues: {}, save: () => addStory(app.db, app.images, valid) };
    }
    const changed = checkBody(StoryUpdateBody, rules, body);
    if (changed.body === undefined) return { issues: changed.issues };
    const valid = changed.body;
    return {
      issues: {},
      save: async () => {
        await changeStory(app.db, app.images, storyId, valid);
        return storyId;
      },
    };
  };

  app.get('/stories/new', async (_request, reply) => render(reply, STORY_FORM, newStoryView()));
  // The URL box of the new-story page: imports, then shows the story; a refusal is shown beside the box.
  app.post<{ Body: ImportForm }>('/stories/import', { schema: { body: ImportForm } }, async (request, reply) => {
    const url = request.body.url ?? '';
    const update = request.body.update !== undefined;
    try {
      const outcome = await importFromUrl(app.urlImports, url, update, (params) => app.jobs.enqueue(IMPORT_SERIES_KIND, params, { total: params.works.length }));
      // A series is imported by a job: its page shows the works as they arrive.
      return reply.redirect(outcome.kind === 'job' ? `/jobs/${outcome.jobId}` : storyHref(outcome.storyId), 303);
    } catch (error) {
      if (!(error instanceof HttpError) || error.statusCode === 401) throw error;
      const message = error.details?.url === undefined ? error.message : `${error.message}: the address ${error.details.url}.`;
      return render(reply, STORY_FORM, newStoryView({}, { url, update, error: message, existingId: error.details?.storyId }), error.statusCode);
    }
  });
  app.post('/stories/new', { config: { acceptsMultipart: true } }, async (request, reply) => storyForm(request, reply, undefined));

  // `?chapters=added|saved|deleted`: the chapter editor's message after it returned here (src/web/edit/chapter-routes.ts).
  app.get<{ Params: IdParams; Querystring: EditQuery }>('/stories/:id/edit', { schema: { params: IdParams, querystring: EditQuery } }, async (request, reply) => {
    const story = getStoryDto(app.db, request.params.id);
    return render(reply, STORY_FORM, editStoryView(story, listChapters(app.db, story.id), {}, chapterNotice(request.query.chapters)));
  });
  app.post<{ Params: IdParams }>('/stories/:id/edit', { config: { acceptsMultipart: true }, schema: { params: IdParams } }, async (request, reply) =>
    storyForm(request, reply, getStoryDto(app.db, request.params.id)),
  );

  // Datalist fragments for the enhanced form: `<option>`s only, at most 50.
  const options = async (reply: FastifyReply, names: string[]) => {
    const html = await reply.viewAsync('edit/options', { options: names.slice(0, SUGGESTIONS) });
    return reply.type('text/html; charset=utf-8').send(html);
  };
  app.get<{ Querystring: SuggestQuery }>('/stories/suggest/authors', { schema: { querystring: SuggestQuery } }, async (request, reply) => {
    const query = request.query.authorName?.trim() ?? '';
    if (query === '') return options(reply, []);
    return options(reply, listAuthors(app.db, { query, page: 0, size: SUGGESTIONS }).content.map((author) => author.name));
  });
  app.get<{ Querystring: SuggestQuery }>('/stories/suggest/series', { schema: { querystring: SuggestQuery } }, async (request, reply) => {
    const query = request.query.seriesName?.trim() ?? '';
    if (query === '') return options(reply, []);
    return options(reply, listSeries(app.db, { query, page: 0, size: SUGGESTIONS }).content.map((series) => series.name));
  });
  app.get<{ Querystring: SuggestQuery }>('/stories/suggest/tags', { schema: { querystring: SuggestQuery } }, async (request, reply) => {
    // The last comma-separated name is completed; each option is the whole field with it replaced.
    const text = request.query.tags ?? '';
    const cut = text.lastIndexOf(',');
    const last = text.slice(cut + 1).trim();
    if (last === '') return options(reply, []);
    const before = cut < 0 ? '' : `${text.slice(0, cut + 1).trim()} `;
    return options(reply, autocompleteTags(app.db, last, 20).map((tag) => `${before}${tag.name}`));
  });

  app.get<{ Params: IdParams }>('/authors/:id/edit', { schema: { params: IdParams } }, async (request, reply) =>
    render(reply, AUTHOR_FORM, authorFormView(getAuthor(app.db, request.params.id))),
  );
  app.post<{ Params: IdParams }>('/authors/:id/edit', { config: { acceptsMultipart: true }, schema: { params: IdParams } }, async (request, reply) => {
    const author = getAuthor(app.db, request.params.id);
    const { fields, image, uploadErrors } = await receiveForm(request, 'avatars', 'avatar');
    const one = (name: string) => fields[name]?.at(-1) ?? '';
    const values: AuthorFormValues = {
      name: one('name'),
      notes: one('notes'),
      urls: one('urls'),
      rating: one(FORM_RATING_FIELD),
      removeAvatar: one('removeAvatar') !== '',
    };
    // One URL per line; no line at all removes them (the multipart API form's single empty part).
    const lines = values.urls.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
    const issues: ErrorDetails = { ...uploadErrors };
    const patch = formPatch({ name: [values.name], notes: [values.notes], urls: lines.length === 0 ? [''] : lines, [FORM_RATING_FIELD]: [values.rating] }, issues);
    if (image === undefined && values.removeAvatar) patch.avatarImagePath = null;
    try {
      await updateAuthor(app.db, app.images, author.id, patch, { ratingField: FORM_RATING_FIELD, uploadedAvatar: image, issues });
    } catch (error) {
      const refusal = formRefusal(error, 'name');
      return render(reply, AUTHOR_FORM, authorFormView(author, values, refusal.details), refusal.status);
    }
    return reply.redirect(`/authors/${encodeURIComponent(author.id)}`, 303);
  });
};
