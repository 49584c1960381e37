/**
 * The story page's chapter and source sections (docs/decisions.md, "Story page and reader"):
 * every author, the typed facts, tags by kind, the contents, and for a story that follows its
 * source the update log and the "Check for updates" form, against a local otwarchive site.
 */
import fs from 'node:fs';
import t, { type Test } from 'tap';
import { getAttributeValue, textContent } from 'domutils';
import { buildWebTestApp, parseHtml, type WebTestContext } from '../helpers/web.js';
import { createStory } from '../helpers/factories.js';
import { fixtureSite, serve, type FixtureSite } from '../helpers/fixture-site.js';
import { getStoryWithoutText } from '../../src/stories/service.js';

const HOSTILE = '<script>alert(1)</script>" onmouseover="alert(1)';

const fixture = (name: string): string => fs.readFileSync(new URL(`../fixtures/otwarchive/${name}`, import.meta.url), 'utf8');

function assertInert(t: Test, body: string): void {
  const html = parseHtml(body);
  t.equal(html.all('script').filter((script) => script.attribs.src === undefined).length, 0, 'no inline script element');
  t.equal(html.all('[onmouseover]').length, 0, 'no event-handler attribute');
}

function setKind(ctx: WebTestContext, name: string, kind: string): void {
  ctx.app.db.$client.prepare('UPDATE tags SET kind = ? WHERE name = ?').run(kind, name);
}

t.test('every author in order, status, language, dates, tags by kind, and the contents at the reading chapter', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, {
    title: 'O farol',
    authorNames: [`Ann ${HOSTILE}`, 'Bea', 'Cy'],
    chapters: [
      { title: `Start ${HOSTILE}`, contentHtml: '<p>one two three</p>' },
      { title: 'Middle', contentHtml: '<p>four five</p>' },
      { title: '', contentHtml: '<p>six</p>' },
    ],
    status: 'in-progress',
    language: 'pt-BR',
    publishedAt: '2024-01-05T00:00:00.000Z',
    sourceUpdatedAt: '2024-03-10T00:00:00.000Z',
    summary: 'Uma tempestade.',
    tagNames: ['mine', 'slow burn', `ada/tomas ${HOSTILE}`, 'lighthouse keepers'],
  });
  setKind(ctx, 'lighthouse keepers', 'fandom');
  setKind(ctx, `ada/tomas ${HOSTILE}`, 'relationship');
  setKind(ctx, 'slow burn', 'freeform');
  const dto = (await ctx.get(`/api/stories/${story.id}`)).json() as { authors: Array<{ id: string; name: string }> };
  t.equal((await ctx.put(`/api/stories/${story.id}/progress`, { progress: 0.6, position: '0', chapter: 2 })).statusCode, 200);

  const res = await ctx.page(`/stories/${story.id}`);
  t.equal(res.statusCode, 200);
  assertInert(t, res.body);
  const html = parseHtml(res.body);

  const byline = html.all('.story-page__byline a');
  t.same(
    byline.map((a) => [getAttributeValue(a, 'href'), textContent(a)]),
    dto.authors.map((author) => [`/authors/${author.id}`, author.name]),
    'every author linked to their page, in order',
  );
  t.equal(html.text('.story-page__byline'), `by Ann ${HOSTILE}, Bea and Cy`);

  t.same(html.texts('.story-page__facts dt'), ['Status', 'Language', 'Published', 'Updated', 'Length']);
  t.equal(html.text('.story-page__facts'), 'Status In progress Language Brazilian Portuguese (português (Brasil)) Published 5 January 2024 Updated 10 March 2024 Length 3 chapters · 6 words · 1 min read');
  t.equal(html.attr('.story-page__facts time', 'datetime'), '2024-01-05T00:00:00.000Z');
  t.equal(html.attr('.story-page__facts span[lang]', 'lang'), 'pt-BR', "the language's own name is marked as that language");
  t.equal(html.attr('h1', 'lang'), 'pt-BR', 'the title is in the story language');
  t.equal(html.attr('.story-page__text', 'lang'), 'pt-BR', 'so is the summary');

  t.same(html.texts('.story-page__tags dt'), ['Fandoms', 'Relationships', 'Additional tags', 'Tags'], 'archive kinds in order, the reader’s own last');
  t.same(
    html.texts('.story-page__tags dd'),
    ['lighthouse keepers', `ada/tomas ${HOSTILE}`, 'slow burn', 'mine'],
  );
  t.equal(html.attr(`.story-page__tags a[href="/tags/${encodeURIComponent(`ada/tomas ${HOSTILE}`)}"]`, 'href'), `/tags/${encodeURIComponent(`ada/tomas ${HOSTILE}`)}`, 'tag links as before');

  t.same(
    html.all('.story-page__contents li a').map((a) => [getAttributeValue(a, 'href'), textContent(a)]),
    [
      [`/stories/${story.id}/read/1`, `Start ${HOSTILE}`],
      [`/stories/${story.id}/read/2`, 'Middle'],
      [`/stories/${story.id}/read/3`, 'Chapter 3'],
    ],
  );
  t.same(html.texts('.story-page__contents .reader__words'), ['3 words', '2 words', '1 word']);
  t.equal(html.all('.story-page__here').length, 1, 'one chapter marked');
  t.match(html.texts('.story-page__contents li')[1], /Middle.*You are here/, 'the chapter the reader is in');
  t.notOk(html.one('#updates'), 'no update log for a story that follows no source');
  const read = getStoryWithoutText(ctx.app.db, story.id);
  t.same([read.title, 'contentHtml' in read, 'contentPlain' in read], ['O farol', false, false], 'the page reads the story without its text');
  t.notOk(html.one('form[action*="/refresh"]'));
});

