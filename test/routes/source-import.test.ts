/**
 * Importing otwarchive works and series through POST /api/import/url, and refreshing them
 * (docs/api.md, "Importing from a URL" and "Following a source"), against a local archive
 * serving the fixtures of test/fixtures/otwarchive.
 */
import fs from 'node:fs';
import type http from 'node:http';
import t, { type Test } from 'tap';
import { RefreshResult } from '../../src/schemas/source.js';
import { StoryDto } from '../../src/schemas/story.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { waitForJob } from '../helpers/import.js';
import { fixtureSite, redirect, serve, type FixtureSite } from '../helpers/fixture-site.js';
import { png } from '../helpers/images.js';
import { assertMatches } from '../helpers/schema.js';

const fixture = (name: string): string => fs.readFileSync(new URL(`../fixtures/otwarchive/${name}`, import.meta.url), 'utf8');

/** A local archive: every work's entire-work view, a series, a restricted work, and work 1003 as `growing.html` is now. */
async function archive(t: Test, growing = { html: fixture('work-growing-v1.html') }): Promise<FixtureSite & { queries: string[] }> {
  const queries: string[] = [];
  const work = (name: string) => (request: http.IncomingMessage, response: http.ServerResponse) => {
    queries.push(request.url ?? '');
    serve(fixture(name))(request, response);
  };
  const site = await fixtureSite(t, {
    '/works/1001': work('work-multi-chapter.html'),
    '/works/1002': work('work-one-shot.html'),
    '/works/1003': (request, response) => serve(growing.html)(request, response),
    '/works/1004': work('work-series-part-2.html'),
    '/works/1006': work('work-coauthored.html'),
    '/works/1007': work('work-series-part-1.html'),
    '/works/1008': work('work-series-part-3.html'),
    '/works/1009': redirect('/users/login?restricted=true&return_to=%2Fworks%2F1009'),
    '/users/login': serve(fixture('restricted-login.html')),
    '/series/2001': serve(fixture('series.html')),
  });
  return Object.assign(site, { queries });
}

async function app(t: Test): Promise<TestContext> {
  return buildTestApp(t, { IMPORT_ALLOW_HOSTS: '127.0.0.1' });
}

t.test('a chapter address imports the whole work: chapters, typed tags, dates, status, language, source', async (t) => {
  const ctx = await app(t);
  const site = await archive(t);
  const res = await ctx.post('/api/import/url', { url: `${site.origin}/works/1001/chapters/5002` });
  t.equal(res.statusCode, 201, res.body);
  const story = res.json();
  assertMatches(t, StoryDto, story);
  t.equal(story.title, 'The Long Way Round');
  t.equal(story.sourceUrl, `${site.origin}/works/1001`, 'the work address, whichever chapter was given');
  t.equal(story.chapterCount, 3);
  t.equal(story.status, 'complete');
  t.equal(story.publishedAt, '2024-01-05T00:00:00.000Z');
  t.equal(story.sourceUpdatedAt, '2024-03-10T00:00:00.000Z');
  t.equal(story.language, 'en');
  t.equal(story.summary, 'Ada keeps the light. Tomas keeps secrets.\n\nA storm keeps them both.');
  t.same(story.authors.map((author: { name: string }) => author.name), ['inkwell']);
  const kinds = Object.fromEntries(story.tags.map((tag: { name: string; kind: string }) => [tag.name, tag.kind]));
  t.equal(kinds['teen and up audiences'], 'rating');
  t.equal(kinds['no archive warnings apply'], 'warning');
  t.equal(kinds['f/m'], 'category');
  t.equal(kinds['lighthouse keepers (web series)'], 'fandom');
  t.equal(kinds['ada quill/tomas reed'], 'relationship');
  t.equal(kinds['mira vance'], 'character');
  t.equal(kinds['slow burn'], 'freeform');
  t.same(site.queries, ['/works/1001?view_full_work=true&view_adult=true'], 'one request: the entire-work view past the adult notice');

  const chapters = (await ctx.get(`/api/stories/${story.id}/chapters`)).json();
  t.same(
    chapters.map((chapter: { title: string; sourceUrl: string }) => [chapter.title, chapter.sourceUrl]),
    [
      ['The Lamp', `${site.origin}/works/1001/chapters/5001`],
      ['Salt & Iron', `${site.origin}/works/1001/chapters/5002`],
      ['Chapter 3', `${site.origin}/works/1001/chapters/5003`],
    ],
  );
  const second = (await ctx.get(`/api/stories/${story.id}/chapters/2`)).json();
  t.match(second.contentHtml, /Tomas came in from the rain/);
  t.notMatch(second.contentHtml, /Ada climbed/);

  const updates = (await ctx.get(`/api/stories/${story.id}/updates`)).json().updates;
  t.same(updates.map((update: Record<string, unknown>) => [update.origin, update.addedChapters]), [['import', 3]]);

  const again = await ctx.post('/api/import/url', { url: `${site.origin}/works/1001` });
  t.equal(again.statusCode, 409, 'a work already held');
  t.equal(again.json().details.storyId, story.id);
  t.equal((await ctx.post('/api/import/url?update=true', { url: `${site.origin}/works/1001/chapters/5003` })).statusCode, 409, 'refresh, not update, brings it up to date');
  t.equal(site.queries.length, 1, 'refused before fetching');
});

