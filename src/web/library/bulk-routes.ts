import type { FastifyPluginAsync } from 'fastify';
import { bulkBodyIssues, bulkEdit } from '../../bulk/service.js';
import { BulkEditBody } from '../../schemas/bulk.js';
import { checkBody } from '../../validation.js';
import { formFields, formRefusal, type FormFields } from '../form.js';
import { safeNext } from '../login/next.js';
import { render, template } from '../render.js';
import type { PageModel } from '../render.js';

interface BulkRefusedView extends PageModel {
  problems: Array<{ field: string; message: string }>;
  backHref: string;
}

const REFUSED = template<BulkRefusedView>('library/bulk-refused');

/** A select of "no change" (''), "clear" (null) or a value. */
function choice<T>(text: string | undefined, parse: (text: string) => T): T | null | undefined {
  if (text === undefined || text === '') return undefined;
  return text === 'clear' ? null : parse(text);
}

function nonBlank(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === '' ? undefined : text;
}

/** The API body the library's select-mode form stands for (docs/decisions.md, "Bulk edit"). */
function bulkBodyOf(form: FormFields): Record<string, unknown> {
  const ids = form.all('ids');
  if (form.first('action') === 'delete') return { ids, delete: true };
  const links = (tag: string | undefined, shelf: string | undefined) => {
    const part = { ...(tag === undefined ? {} : { tagNames: [tag] }), ...(shelf === undefined ? {} : { shelfIds: [shelf] }) };
    return Object.keys(part).length === 0 ? undefined : part;
  };
  const set = Object.fromEntries(
    Object.entries({
      authorName: nonBlank(form.first('authorName')),
      seriesName: nonBlank(form.first('seriesName')),
      rating: choice(form.first('rating'), Number),
      readingStatus: choice(form.first('readingStatus'), (text) => text),
      favourite: choice(form.first('favourite'), (text) => text === 'true'),
    }).filter(([, value]) => value !== undefined),
  );
  return {
    ids,
    add: links(nonBlank(form.first('addTag')), nonBlank(form.first('addShelf'))),
    remove: links(nonBlank(form.first('removeTag')), nonBlank(form.first('removeShelf'))),
    set: Object.keys(set).length === 0 ? undefined : set,
  };
}

/**
 * `POST /stories/bulk`: the library's select mode (a plain form, no script needed), checked with
 * the API's schema and rules and done by the API's bulk edit; back to the library page it came
 * from, or a page naming every problem.
 */
export const bulkEditRoutes: FastifyPluginAsync = async (app) => {
  app.post('/stories/bulk', { bodyLimit: 64 * 1024 }, async (request, reply) => {
    const form = formFields(request.body);
    const back = safeNext(form.first('back'));
    const backHref = back.startsWith('/library') ? back : '/library';
    const raw = bulkBodyOf(form);
    const refused = (details: Record<string, string>, status: number) =>
      render(reply, REFUSED, { title: 'The stories were not changed', problems: Object.entries(details).map(([field, message]) => ({ field, message })), backHref }, status);
    if (form.first('action') === 'delete' && form.first('confirmDelete') !== 'yes') return refused({ confirmDelete: 'tick the box to confirm the delete' }, 400);
    const checked = checkBody(BulkEditBody, (body) => bulkBodyIssues(app.db, body), raw);
    if (checked.body === undefined) return refused(checked.issues, 400);
    try {
      await bulkEdit(app.db, app.images, checked.body);
    } catch (error) {
      const refusal = formRefusal(error, 'ids');
      return refused(refusal.details, refusal.status);
    }
    return reply.redirect(backHref, 303);
  });
};
