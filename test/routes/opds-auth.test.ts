/**
 * Who may read the OPDS catalog, and how (docs/api.md, "OPDS catalog"; docs/decisions.md, "OPDS
 * catalog"): the Basic challenge on 401, the login cookie, Bearer, Basic with a device token as
 * the password, the `read` scope, and the path form, whose feeds link only to the path form
 * (covers and EPUBs too) and whose token never reaches the logs.
 */
import { Writable } from 'node:stream';
import t from 'tap';
import type { RouteOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { buildTestApp, tempDataDir, type TestContext } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import * as img from '../helpers/images.js';
import { fileUpload } from '../helpers/multipart.js';
import { linkHref, parseFeed } from '../helpers/opds.js';
import { asDevice, basicAuth, makeDeviceToken } from '../helpers/tokens.js';

const CHALLENGE = 'Basic realm="Storyshelf OPDS", charset="UTF-8"';

async function storyWithCover(ctx: TestContext) {
  const body = fileUpload(img.png());
  const upload = await ctx.request({ method: 'POST', url: '/api/files/upload/cover', payload: body.payload, headers: body.headers });
  if (upload.statusCode !== 200) throw new Error(`upload failed: ${upload.statusCode} ${upload.body}`);
  const coverPath = (upload.json() as { path: string }).path;
  return createStory(ctx, { title: 'Covered', coverPath, authorName: 'Ann', seriesName: 'Saga', volume: 1, tagNames: ['tagged'] });
}

t.test('without credentials, or with wrong ones, the catalog answers 401 with the Basic challenge', async (t) => {
  const ctx = await buildTestApp(t);
  for (const [what, headers, url] of [
    ['nothing', {}, '/opds'],
    ['nothing, a deeper feed', {}, '/opds/stories?sort=added'],
    ['a wrong Basic password', { authorization: basicAuth('sst_wrong') }, '/opds'],
    ['a wrong Bearer', { authorization: 'Bearer sst_wrong' }, '/opds/authors'],
  ] as const) {
    const res = await ctx.app.inject({ method: 'GET', url, headers });
    t.equal(res.statusCode, 401, what);
    t.equal(res.headers['www-authenticate'], CHALLENGE, `${what}: the challenge`);
    t.match(res.headers['content-type'], /^application\/json/, `${what}: the API's JSON error`);
    t.match(res.json(), { error: String });
  }
  const path = await ctx.app.inject({ method: 'GET', url: '/opds/k/sst_not-a-token/stories' });
  t.equal(path.statusCode, 401, 'a wrong path token');
  t.equal(path.headers['www-authenticate'], CHALLENGE);
  t.notOk(path.body.includes('sst_not-a-token'), 'the answer does not repeat the token');
  const unknown = await ctx.app.inject({ method: 'GET', url: '/opds/k/sst_secret-ish/nope' });
  t.equal(unknown.statusCode, 404);
  t.notOk(unknown.body.includes('sst_secret-ish'), 'nor does the 404');
});

t.test('every OPDS route, in both forms, is 401 with the challenge without valid credentials', async (t) => {
  const routes: string[] = [];
  const config = loadConfig({ DATA_DIR: tempDataDir(t), APP_PASSWORD: 'pw', LOG_LEVEL: 'silent' });
  const app = await buildApp(config, {
    logger: false,
    onRoute: (route: RouteOptions) => {
      if ([route.method].flat().includes('GET') && route.url.startsWith('/opds')) routes.push(route.url);
    },
  });
  t.teardown(() => app.close());
  t.ok(routes.length >= 26, `found ${routes.length} OPDS routes`);
  t.ok(routes.some((url) => url.startsWith('/opds/k/:token')), 'the path form among them');
  for (const [i, route] of routes.entries()) {
    const url = route.replace(':token', 'sst_wrong').replace(/:[A-Za-z]+/g, '3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b').replace(/\*$/, 'covers/x.png');
    // Each from its own address: wrong tokens count as failed logins, and enough of them lock an address out (429).
    const res = await app.inject({ method: 'GET', url, remoteAddress: `10.0.0.${i + 1}` });
    t.equal(res.statusCode, 401, route);
    t.equal(res.headers['www-authenticate'], CHALLENGE, `${route}: the challenge`);
  }
});

t.test('the login cookie, a login Bearer, Basic and Bearer device tokens and the path form all read the catalog', async (t) => {
  const ctx = await buildTestApp(t);
  await createStory(ctx, { title: 'Readable' });
  const secret = await makeDeviceToken(ctx, ['read']);
  const answers = [
    ['the cookie', await ctx.get('/opds/stories')],
    ['a login Bearer', await ctx.app.inject({ method: 'GET', url: '/opds/stories', headers: { authorization: `Bearer ${ctx.token}` } })],
    ['Basic with the device token', await asDevice(ctx, basicAuth(secret), { method: 'GET', url: '/opds/stories' })],
    ['Bearer with the device token', await asDevice(ctx, `Bearer ${secret}`, { method: 'GET', url: '/opds/stories' })],
    ['the path form', await ctx.app.inject({ method: 'GET', url: `/opds/k/${secret}/stories` })],
  ] as const;
  for (const [what, res] of answers) {
    t.equal(res.statusCode, 200, what);
    t.equal(parseFeed(res.body).entries[0]?.title, 'Readable', `${what}: the feed`);
  }
});

t.test('a device token without the read scope gets 403, in every form', async (t) => {
  const ctx = await buildTestApp(t);
  const secret = await makeDeviceToken(ctx, ['progress']);
  for (const [what, res] of [
    ['Basic', await asDevice(ctx, basicAuth(secret), { method: 'GET', url: '/opds' })],
    ['Bearer', await asDevice(ctx, `Bearer ${secret}`, { method: 'GET', url: '/opds/search.xml' })],
    ['the path form', await ctx.app.inject({ method: 'GET', url: `/opds/k/${secret}/authors` })],
  ] as const) {
    t.equal(res.statusCode, 403, what);
    t.match(res.json(), { error: /read/ }, `${what}: says which scope is missing`);
  }
});

t.test('a feed asked for in the path form links only to the path form, covers and EPUBs included', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await storyWithCover(ctx);
  await ctx.put(`/api/stories/${story.id}/progress`, { progress: 0.5, position: null });
  const secret = await makeDeviceToken(ctx, ['read']);
  const base = `/opds/k/${secret}`;
  const get = (url: string) => ctx.app.inject({ method: 'GET', url });

  const urls = [
    base,
    `${base}/stories`,
    `${base}/stories?sort=added`,
    `${base}/top-rated`,
    `${base}/continue`,
    `${base}/search?q=covered`,
    `${base}/authors`,
    `${base}/authors/${story.authorId as string}`,
    `${base}/series`,
    `${base}/series/${story.seriesId as string}`,
    `${base}/tags`,
    `${base}/search.xml`,
  ];
  const relsSeen = new Set<string>();
  for (const url of urls) {
    const res = await get(url);
    t.equal(res.statusCode, 200, url);
    const parsed = parseFeed(res.body);
    t.ok(parsed.addresses.length > 0, `${url} has links`);
    const strays = parsed.addresses.filter((address) => !address.replace(/^http:\/\/localhost:80/, '').startsWith(`${base}/`) && address !== base);
    t.same(strays, [], `${url}: every link keeps the path form`);
    for (const link of [...parsed.links, ...parsed.entries.flatMap((entry) => entry.links)]) relsSeen.add(`${link.rel} ${link.type}`);
  }
  for (const kind of [
    'http://opds-spec.org/acquisition application/epub+zip',
    'http://opds-spec.org/image image/png',
    'http://opds-spec.org/image/thumbnail image/jpeg',
    'http://opds-spec.org/facet application/atom+xml;profile=opds-catalog;kind=acquisition',
    'first application/atom+xml;profile=opds-catalog;kind=acquisition',
    'last application/atom+xml;profile=opds-catalog;kind=navigation',
    'subsection application/atom+xml;profile=opds-catalog;kind=navigation',
    'search application/opensearchdescription+xml',
    'up application/atom+xml;profile=opds-catalog;kind=navigation',
  ]) {
    t.ok(relsSeen.has(kind), `a ${kind} link was checked`);
  }
  t.notOk([...relsSeen].some((kind) => kind.endsWith('text/html')), 'no web-page links: a page needs the web login');

  const entry = parseFeed((await get(`${base}/stories`)).body).entries[0]!;
  const cover = await get(linkHref(entry.links, 'http://opds-spec.org/image')!);
  t.equal(cover.statusCode, 200, 'the cover is served under the path form');
  t.equal(cover.headers['content-type'], 'image/png');
  const thumbnail = await get(linkHref(entry.links, 'http://opds-spec.org/image/thumbnail')!);
  t.equal(thumbnail.statusCode, 200, 'so is its thumbnail');
  t.equal(thumbnail.headers['content-type'], 'image/jpeg', 'a JPEG: older KOReader builds and other readers show no WebP');
  t.same([...thumbnail.rawPayload.subarray(0, 3)], [0xff, 0xd8, 0xff], 'JPEG bytes');
  t.equal(linkHref(entry.links, 'http://opds-spec.org/acquisition'), `${base}/stories/${story.id}.epub`);
  t.equal((await get(`/opds/k/sst_wrong/images/${story.coverPath as string}`)).statusCode, 401, 'a cover needs the token too');
});

