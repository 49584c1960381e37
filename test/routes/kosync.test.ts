/**
 * KOReader sync (docs/decisions.md, "KOReader sync") through the real HTTP stack, driven by a
 * client made from KOReader's kosync api.json: its four methods, paths and accepted statuses, its
 * headers (Accept: application/vnd.koreader.v1+json, x-auth-user, x-auth-key = md5(password)).
 * Proves the exact content type, both ways of giving the device token, the 401/403 answers, plain
 * sync of foreign documents, and paragraph-exact round trips between the web reader's position
 * and KOReader's xpointer in a downloaded EPUB.
 */
import t from 'tap';
import { koreaderPartialMd5 } from '../../src/epub/partial-md5.js';
import { buildTestApp } from '../helpers/app.js';
import { download } from '../helpers/epub.js';
import { createStory } from '../helpers/factories.js';
import { deviceToken, koreader, md5 } from '../helpers/kosync.js';

const paragraphs = (n: number) => Array.from({ length: n }, (_, i) => `<p>Paragraph ${i}</p>`).join('');

t.test('protocol: statuses, content type, credentials', async (t) => {
  const ctx = await buildTestApp(t);
  const token = await deviceToken(ctx);
  const asPassword = koreader(ctx, 'anyone', token);

  const register = await asPassword('register', { username: 'me', password: 'secret' });
  t.equal(register.status, 402);
  t.ok(register.expected, 'KOReader accepts the status');
  t.match(register.body.message, /device token/);

  const auth = await asPassword('authorize');
  t.same([auth.status, auth.body], [200, { authorized: 'OK' }]);
  t.equal(auth.type, 'application/json', 'exactly application/json, no charset');

  const asUser = koreader(ctx, token, 'ignored');
  t.equal((await asUser('authorize')).status, 200, 'the token as the user name also works');

  const wrong = await koreader(ctx, 'anyone', 'not the token')('authorize');
  t.equal(wrong.status, 401);
  t.equal(wrong.type, 'application/json');
  t.match(wrong.body.message, /device token/);
  const none = await ctx.app.inject({ method: 'GET', url: '/kosync/users/auth' });
  t.equal(none.statusCode, 401, 'no credentials');

  const readOnly = await deviceToken(ctx, ['read']);
  // KOReader's client knows 401 only: a 403 would show "Unknown server error" and queue pushes for ever.
  const scopeless = koreader(ctx, 'x', readOnly);
  for (const [name, params] of [['authorize', {}], ['update_progress', { document: 'a'.repeat(32), progress: '1', percentage: 0.1, device: 'K', device_id: 'K' }], ['get_progress', { document: 'a'.repeat(32) }]] as const) {
    const res = await scopeless(name, params);
    t.equal(res.status, 401, `${name}: a token without the progress scope`);
    t.ok(res.expected, `${name}: KOReader's api.json expects the status`);
    t.match(res.body.message, /"progress" scope/, `${name}: the message KOReader shows says why`);
  }

  const login = await ctx.request({ method: 'GET', url: '/kosync/users/auth' });
  t.equal(login.statusCode, 401, 'the login cookie is not a KOReader credential');

  // A document Storyshelf did not make: stored and returned as sent.
  const foreign = 'f'.repeat(32);
  t.same((await asPassword('get_progress', { document: foreign })).body, {}, 'nothing stored yet: {}');
  const put = await asPassword('update_progress', { document: foreign, progress: '/body/DocFragment[4]/body/p[2]/text().5', percentage: 0.42, device: 'Kobo', device_id: 'ABC', metadata: { title: 'x' } });
  t.equal(put.status, 200);
  t.equal(put.type, 'application/json');
  t.equal(put.body.document, foreign);
  t.type(put.body.timestamp, 'number');
  const got = await asPassword('get_progress', { document: foreign });
  t.same(got.body, { document: foreign, progress: '/body/DocFragment[4]/body/p[2]/text().5', percentage: 0.42, device: 'Kobo', device_id: 'ABC', timestamp: put.body.timestamp });
  t.equal(got.type, 'application/json');

  const pdf = 'b'.repeat(32);
  t.equal((await asPassword('update_progress', { document: pdf, progress: 12, percentage: 0.1, device: 'Kobo', device_id: 'ABC' })).status, 200, 'a page number as a JSON number');
  t.equal((await asPassword('get_progress', { document: pdf })).body.progress, '12');

  const bad = await asPassword('update_progress', { document: foreign, progress: 'x', percentage: 2, device: 'Kobo', device_id: 'ABC' });
  t.equal(bad.status, 400, 'a percentage above 1');
  t.equal(bad.type, 'application/json');
  t.match(bad.body, { error: String, message: String, details: { percentage: String } });
});

