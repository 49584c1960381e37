import t from 'tap';
import { PAGE_CSP } from '../../src/web/headers.js';
import { MISSING_ID } from '../helpers/factories.js';
import { importBody, waitForJob } from '../helpers/import.js';
import { buildWebTestApp, parseHtml, type WebTestContext } from '../helpers/web.js';

/** A hostile file name (no slash: only the last path segment of a name is kept). */
const HOSTILE = '<img src=x onerror=alert(1)>';

function postPage(ctx: WebTestContext, files: Parameters<typeof importBody>[0]) {
  const body = importBody(files);
  return ctx.request({ method: 'POST', url: '/import', payload: body.payload, headers: body.headers });
}

t.test('the import page: a multi-file form, linked from Add story; a refused upload shows the form again with the reason', async (t) => {
  const ctx = await buildWebTestApp(t);
  const res = await ctx.page('/import');
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-security-policy'], PAGE_CSP);
  const html = parseHtml(res.body);
  t.equal(html.texts('h1').length, 1);
  t.equal(html.attr('form[action="/import"]', 'enctype'), 'multipart/form-data');
  t.ok(html.one('input[type="file"][name="file"][multiple]'), 'a multi-file input');
  t.equal(html.attr('label[for="import-files"]', 'for'), 'import-files', 'the input has a label');
  t.notOk(html.one('#recent-imports-heading'), 'no list before any import');
  t.ok(parseHtml((await ctx.page('/stories/new')).body).one('a[href="/import"]'), '/stories/new links to it');

  const refused = await postPage(ctx, [{ filename: `${HOSTILE}.png`, data: 'x' }]);
  t.equal(refused.statusCode, 415);
  const again = parseHtml(refused.body);
  t.equal(again.text('#import-errors'), `${HOSTILE}.png is not a file the importer reads`);
  t.notMatch(refused.body, /<img src=x/, 'the file name is escaped');
  t.ok(again.one('form[action="/import"]'), 'the form again');
  t.equal((await ctx.anonymous.page('/import')).statusCode, 303, 'logged out: to the login page');
});

t.test('an upload goes to the job page, which polls its progress with htmx until the job ends', async (t) => {
  const ctx = await buildWebTestApp(t);
  const res = await postPage(ctx, [
    { filename: 'one.txt', data: 'one' },
    { filename: `${HOSTILE}.epub`, data: 'broken' },
  ]);
  t.equal(res.statusCode, 303);
  const location = res.headers.location as string;
  t.match(location, /^\/jobs\/[0-9a-f-]{36}$/);
  const id = location.slice('/jobs/'.length);

  const page = parseHtml((await ctx.page(location)).body);
  t.equal(page.text('h1'), 'Import progress');
  t.ok(page.one('#job-progress[aria-live="polite"] progress'), 'a progress bar in a live region');

  await waitForJob(ctx, id);
  const fragment = await ctx.page(`${location}/progress`);
  t.equal(fragment.statusCode, 200);
  t.equal(fragment.headers['cache-control'], 'no-store');
  t.notMatch(fragment.body, /<html/i, 'a fragment, no layout');
  const done = parseHtml(fragment.body);
  t.match(done.text('p'), /^Finished: 2 of 2 files \(1 imported, 1 failed\)\.$/);
  t.notOk(done.one('[hx-trigger]'), 'no more polling once finished');
  t.notOk(done.one('form'), 'no cancel button once finished');
  t.match(done.texts('li')[0], /\.epub: not a readable ZIP/);
  t.notMatch(fragment.body, /<img src=x/, 'a hostile file name is escaped');
  t.match(fragment.body, /&lt;img src=x onerror=alert\(1\)&gt;\.epub/);

  const list = parseHtml((await ctx.page('/import')).body);
  t.equal(list.attr('section ul a', 'href'), location, 'the import page lists it');
  t.equal((await ctx.page(`/jobs/${MISSING_ID}`)).statusCode, 404);
  t.equal((await ctx.page('/jobs/not-an-id')).statusCode, 400);
});

t.test('a running job polls every 2 s from a real link, and the cancel form cancels it', async (t) => {
  const ctx = await buildWebTestApp(t);
  ctx.app.jobs.register('test-wait', {
    run: (context) => new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true })),
  });
  const id = ctx.app.jobs.enqueue('test-wait', {});
  const html = parseHtml((await ctx.page(`/jobs/${id}`)).body);
  t.equal(html.attr('a[hx-trigger]', 'hx-trigger'), 'every 2s');
  t.equal(html.attr('a[hx-trigger]', 'href'), `/jobs/${id}`, 'the polling element is a link that works without JavaScript');
  t.equal(html.attr('a[hx-trigger]', 'hx-get'), `/jobs/${id}/progress`);
  const cancelled = await ctx.form(`/jobs/${id}/cancel`, {});
  t.equal(cancelled.statusCode, 303);
  t.equal(cancelled.headers.location, `/jobs/${id}`);
  t.match(await waitForJob(ctx, id), { status: 'cancelled' });
  t.equal((await ctx.form(`/jobs/${id}/cancel`, {})).statusCode, 303, 'cancelling a finished job again just shows it');
});
