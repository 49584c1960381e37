import t from 'tap';
import { fixtureSite, serve, storyParagraphs } from '../helpers/fixture-site.js';
import { buildWebTestApp, parseHtml } from '../helpers/web.js';

const PAGE = `<html><head><title>The Orchard</title><meta name="author" content="Ann Lee"></head><body><article>${storyParagraphs(['apples', 'fell', 'in', 'the', 'old', 'orchard', 'all', 'night'])}</article></body></html>`;

t.test('the new-story page has a URL box that imports and opens the story', async (t) => {
  const ctx = await buildWebTestApp(t, { IMPORT_ALLOW_HOSTS: '127.0.0.1' });
  const site = await fixtureSite(t, { '/orchard': serve(PAGE) });
  const page = parseHtml((await ctx.page('/stories/new')).body);
  t.equal(page.attr('form[action="/stories/import"]', 'method'), 'post');
  t.equal(page.attr('#import-url', 'name'), 'url');
  t.equal(page.attr('#import-url', 'type'), 'url');
  t.ok(page.one('label[for="import-url"]'), 'the box has a label');
  t.ok(page.one('form[action="/stories/new"]'), 'the hand-written form is still there');

  const imported = await ctx.form('/stories/import', { url: `${site.origin}/orchard` });
  t.equal(imported.statusCode, 303, imported.body);
  const location = imported.headers.location as string;
  t.match(location, /^\/stories\/[0-9a-f-]{36}$/);
  const story = parseHtml((await ctx.page(location)).body);
  t.match(story.text('h1'), 'The Orchard');

  const again = await ctx.form('/stories/import', { url: `${site.origin}/orchard` });
  t.equal(again.statusCode, 409);
  const duplicate = parseHtml(again.body);
  t.match(duplicate.text('#import-url-error'), /already imported/);
  t.equal(duplicate.attr('#import-url', 'value'), `${site.origin}/orchard`, 'what was typed is kept');
  t.equal(duplicate.attr('.edit-form__import a', 'href'), location, 'a link to the story imported earlier');

  const replaced = await ctx.form('/stories/import', { url: `${site.origin}/orchard`, update: '1' });
  t.equal(replaced.statusCode, 303);
  t.equal(replaced.headers.location, location, 'the same story, imported again');
  t.equal((await ctx.get('/api/stories')).json().totalElements, 1);
});

t.test('a refused import is shown on the form, escaped, and saves nothing', async (t) => {
  const ctx = await buildWebTestApp(t);
  const site = await fixtureSite(t, { '/orchard': serve(PAGE) });
  const blocked = await ctx.form('/stories/import', { url: `${site.origin}/orchard` });
  t.equal(blocked.statusCode, 403);
  t.match(parseHtml(blocked.body).text('#import-url-error'), /private or local address.*IMPORT_ALLOW_HOSTS/);
  t.same(site.received, []);

  const hostile = '"><script>alert(1)</script>';
  const bad = await ctx.form('/stories/import', { url: hostile });
  t.equal(bad.statusCode, 400);
  t.notOk(bad.body.includes('<script>alert(1)</script>'), 'the typed text is never markup');
  t.equal(parseHtml(bad.body).attr('#import-url', 'value'), hostile);
  t.match(parseHtml(bad.body).text('#import-url-error'), /http or https/);
  t.equal(parseHtml(bad.body).attr('#import-url', 'aria-invalid'), 'true');

  const crossSite = await ctx.anonymous.form('/stories/import', { url: `${site.origin}/orchard` }, { origin: 'http://evil.example', cookie: `token=${ctx.token}` });
  t.equal(crossSite.statusCode, 403);
  t.equal((await ctx.get('/api/stories')).json().totalElements, 0);
});