t.test('co-authors in order, a one-shot, a series part, a restricted work', async (t) => {
  const ctx = await app(t);
  const site = await archive(t);
  const co = (await ctx.post('/api/import/url', { url: `${site.origin}/works/1006` })).json();
  t.same(co.authors.map((author: { name: string }) => author.name), ['inkwell', 'Harbour Light (quietharbour)']);
  t.equal(co.authorName, 'inkwell');
  t.equal(co.status, 'in-progress', '2/5');
  t.equal(co.title, 'Two Hands & One Lamp <3');
  t.notMatch(JSON.stringify(co), /<script/);

  const one = (await ctx.post('/api/import/url', { url: `${site.origin}/works/1002` })).json();
  t.equal(one.chapterCount, 1);
  t.equal(one.language, 'es');
  t.match(one.contentHtml, /^<p>La niebla/, 'an untitled one-chapter work is its text');

  const part = (await ctx.post('/api/import/url', { url: `${site.origin}/works/1004` })).json();
  t.equal(part.seriesName, 'The Lighthouse Cycle');
  t.equal(part.volume, 2);
  t.equal(part.language, 'pt-BR');

  const count = (await ctx.get('/api/stories')).json().total;
  const restricted = await ctx.post('/api/import/url', { url: `${site.origin}/works/1009` });
  t.equal(restricted.statusCode, 422);
  t.match(restricted.json().details.url, /logged-in users/);
  t.equal((await ctx.get('/api/stories')).json().total, count, 'nothing created');
});

t.test('a series address imports every work as a job, filed under the series by part', async (t) => {
  const ctx = await app(t);
  const site = await archive(t);
  const held = (await ctx.post('/api/import/url', { url: `${site.origin}/works/1004` })).json();
  const res = await ctx.post('/api/import/url', { url: `${site.origin}/series/2001` });
  t.equal(res.statusCode, 202, res.body);
  const job = await waitForJob(ctx, res.json().jobId);
  t.equal(job.status, 'done');
  t.equal(job.done, 3);
  t.match(job.errors, [{ file: `${site.origin}/works/1004`, error: new RegExp(`already in the library \\(story ${held.id}\\)`) }]);
  const series = (await ctx.get(`/api/series`)).json().content.find((one: { name: string }) => one.name === 'The Lighthouse Cycle');
  const inSeries = (await ctx.get(`/api/stories/series/${series.id}`)).json();
  t.same(inSeries.map((story: { title: string; volume: number }) => [story.volume, story.title]), [
    [1, 'First Light'],
    [2, 'Second Light'],
    [3, 'Third Light'],
  ]);
});

t.test("a work's pictures are stored, never hot-linked; one that cannot be had is left out, and so is its <img>", async (t) => {
  const ctx = await app(t);
  const pictured = fixture('work-one-shot.html').replace(
    '<div class="userstuff"><p>La niebla',
    '<div class="userstuff"><p><img src="/pics/lamp.png" alt="the lamp"><img src="/pics/missing.png" alt="gone"></p><p>La niebla',
  );
  t.not(pictured, fixture('work-one-shot.html'), 'the picture is in the page');
  const site = await fixtureSite(t, {
    '/works/1002': serve(pictured),
    '/pics/lamp.png': serve(png(), 'image/png'),
    '/pics/missing.png': (_request, response) => void response.writeHead(404).end(),
  });
  const res = await ctx.post('/api/import/url', { url: `${site.origin}/works/1002` });
  t.equal(res.statusCode, 201, res.body);
  const html: string = (await ctx.get(`/api/stories/${res.json().id}/chapters/1`)).json().contentHtml;
  const stored = /<img src="\/api\/files\/images\/(inline\/[^"]+)" alt="the lamp" \/?>/.exec(html);
  t.ok(stored, html);
  t.equal((await ctx.get(`/api/files/images/${stored?.[1]}`)).statusCode, 200, 'the picture is stored');
  t.notMatch(html, /gone|missing|pics|source-/, 'the picture that could not be had is left out, <img> and all');
  t.match(html, /La niebla/);
});