t.test('in the header forms, covers link to the files API, which takes the same device token', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await storyWithCover(ctx);
  const secret = await makeDeviceToken(ctx, ['read']);
  const res = await asDevice(ctx, basicAuth(secret), { method: 'GET', url: '/opds/stories' });
  const entry = parseFeed(res.body).entries[0]!;
  const image = linkHref(entry.links, 'http://opds-spec.org/image')!;
  const thumbnail = linkHref(entry.links, 'http://opds-spec.org/image/thumbnail')!;
  t.equal(image, `/api/files/images/${story.coverPath as string}`);
  t.equal(thumbnail, `/api/files/images/${story.coverPath as string}?w=320&format=jpeg`);
  for (const url of [image, thumbnail]) t.equal((await asDevice(ctx, basicAuth(secret), { method: 'GET', url })).statusCode, 200, url);
  const jpeg = await asDevice(ctx, basicAuth(secret), { method: 'GET', url: thumbnail });
  t.equal(jpeg.headers['content-type'], 'image/jpeg');
  const webp = await asDevice(ctx, basicAuth(secret), { method: 'GET', url: `/api/files/images/${story.coverPath as string}?w=320` });
  t.equal(webp.headers['content-type'], 'image/webp', 'the pages keep their WebP thumbnail');
  t.not(jpeg.headers.etag, webp.headers.etag, 'each format has its own ETag');
  t.equal(linkHref(entry.links, 'alternate', 'text/html'), `/stories/${story.id}`, 'and to the web page');
});

t.test('a path token never reaches the logs', async (t) => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  // Debug logs every request with its URL (src/app.ts): the line that would carry the token.
  const ctx = await buildTestApp(t, { LOG_LEVEL: 'debug' }, { level: 'debug', stream });
  const secret = await makeDeviceToken(ctx, ['read']);
  t.equal((await ctx.app.inject({ method: 'GET', url: `/opds/k/${secret}/stories?page=0` })).statusCode, 200);
  t.equal((await ctx.app.inject({ method: 'GET', url: `/opds/k/${secret}x/stories` })).statusCode, 401);
  const logged = lines.join('');
  t.ok(logged.includes('/opds/k/[redacted]/stories?page=0'), 'the request is logged, its token redacted');
  t.notOk(logged.includes(secret.slice(4)), 'the token is nowhere in the logs');
});