t.test('a one-chapter story without the new fields: no contents, no facts but its length, "No author"', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { title: 'Short', contentHtml: '<p>Only words</p>', tagNames: ['mine'] });
  const html = parseHtml((await ctx.page(`/stories/${story.id}`)).body);
  t.notOk(html.one('.story-page__contents'), 'one chapter lists no contents');
  t.equal(html.text('.story-page__facts'), 'Length 2 words · 1 min read');
  t.notOk(html.one('h1[lang]'), 'no language, no lang');
  t.same(html.texts('.story-page__tags dt'), ['Tags']);
  t.equal(html.text('.story-page__byline'), 'No author');
});

t.test('a language ICU cannot name is shown as stored and marks nothing', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { title: 'Odd', language: 'abcdefgh-x' });
  const html = parseHtml((await ctx.page(`/stories/${story.id}`)).body);
  t.match(html.text('.story-page__facts'), 'Language abcdefgh-x');
  t.notOk(html.one('[lang="abcdefgh-x"]'));
});

/** A local archive serving work 1003 as `growing.html` is now. */
async function archive(t: Test): Promise<FixtureSite & { growing: { html: string } }> {
  const growing = { html: fixture('work-growing-v1.html') };
  const site = await fixtureSite(t, { '/works/1003': (request, response) => serve(growing.html)(request, response) });
  return Object.assign(site, { growing });
}

async function followedStory(t: Test): Promise<{ ctx: WebTestContext; site: FixtureSite & { growing: { html: string } }; id: string }> {
  const ctx = await buildWebTestApp(t, { IMPORT_ALLOW_HOSTS: '127.0.0.1' });
  const site = await archive(t);
  const res = await ctx.post('/api/import/url', { url: `${site.origin}/works/1003` });
  t.equal(res.statusCode, 201, res.body);
  return { ctx, site, id: res.json().id };
}

