/**
 * Telling the reader what arrived from a source (docs/decisions.md, "Sources › Telling the
 * reader"): a work grows at a local otwarchive fixture site and is refreshed; the home page puts
 * it first with its new chapters, the OPDS "Updated" feed lists it, the Atom feed of updates (as
 * authenticated as the catalog) has its entry, and the webhook gets one JSON POST.
 */
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import t, { type Test } from 'tap';
import { UpdateWebhook, WEBHOOK_RUNNING, WEBHOOK_WAITING } from '../../src/follow/webhook.js';
import { buildTestApp } from '../helpers/app.js';
import { fixtureSite, serve } from '../helpers/fixture-site.js';
import { waitForJob } from '../helpers/import.js';
import { checkDocuments, linkHref, parseFeed } from '../helpers/opds.js';
import { asDevice, basicAuth, makeDeviceToken } from '../helpers/tokens.js';
import { buildWebTestApp, parseHtml, type WebTestContext } from '../helpers/web.js';

const fixture = (name: string): string => fs.readFileSync(new URL(`../fixtures/otwarchive/${name}`, import.meta.url), 'utf8');

/** An archive serving the growing work 1003 as `growing.html` is now. */
async function growingArchive(t: Test): Promise<{ origin: string; growing: { html: string } }> {
  const growing = { html: fixture('work-growing-v1.html') };
  const site = await fixtureSite(t, { '/works/1003': (request, response) => serve(growing.html)(request, response) });
  return { origin: site.origin, growing };
}

interface Received {
  path: string;
  contentType: string | undefined;
  body: unknown;
}