t.test('refresh: new chapters appended, a changed one replaced, the rest untouched; then unchanged', async (t) => {
  const ctx = await app(t);
  const growing = { html: fixture('work-growing-v1.html') };
  const site = await archive(t, growing);
  const story = (await ctx.post('/api/import/url', { url: `${site.origin}/works/1003` })).json();
  t.equal(story.chapterCount, 3);
  t.equal(story.status, 'in-progress');
  const before = (await ctx.get(`/api/stories/${story.id}/chapters`)).json();

  growing.html = fixture('work-growing-v2.html');
  const res = await ctx.post(`/api/stories/${story.id}/refresh`);
  t.equal(res.statusCode, 200, res.body);
  assertMatches(t, RefreshResult, res.json());
  const refreshed = res.json();
  t.same([refreshed.result, refreshed.addedChapters, refreshed.updatedChapters, refreshed.keptChapters, refreshed.goneChapters], ['updated', 1, 1, 0, 0]);
  t.equal(refreshed.story.chapterCount, 4);
  t.equal(refreshed.story.sourceUpdatedAt, '2024-04-02T00:00:00.000Z');
  t.ok(refreshed.story.wordCount > story.wordCount);
  const after = (await ctx.get(`/api/stories/${story.id}/chapters`)).json();
  t.equal(after[0].updatedAt, before[0].updatedAt, 'an unchanged chapter is not written');
  t.not(after[1].updatedAt, before[1].updatedAt, 'the revised chapter is');
  t.match((await ctx.get(`/api/stories/${story.id}/chapters/2`)).json().contentHtml, /\(revised\)/);
  t.equal(after[3].title, 'Landfall');

  const again = (await ctx.post(`/api/stories/${story.id}/refresh`)).json();
  t.same([again.result, again.addedChapters, again.updatedChapters], ['unchanged', 0, 0]);
  const updates = (await ctx.get(`/api/stories/${story.id}/updates`)).json().updates;
  t.same(updates.map((update: Record<string, unknown>) => [update.origin, update.addedChapters, update.updatedChapters]), [
    ['refresh', 1, 1],
    ['import', 3, 0],
  ]);
  t.same(updates[0].details.added, ['Landfall']);
});

t.test('refresh never destroys text: a stub keeps the old, a vanished chapter is marked and kept', async (t) => {
  const ctx = await app(t);
  const growing = { html: fixture('work-growing-v2.html') };
  const site = await archive(t, growing);
  const story = (await ctx.post('/api/import/url', { url: `${site.origin}/works/1003` })).json();
  const stubbed = fixture('work-growing-v2.html')
    .replace(/(<div class="chapter" id="chapter-2">[\s\S]*?<h3 class="landmark heading" id="work">Chapter Text<\/h3>)[\s\S]*?(<\/div>\s*<!--\/main-->)/, '$1<p>Removed.</p>$2')
    .replace(/<!-- This partial requires local variable 'chapter' -->\s*<div class="chapter" id="chapter-4">[\s\S]*?<\/div>\s*<!--\/main-->\s*<\/div>/, '')
    .replace('4/?', '3/?');
  t.not(stubbed, fixture('work-growing-v2.html'));
  growing.html = stubbed;
  const res = (await ctx.post(`/api/stories/${story.id}/refresh`)).json();
  t.same([res.keptChapters, res.goneChapters, res.updatedChapters, res.addedChapters], [1, 1, 0, 0]);
  const chapters = (await ctx.get(`/api/stories/${story.id}/chapters`)).json();
  t.equal(chapters.length, 4, 'nothing removed');
  t.ok(chapters[3].sourceGoneAt !== null, 'the vanished chapter is marked');
  t.match((await ctx.get(`/api/stories/${story.id}/chapters/2`)).json().contentHtml, /By noon the coast/, 'the stub did not replace the text');
  const update = (await ctx.get(`/api/stories/${story.id}/updates`)).json().updates[0];
  t.same(update.details.kept, ['Open Water']);
  t.same(update.details.gone, ['Landfall']);
});

t.test('refresh of a story without a source is 409; of an unknown story 404; a failing source records the failure', async (t) => {
  const ctx = await app(t);
  const plain = (await ctx.post('/api/stories', { title: 'Mine', contentHtml: '<p>x</p>' })).json();
  t.equal((await ctx.post(`/api/stories/${plain.id}/refresh`)).statusCode, 409);
  t.equal((await ctx.post('/api/stories/00000000-0000-4000-8000-000000000000/refresh')).statusCode, 404);
  const site = await archive(t);
  const story = (await ctx.post('/api/import/url', { url: `${site.origin}/works/1003` })).json();
  site.received.length = 0;
  const gone = await fixtureSite(t, {});
  ctx.app.db.$client.prepare('UPDATE story_sources SET url = ? WHERE story_id = ?').run(`${gone.origin}/works/1003`, story.id);
  const failed = await ctx.post(`/api/stories/${story.id}/refresh`);
  t.equal(failed.statusCode, 502);
  const row = ctx.app.db.$client.prepare('SELECT failures, last_error AS lastError FROM story_sources WHERE story_id = ?').get(story.id) as { failures: number; lastError: string };
  t.equal(row.failures, 1);
  t.match(row.lastError, /HTTP 404/);
});