t.test('round trips between the web reader and KOReader, paragraph-exact', async (t) => {
  const ctx = await buildTestApp(t);
  const client = koreader(ctx, 'me', await deviceToken(ctx));
  const story = await createStory(ctx, { title: 'Round trip', contentHtml: `<h2>Start</h2>${paragraphs(12)}<blockquote><p>q</p></blockquote><p>End</p>` });
  const { bytes } = await download(ctx, `/api/stories/${story.id}/epub`);
  const document = koreaderPartialMd5(bytes);

  t.same((await client('get_progress', { document })).body, {}, 'a Storyshelf book never read: {}');

  // Web block 7 is the 7th child: h2 is block 0, so it is "Paragraph 6", the 7th <p> of the page.
  t.equal((await ctx.put(`/api/stories/${story.id}/progress`, { progress: 0.5, position: '7' })).statusCode, 200);
  const fromWeb = await client('get_progress', { document });
  t.match(fromWeb.body, { document, progress: '/body/DocFragment[2]/body/p[7].0', percentage: 0.5, device: 'Storyshelf' });

  const put = await client('update_progress', { document, progress: '/body/DocFragment[2]/body/p[10]/text().3', percentage: 0.71, device: 'Kindle', device_id: 'K1' });
  t.equal(put.status, 200);
  const web = (await ctx.get(`/api/stories/${story.id}/progress`)).json();
  t.same([web.position, web.progress], ['10', 0.71], 'p[10] is web block 10 (the h2 comes first)');
  const back = await client('get_progress', { document });
  t.match(back.body, { progress: '/body/DocFragment[2]/body/p[10]/text().3', device: 'Kindle', device_id: 'K1' }, "KOReader's own pointer while the web position has not moved");

  await client('update_progress', { document, progress: '/body/DocFragment[2]/body/blockquote/p/text().0', percentage: 0.9, device: 'Kindle', device_id: 'K1' });
  t.equal((await ctx.get(`/api/stories/${story.id}/progress`)).json().position, '13', 'a unique element has no rank');

  // The story changes: the old file's paragraphs no longer mean the same, only the fraction is kept.
  t.equal((await ctx.put(`/api/stories/${story.id}`, { contentHtml: paragraphs(3) })).statusCode, 200);
  await client('update_progress', { document, progress: '/body/DocFragment[2]/body/p[2].0', percentage: 0.25, device: 'Kindle', device_id: 'K1' });
  const stale = (await ctx.get(`/api/stories/${story.id}/progress`)).json();
  t.same([stale.position, stale.progress], [null, 0.25]);
  await ctx.put(`/api/stories/${story.id}/progress`, { progress: 0.6, position: '1' });
  t.match((await client('get_progress', { document })).body, { progress: '/body/DocFragment[2].0', percentage: 0.6 }, 'the start of the story in a stale file');

  t.equal((await ctx.del(`/api/stories/${story.id}`)).statusCode, 200);
  const orphan = await client('update_progress', { document, progress: '/body/DocFragment[2]/body/p[1].0', percentage: 0.3, device: 'Kindle', device_id: 'K1' });
  t.equal(orphan.status, 200, 'a book whose story was deleted still syncs');
  t.match((await client('get_progress', { document })).body, { progress: '/body/DocFragment[2]/body/p[1].0', device: 'Kindle' });
});

