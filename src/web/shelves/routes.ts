import type { FastifyPluginAsync } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { IdParams, Uuid } from '../../schemas/common.js';
import { BadRequest } from '../../errors.js';
import { createShelf, deleteShelf, getShelf, listShelves, removeShelfStory, shelfStoryIdPage, updateShelf } from '../../shelves/service.js';
import { storyCards } from '../../stories/list-service.js';
import { checkBody } from '../../validation.js';
import { formFields, formRefusal } from '../form.js';
import { safeNext } from '../login/next.js';
import { render, template } from '../render.js';
import { EMPTY_SHELF_FORM, postedShelfForm, shelfBodyOf, shelfFormValues } from './form.js';
import { shelfDeleteView, shelfEditView, shelfView, shelvesView, type ShelfDeleteView, type ShelfEditView, type ShelfView, type ShelvesView } from './view.js';

const SHELVES = template<ShelvesView>('shelves/shelves');
const SHELF = template<ShelfView>('shelves/shelf');
const EDIT = template<ShelfEditView>('shelves/edit');
const DELETE = template<ShelfDeleteView>('shelves/delete');
/** Shelves listed on the page: a reader's lists, far fewer than this. */
const LIST_SIZE = 100;
const PAGE_SIZE = 20;
const FORM_LIMIT = 16 * 1024;

/** The take-off form's field, checked as the API's path parameter is. */
const TakeOffFields = Type.Object({ storyId: Uuid });

const ShelfPageQuery = Type.Object({ page: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }) });

/**
 * The shelf pages (docs/decisions.md, "Shelves"): `/shelves` (the list and a new shelf's form),
 * `/shelves/{id}` (its stories as cards, in its order), edit and delete. Each calls the API's
 * shelf service; the form is checked with the API's schema and rules.
 */
export const shelfPageRoutes: FastifyPluginAsync = async (app) => {
  const shelves = () => listShelves(app.db, { page: 0, size: LIST_SIZE, sortBy: 'name' }).content;

  app.get('/shelves', async (_request, reply) => render(reply, SHELVES, shelvesView(shelves(), EMPTY_SHELF_FORM)));

  app.post('/shelves', { bodyLimit: FORM_LIMIT }, async (request, reply) => {
    const values = postedShelfForm(formFields(request.body));
    const checked = shelfBodyOf(values);
    if (checked.body === undefined) return render(reply, SHELVES, shelvesView(shelves(), values, checked.issues), 400);
    try {
      const created = createShelf(app.db, checked.body);
      return reply.redirect(`/shelves/${created.id}`, 303);
    } catch (error) {
      const refusal = formRefusal(error, 'name');
      return render(reply, SHELVES, shelvesView(shelves(), values, refusal.details), refusal.status);
    }
  });

  app.get<{ Params: IdParams; Querystring: Static<typeof ShelfPageQuery> }>(
    '/shelves/:id',
    { schema: { params: IdParams, querystring: ShelfPageQuery } },
    async (request, reply) => {
      const { page } = request.query;
      const { shelf, ids, total } = await shelfStoryIdPage(app.db, app.searchEngine, request.params.id, { page, size: PAGE_SIZE });
      return render(reply, SHELF, shelfView(shelf, storyCards(app.db, ids), total, page, PAGE_SIZE));
    },
  );

  app.get<{ Params: IdParams }>('/shelves/:id/edit', { schema: { params: IdParams } }, async (request, reply) => {
    const shelf = getShelf(app.db, request.params.id);
    return render(reply, EDIT, shelfEditView(shelf, shelfFormValues(shelf)));
  });

  app.post<{ Params: IdParams }>('/shelves/:id/edit', { schema: { params: IdParams }, bodyLimit: FORM_LIMIT }, async (request, reply) => {
    const shelf = getShelf(app.db, request.params.id);
    const values = postedShelfForm(formFields(request.body));
    const checked = shelfBodyOf(values);
    if (checked.body === undefined) return render(reply, EDIT, shelfEditView(shelf, values, checked.issues), 400);
    try {
      updateShelf(app.db, shelf.id, checked.body);
    } catch (error) {
      const refusal = formRefusal(error, 'name');
      return render(reply, EDIT, shelfEditView(shelf, values, refusal.details), refusal.status);
    }
    return reply.redirect(`/shelves/${shelf.id}`, 303);
  });

  app.post<{ Params: IdParams }>('/shelves/:id/remove', { schema: { params: IdParams }, bodyLimit: 8 * 1024 }, async (request, reply) => {
    const form = formFields(request.body);
    const back = safeNext(form.first('back'));
    // The API's rules: a story id that is not one is a 400, a smart shelf a 409 (the error page).
    const checked = checkBody(TakeOffFields, undefined, { storyId: form.first('storyId') });
    if (checked.body === undefined) throw new BadRequest('Validation failed', checked.issues);
    removeShelfStory(app.db, request.params.id, checked.body.storyId);
    return reply.redirect(back.startsWith(`/shelves/${request.params.id}`) ? back : `/shelves/${request.params.id}`, 303);
  });

  app.get<{ Params: IdParams }>('/shelves/:id/delete', { schema: { params: IdParams } }, async (request, reply) =>
    render(reply, DELETE, shelfDeleteView(getShelf(app.db, request.params.id))),
  );

  app.post<{ Params: IdParams }>('/shelves/:id/delete', { schema: { params: IdParams }, bodyLimit: 8 * 1024 }, async (request, reply) => {
    deleteShelf(app.db, request.params.id);
    return reply.redirect('/shelves', 303);
  });
};