/** A local webhook receiver: records each POST; `answer` picks the status (or `hang` to never answer). */
async function hookServer(t: Test, answer: number | 'hang' = 200): Promise<{ origin: string; received: Received[] }> {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', contentType: request.headers['content-type'], body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      if (answer !== 'hang') response.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** The story's progress saved now, in chapter `chapter`. */
async function readTo(t: Test, ctx: WebTestContext, storyId: string, chapter: number): Promise<void> {
  t.equal((await ctx.put(`/api/stories/${storyId}/progress`, { progress: 0.5, position: null, chapter })).statusCode, 200);
  // Chapter times are milliseconds: what arrives next is strictly later than this save.
  await tick();
}

t.test('a work that grew after the last read: first on the home page, in OPDS "Updated", in the Atom feed, posted to the webhook', async (t) => {
  const hook = await hookServer(t);
  const ctx = await buildWebTestApp(t, { IMPORT_ALLOW_HOSTS: '127.0.0.1', UPDATE_WEBHOOK_URL: `${hook.origin}/hook?token=s3cret` });
  const { origin, growing } = await growingArchive(t);
  const story = (await ctx.post('/api/import/url', { url: `${origin}/works/1003` })).json();
  t.equal(story.chapterCount, 3);
  const other = (await ctx.post('/api/stories', { title: 'Read and unchanged', contentHtml: '<p>x</p>' })).json();
  await readTo(t, ctx, other.id, 1);
  await readTo(t, ctx, story.id, 3);

  const before = parseHtml((await ctx.page('/')).body);
  t.notOk(before.one('#home-updated'), 'nothing new since the last read: no section');

  growing.html = fixture('work-growing-v2.html');
  const refreshed = await ctx.post(`/api/stories/${story.id}/refresh`);
  t.equal(refreshed.statusCode, 200, 'the refresh answers 200');
  t.same([refreshed.json().addedChapters, refreshed.json().updatedChapters], [1, 1]);

  // The home page: the section first, the card saying how many and leading to the first new chapter.
  const home = parseHtml((await ctx.page('/')).body);
  t.same(home.all('main section h2').map((h2) => h2.attribs.id), ['home-updated', 'home-continue', 'home-recent']);
  t.equal(home.text('#home-updated'), 'Updated since you last read');
  t.equal(home.all('section[aria-labelledby="home-updated"] .story-card').length, 1, 'only the story that grew');
  t.equal(home.text('section[aria-labelledby="home-updated"] a.new-chapters'), `1 new chapter of ${story.title}`);
  t.equal(home.attr('section[aria-labelledby="home-updated"] a.new-chapters', 'href'), `/stories/${story.id}/read/4`);
  t.notMatch(home.text('section[aria-labelledby="home-continue"]'), story.title, 'not shown twice');

  // Reading it again clears it.
  await readTo(t, ctx, story.id, 4);
  t.notOk(parseHtml((await ctx.page('/')).body).one('#home-updated'), 'read since: gone from the section');

  // OPDS: linked from the root, lists the story that gained chapters and not the other.
  const root = parseFeed((await ctx.get('/opds')).body);
  t.ok(root.entries.some((entry) => entry.title === 'Updated' && entry.links.some((link) => link.href === '/opds/updated')), 'the root links the feed');
  const updated = await ctx.get('/opds/updated');
  t.equal(updated.statusCode, 200);
  const feed = parseFeed(updated.body);
  t.same(feed.entries.map((entry) => entry.id), [`urn:uuid:${story.id}`]);
  t.equal(feed.totalResults, 1);
  t.equal(linkHref(feed.links, 'self'), '/opds/updated');

  // The Atom feed: the refresh first, then the import; needs credentials like the catalog.
  const anonymous = await ctx.app.inject({ method: 'GET', url: '/opds/updates.atom' });
  t.equal(anonymous.statusCode, 401);
  t.match(anonymous.headers['www-authenticate'], /^Basic realm="Storyshelf OPDS"/);
  const secret = await makeDeviceToken(ctx, ['read']);
  const atom = await asDevice(ctx, basicAuth(secret), { method: 'GET', url: '/opds/updates.atom', headers: { host: 'shelf.example:8080' } });
  t.equal(atom.statusCode, 200);
  t.match(atom.headers['content-type'], /^application\/atom\+xml/);
  const updates = parseFeed(atom.body);
  t.equal(updates.root, 'feed');
  t.same(updates.entries.map((entry) => entry.title), [`${story.title} — 1 new chapter, 1 chapter revised`, `${story.title} — added to the library with 3 chapters`]);
  t.same(updates.entries[0]!.links, [{ rel: 'alternate', href: `http://shelf.example:8080/stories/${story.id}/read/4`, type: 'text/html' }]);
  t.match(atom.body, /<summary type="text">New: Landfall\nRevised: Open Water\nFrom http:\/\/127\.0\.0\.1:\d+\/works\/1003<\/summary>/);
  t.equal(updates.updated, updates.entries[0]!.updated, "the feed is as new as its newest entry");
  const pathForm = await ctx.app.inject({ method: 'GET', url: `/opds/k/${secret}/updates.atom` });
  t.equal(pathForm.statusCode, 200, 'the path form too, for feed readers without Basic');
  await checkDocuments(t, [
    { name: 'updated', xml: updated.body, atom: true },
    { name: 'updates', xml: atom.body, atom: true },
    { name: 'updates-path', xml: pathForm.body, atom: true },
  ]);

  // The webhook: one POST for the refresh (none for the import), the body ntfy, Gotify and Home Assistant take.
  await (ctx.app.urlImports.updates as UpdateWebhook).settled();
  t.same(hook.received, [
    {
      path: '/hook?token=s3cret',
      contentType: 'application/json; charset=utf-8',
      body: { topic: 'storyshelf', title: `${story.title} — 1 new chapter, 1 chapter revised`, message: `New: Landfall\nRevised: Open Water\nFrom ${origin}/works/1003` },
    },
  ]);
  t.equal((await ctx.post(`/api/stories/${story.id}/refresh`)).json().result, 'unchanged');
  await (ctx.app.urlImports.updates as UpdateWebhook).settled();
  t.equal(hook.received.length, 1, 'an unchanged refresh posts nothing');

  const settings = parseHtml((await ctx.page('/settings')).body);
  t.match(settings.text('#updates'), `Posts to ${hook.origin} (topic storyshelf)`, '/settings names the webhook by its origin');
  t.notMatch(settings.text('#updates'), /s3cret|\/hook/, 'never its path or query');
});

t.test('a dead webhook never fails the refresh; it is logged, without the secret part of its address', async (t) => {
  const dead = await hookServer(t, 500);
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const ctx = await buildTestApp(t, { IMPORT_ALLOW_HOSTS: '127.0.0.1', UPDATE_WEBHOOK_URL: `${dead.origin}/message?token=s3cret` }, { level: 'warn', stream });
  const { origin, growing } = await growingArchive(t);
  const story = (await ctx.post('/api/import/url', { url: `${origin}/works/1003` })).json();
  growing.html = fixture('work-growing-v2.html');
  const res = await ctx.post(`/api/stories/${story.id}/refresh`);
  t.equal(res.statusCode, 200, 'the refresh is done whatever the webhook answers');
  t.equal(res.json().addedChapters, 1);
  await (ctx.app.urlImports.updates as UpdateWebhook).settled();
  t.equal(dead.received.length, 1);
  const logged = lines.join('');
  t.match(logged, /The update webhook was not delivered/);
  t.match(logged, /HTTP 500/);
  t.notMatch(logged, /s3cret/, 'the token in the address is not logged');
});

t.test('the webhook is bounded: at most two posts at once, a full queue drops and logs, closing ends the posts that never end', async (t) => {
  const hung = await hookServer(t, 'hang');
  const warnings: string[] = [];
  const { app } = await buildTestApp(t);
  const webhook = new UpdateWebhook({ url: new URL(`${hung.origin}/`), topic: 'storyshelf' }, { warn: (_details, message) => warnings.push(message) }, app.db);
  for (let n = 0; n < WEBHOOK_RUNNING + WEBHOOK_WAITING + 1; n += 1) webhook.notify({ title: `t${n}`, message: 'm' });
  // The one past the queue is refused at once.
  await tick();
  t.equal(warnings.length, 1, 'the post past the queue is dropped and logged');
  while (hung.received.length < WEBHOOK_RUNNING) await tick();
  t.equal(hung.received.length, WEBHOOK_RUNNING, `at most ${WEBHOOK_RUNNING} in flight`);
  await webhook.close();
  t.equal(warnings.length, WEBHOOK_RUNNING + WEBHOOK_WAITING + 1, 'closing ends every post, each logged');
});

t.test('a FanFicFare refresh job posts its update too, once committed', async (t) => {
  const hook = await hookServer(t);
  const replay = `${process.execPath} ${path.join(import.meta.dirname, '..', 'fixtures', 'fanficfare', 'replay-fanficfare.mjs')}`;
  // The stand-in replays the work's first five chapters at stage 1, all nine without a stage.
  process.env.FANFICFARE_REPLAY_STAGE = '1';
  t.teardown(() => {
    delete process.env.FANFICFARE_REPLAY_STAGE;
  });
  const ctx = await buildTestApp(t, { FANFICFARE_COMMAND: replay, UPDATE_WEBHOOK_URL: `${hook.origin}/` });
  const imported = await ctx.post('/api/import/url', { url: 'http://test1.com?sid=1' });
  t.equal((await waitForJob(ctx, imported.json().jobId)).status, 'done');
  const story = (await ctx.get('/api/stories')).json().content[0];
  delete process.env.FANFICFARE_REPLAY_STAGE;
  const refresh = await ctx.post(`/api/stories/${story.id}/refresh`);
  t.equal(refresh.statusCode, 202);
  t.equal((await waitForJob(ctx, refresh.json().jobId)).status, 'done');
  await (ctx.app.urlImports.updates as UpdateWebhook).settled();
  t.same(
    hook.received.map((post) => (post.body as { title: string }).title),
    [`${story.title} — 4 new chapters`],
  );
});