t.test('a series book: the spine item names the story', async (t) => {
  const ctx = await buildTestApp(t);
  const client = koreader(ctx, 'me', await deviceToken(ctx));
  const ids: string[] = [];
  for (const volume of [1, 2, 3]) ids.push((await createStory(ctx, { title: `Vol ${volume}`, seriesName: 'Set', volume, contentHtml: paragraphs(4) })).id);
  const seriesId = (await ctx.get(`/api/stories/${ids[0]}`)).json().seriesId as string;
  const document = koreaderPartialMd5((await download(ctx, `/api/series/${seriesId}/epub`)).bytes);

  await client('update_progress', { document, progress: '/body/DocFragment[3]/body/p[3]/text().0', percentage: 0.5, device: 'Kobo', device_id: 'B' });
  const second = (await ctx.get(`/api/stories/${ids[1]}/progress`)).json();
  t.same([second.position, second.progress], ['2', 0.5], 'DocFragment 3 is volume 2 (the title page is 1); p[3] is block 2');
  t.equal((await ctx.get(`/api/stories/${ids[0]}/progress`)).json().position, null, 'other volumes untouched');

  await ctx.put(`/api/stories/${ids[2]}/progress`, { progress: 0.25, position: '3' });
  const got = (await client('get_progress', { document })).body;
  t.match(got, { progress: '/body/DocFragment[4]/body/p[4].0', device: 'Storyshelf' }, 'the most recently read volume');
  t.ok(Math.abs((got.percentage as number) - (2 + 0.25) / 3) < 1e-9, 'percentage of the whole book');
});

t.test('wrong keys are throttled with the logins', async (t) => {
  const ctx = await buildTestApp(t);
  const token = await deviceToken(ctx);
  const guess = koreader(ctx, 'me', 'guess');
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) statuses.push((await guess('authorize')).status);
  t.same(statuses, Array(11).fill(401), 'the lockout is a 401 as well: KOReader knows no 429');
  const locked = await koreader(ctx, 'me', token)('authorize');
  t.equal(locked.status, 401, 'even the right token, from a locked-out address');
  t.ok(locked.expected);
  t.match(locked.body.message, /Too many failed logins/, 'the message KOReader shows');
  t.equal(locked.type, 'application/json');
  const push = await koreader(ctx, 'me', token)('update_progress', { document: 'a'.repeat(32), progress: '1', percentage: 0.1, device: 'K', device_id: 'K' });
  t.same([push.status, push.expected], [401, true], 'a push from a locked-out address is not queued for ever');
});

t.test('bad input: a 4xx JSON answer of the exact type, nothing stored', async (t) => {
  const ctx = await buildTestApp(t);
  const token = await deviceToken(ctx);
  const headers = { 'x-auth-user': 'me', 'x-auth-key': md5(token) };
  const good = { document: 'c'.repeat(32), progress: '/body/DocFragment[2].0', percentage: 0.5, device: 'Kobo', device_id: 'A' };
  const cases: Array<[string, Record<string, string>, string]> = [
    ['malformed JSON', { 'content-type': 'application/json' }, '{"document":'],
    ['not JSON', { 'content-type': 'text/plain' }, 'document=x'],
    ['missing fields', { 'content-type': 'application/json' }, JSON.stringify({ document: 'x' })],
    ['wrong types', { 'content-type': 'application/json' }, JSON.stringify({ ...good, percentage: 'half', device_id: 7 })],
    ['too long', { 'content-type': 'application/json' }, JSON.stringify({ ...good, document: 'd'.repeat(129), progress: 'p'.repeat(1001) })],
    ['negative percentage', { 'content-type': 'application/json' }, JSON.stringify({ ...good, percentage: -0.1 })],
  ];
  for (const [label, extra, payload] of cases) {
    const res = await ctx.app.inject({ method: 'PUT', url: '/kosync/syncs/progress', headers: { ...headers, ...extra }, payload });
    t.ok(res.statusCode >= 400 && res.statusCode < 500, `${label}: ${res.statusCode}`);
    t.equal(res.headers['content-type'], 'application/json', `${label}: content type`);
    t.match(res.json(), { error: String, message: String }, `${label}: body`);
  }
  const longDocument = await ctx.app.inject({ method: 'GET', url: `/kosync/syncs/progress/${'e'.repeat(129)}`, headers });
  t.equal(longDocument.statusCode, 400);
  const unknown = await ctx.app.inject({ method: 'GET', url: '/kosync/nothing/here', headers });
  t.equal(unknown.statusCode, 404);
  t.equal(unknown.headers['content-type'], 'application/json');
  t.same(ctx.app.db.$client.prepare('SELECT count(*) AS n FROM kosync_documents').get(), { n: 0 }, 'nothing stored');
});
