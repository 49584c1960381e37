import type { FastifyPluginAsync } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { toPage } from '../../lib/pagination.js';
import { IdParams } from '../../schemas/common.js';
import { deleteTag, getTag, listTags, unusedTags, updateTag } from '../../tags/service.js';
import { formFields, formRefusal } from '../form.js';
import { safeNext } from '../login/next.js';
import { render, template } from '../render.js';
import { tagDeleteView, tagsView, type RenameFailure, type TagDeleteView, type TagsView } from './view.js';

const TAGS = template<TagsView>('manage-tags/tags');
const DELETE = template<TagDeleteView>('manage-tags/delete');
const PAGE_SIZE = 50;

const TagsQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  unused: Type.Optional(Type.Literal('1')),
});
type TagsQuery = Static<typeof TagsQuery>;

/** The page and filter a `/tags?…` path names (a rename's `back`). */
function parseBack(back: string): { page: number; unusedOnly: boolean } {
  const query = new URL(back, 'http://x').searchParams;
  const page = Number(query.get('page') ?? '0');
  return { page: Number.isSafeInteger(page) && page >= 0 ? page : 0, unusedOnly: query.get('unused') === '1' };
}

/**
 * Tag management (docs/decisions.md, "Edit forms"): every tag with its count, paged by name, or
 * the unused ones (`/api/tags/unused`); rename and delete with the API's tag service.
 */
export const manageTagsRoutes: FastifyPluginAsync = async (app) => {
  const listing = (page: number, unusedOnly: boolean) => {
    if (!unusedOnly) return listTags(app.db, { page, size: PAGE_SIZE, sortBy: 'name' });
    // The API's unused list is not paged; the page is cut from it here.
    const unused = unusedTags(app.db);
    return toPage(unused.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE), unused.length, { page, size: PAGE_SIZE });
  };

  app.get<{ Querystring: TagsQuery }>('/tags', { schema: { querystring: TagsQuery } }, async (request, reply) => {
    const unusedOnly = request.query.unused === '1';
    return render(reply, TAGS, tagsView(listing(request.query.page ?? 0, unusedOnly), unusedOnly));
  });

  app.post<{ Params: IdParams }>('/tags/:id/rename', { schema: { params: IdParams } }, async (request, reply) => {
    const form = formFields(request.body);
    const name = form.first('name') ?? '';
    const back = safeNext(form.first('back'));
    const target = back.startsWith('/tags') ? back : '/tags';
    try {
      updateTag(app.db, request.params.id, name);
    } catch (error) {
      const refusal = formRefusal(error, 'name');
      const failure: RenameFailure = { tagId: request.params.id, typed: name, details: refusal.details };
      const { page, unusedOnly } = parseBack(target);
      return render(reply, TAGS, tagsView(listing(page, unusedOnly), unusedOnly, failure), refusal.status);
    }
    return reply.redirect(target, 303);
  });

  app.get<{ Params: IdParams }>('/tags/:id/delete', { schema: { params: IdParams } }, async (request, reply) =>
    render(reply, DELETE, tagDeleteView(getTag(app.db, request.params.id))),
  );
  app.post<{ Params: IdParams }>('/tags/:id/delete', { schema: { params: IdParams } }, async (request, reply) => {
    deleteTag(app.db, request.params.id);
    return reply.redirect('/tags', 303);
  });
};