t.test('a story that follows its source: the update log and the refresh form; refreshing shows what changed', async (t) => {
  const { ctx, site, id } = await followedStory(t);
  let html = parseHtml((await ctx.page(`/stories/${id}`)).body);
  t.equal(html.text('#updates h2'), 'Updates from the source');
  t.same(html.texts('.story-page__update-line'), [`${html.text('.story-page__update-log time')} · Imported: 3 chapters`]);
  t.equal(html.attr('.story-page__update-log a', 'href'), `${site.origin}/works/1003`, 'from where');
  t.equal(html.attr('.story-page__update-log a', 'rel'), 'noopener noreferrer nofollow');
  t.equal(html.attr('form.story-page__refresh', 'action'), `/stories/${id}/refresh`);
  t.equal(html.attr('form.story-page__refresh', 'method'), 'post');
  t.match(html.text('#updates'), /Last checked .* UTC\./);
  t.equal(html.text('.story-page__facts dt'), 'Status');
  t.match(html.text('.story-page__facts'), 'In progress');

  site.growing.html = fixture('work-growing-v2.html');
  const refreshed = await ctx.form(`/stories/${id}/refresh`, {});
  t.equal(refreshed.statusCode, 303, refreshed.body);
  t.equal(refreshed.headers.location, `/stories/${id}?refreshed=1.1.0.0#updates`);
  t.equal((await ctx.get(`/api/stories/${id}`)).json().chapterCount, 4, 'the refresh service ran');
  html = parseHtml((await ctx.page(`/stories/${id}?refreshed=1.1.0.0`)).body);
  t.equal(html.text('form.story-page__refresh .story-page__notice'), '1 new chapter, 1 updated');
  t.same(
    html.texts('.story-page__update-line').map((line) => line.replace(/^.* · /, '')),
    ['Checked by hand: 1 new chapter, 1 updated', 'Imported: 3 chapters'],
    'newest first',
  );
  t.match(html.text('.story-page__update-log > li'), 'New: Landfall');
  t.equal(html.all('.story-page__contents li').length, 4, 'the new chapter in the contents');

  const again = await ctx.form(`/stories/${id}/refresh`, {});
  t.equal(again.headers.location, `/stories/${id}?refreshed=0.0.0.0#updates`);
  html = parseHtml((await ctx.page(again.headers.location as string)).body);
  t.equal(html.text('form.story-page__refresh .story-page__notice'), 'No changes');
  t.equal(html.all('.story-page__update-log > li').length, 2, 'an unchanged check logs nothing');

  html = parseHtml((await ctx.page(`/stories/${id}?refreshed=${encodeURIComponent(HOSTILE)}`)).body);
  t.equal(html.text('form.story-page__refresh .story-page__notice'), '', 'a hand-made value shows no notice');
});

t.test('a failing refresh is the story page with the error by the form and its status; a story without a source is the error page', async (t) => {
  const { ctx, site, id } = await followedStory(t);
  const gone = await fixtureSite(t, {});
  ctx.app.db.$client.prepare('UPDATE story_sources SET url = ? WHERE story_id = ?').run(`${gone.origin}/works/1003`, id);
  const failed = await ctx.form(`/stories/${id}/refresh`, {});
  t.equal(failed.statusCode, 502, 'the status of the API’s refresh');
  t.equal(failed.headers['hx-push-url'], `/stories/${id}`);
  assertInert(t, failed.body);
  let html = parseHtml(failed.body);
  t.match(html.text('form.story-page__refresh .story-page__notice'), /HTTP 404/);
  t.ok(html.one('.story-page__notice--failed'));
  t.notOk(html.one('.story-page__error'), 'said once, by the form');
  t.equal(html.all('.story-page__update-log > li').length, 1, 'nothing changed');
  html = parseHtml((await ctx.page(`/stories/${id}`)).body);
  t.match(html.text('.story-page__error'), /^The last check failed: .*HTTP 404/, 'the failure stays on the page until a check succeeds');
  t.same(site.received, ['/works/1003'], 'only the import reached the first site');

  const plain = await createStory(ctx, { title: 'Mine', contentHtml: '<p>x</p>' });
  const refused = await ctx.form(`/stories/${plain.id}/refresh`, {});
  t.equal(refused.statusCode, 409);
  t.match(parseHtml(refused.body).text('main'), 'This story does not follow a source');
  t.equal((await ctx.form('/stories/00000000-0000-4000-8000-000000000000/refresh', {})).statusCode, 404);
});

t.test('the refresh form is refused cross-site and logged out, and nothing is fetched', async (t) => {
  const { ctx, site, id } = await followedStory(t);
  site.received.length = 0;
  const crossSite = await ctx.anonymous.form(`/stories/${id}/refresh`, {}, { origin: 'http://evil.example', cookie: `token=${ctx.token}` });
  t.equal(crossSite.statusCode, 403);
  const anonymous = await ctx.anonymous.form(`/stories/${id}/refresh`, {});
  t.equal(anonymous.statusCode, 303);
  t.match(anonymous.headers.location, /^\/login/);
  t.same(site.received, [], 'no request reached the source');
});
