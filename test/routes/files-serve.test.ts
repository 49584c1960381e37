import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { Value } from '@sinclair/typebox/value';
import t from 'tap';
import { authors, stories } from '../../src/db/schema.js';
import { ErrorBody, MessageBody } from '../../src/schemas/common.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import * as img from '../helpers/images.js';
import { fileUpload } from '../helpers/multipart.js';

async function uploaded(ctx: TestContext, bytes: Buffer, kind: 'cover' | 'avatar' = 'cover'): Promise<{ path: string; url: string }> {
  const body = fileUpload(bytes);
  const res = await ctx.request({ method: 'POST', url: `/api/files/upload/${kind}`, payload: body.payload, headers: body.headers });
  if (res.statusCode !== 200) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** A file outside the images folder with bytes no image response may ever contain. */
function plantSecret(ctx: TestContext): Buffer {
  const secret = img.png([img.pngChunk('tEXt', Buffer.from(`Comment\0SECRET-${randomUUID()}`, 'latin1'))]);
  fs.writeFileSync(path.join(ctx.dataDir, 'secret.png'), secret);
  return secret;
}

function leaks(body: Buffer, secret: Buffer): boolean {
  return body.includes(secret.subarray(secret.indexOf('SECRET-'), secret.indexOf('SECRET-') + 43));
}

t.test('serves an image by path tail and by ?path= with its headers', async (t) => {
  const ctx = await buildTestApp(t);
  const image = await uploaded(ctx, img.jpeg());
  for (const url of [image.url, `/api/files/images?path=${encodeURIComponent(image.path)}`, `/api/files/images/?path=${image.path}`]) {
    const res = await ctx.get(url);
    t.equal(res.statusCode, 200, url);
    t.same(res.rawPayload, img.jpeg());
    t.equal(res.headers['content-type'], 'image/jpeg');
    t.equal(res.headers['content-length'], String(img.jpeg().length));
    t.equal(res.headers['cache-control'], 'max-age=31536000');
    t.equal(res.headers['x-content-type-options'], 'nosniff');
    t.match(res.headers.etag, /^"[^"]+"$/, 'a strong ETag');
    t.type(res.headers['last-modified'], 'string');
  }
  const head = await ctx.request({ method: 'HEAD', url: image.url });
  t.equal(head.statusCode, 200);
  t.equal(head.headers['content-type'], 'image/jpeg');
  t.equal(head.rawPayload.length, 0);
});

t.test('ETag and 304', async (t) => {
  const ctx = await buildTestApp(t);
  const image = await uploaded(ctx, img.png());
  const first = await ctx.get(image.url);
  const etag = first.headers.etag as string;
  t.equal((await ctx.get(image.url)).headers.etag, etag, 'stable across requests');
  const other = await uploaded(ctx, img.png());
  t.not((await ctx.get(other.url)).headers.etag, etag, 'differs between files with the same bytes');

  for (const ifNoneMatch of [etag, `"nope", ${etag}`, `W/${etag}`, '*']) {
    const res = await ctx.request({ method: 'GET', url: image.url, headers: { 'if-none-match': ifNoneMatch } });
    t.equal(res.statusCode, 304, `If-None-Match: ${ifNoneMatch}`);
    t.equal(res.rawPayload.length, 0);
    t.equal(res.headers.etag, etag);
    t.equal(res.headers['cache-control'], 'max-age=31536000');
  }
  const stale = await ctx.request({ method: 'GET', url: image.url, headers: { 'if-none-match': '"stale"' } });
  t.equal(stale.statusCode, 200);
  t.same(stale.rawPayload, img.png());

  const since = await ctx.request({ method: 'GET', url: image.url, headers: { 'if-modified-since': first.headers['last-modified'] as string } });
  t.equal(since.statusCode, 304, 'If-Modified-Since when no If-None-Match');
  const both = await ctx.request({
    method: 'GET',
    url: image.url,
    headers: { 'if-modified-since': first.headers['last-modified'] as string, 'if-none-match': '"stale"' },
  });
  t.equal(both.statusCode, 200, 'If-None-Match wins');
});

t.test('missing images are 404; malformed paths 400 naming path', async (t) => {
  const ctx = await buildTestApp(t);
  const missing = await ctx.get(`/api/files/images/covers/${randomUUID()}.png`);
  t.equal(missing.statusCode, 404);
  t.ok(Value.Check(ErrorBody, missing.json()));
  for (const url of ['/api/files/images', '/api/files/images?path=', '/api/files/images/covers/x.gif', '/api/files/images/secrets/jwt.png', '/api/files/images/covers']) {
    const res = await ctx.get(url);
    t.equal(res.statusCode, 400, url);
    t.type(res.json().details?.path, 'string', `${url} names path`);
  }
});

/** Query forms go through app.inject; forms a URL parser would normalise go over a raw socket. */
const QUERY_TRAVERSALS = [
  '../library.db',
  '../secret.png',
  'covers/../../secret.png',
  '%2e%2e%2fsecret.png',
  '%2e%2e/%2e%2e/secret.png',
  '%252e%252e/secret.png',
  'covers/%252e%252e/%252e%252e/secret.png',
  'covers%2F..%2F..%2Fsecret.png',
  'covers\\..\\..\\secret.png',
  'covers%5C..%5Csecret.png',
  '/etc/passwd',
  '%2Fetc%2Fpasswd',
  'C:\\Windows\\win.ini',
  'covers/x.png%00.png',
  'covers/x.png\0.png',
  'covers//x.png',
  '.incoming/x.upload',
  '.trash/covers/x.png',
  'covers/../.trash/covers/x.png',
];

const RAW_TAILS = [
  '../secret.png',
  '../../../../etc/passwd',
  'covers/../../secret.png',
  '%2e%2e/secret.png',
  'covers/%2e%2e/%2e%2e/secret.png',
  '.%2e/secret.png',
  'covers/..%2f..%2fsecret.png',
  '%252e%252e/%252e%252e/secret.png',
  'covers/%252e%252e%252fsecret.png',
  'covers\\..\\..\\secret.png',
  'covers%5C..%5C..%5Csecret.png',
  '/etc/passwd',
  '%2Fetc%2Fpasswd',
  'covers/x%00.png',
  'covers//x.png',
];

t.test('every traversal form is 400 and never returns a byte from outside', async (t) => {
  const ctx = await buildTestApp(t);
  const secret = plantSecret(ctx);

  for (const raw of QUERY_TRAVERSALS) {
    const query = `path=${encodeURIComponent(raw)}`;
    for (const url of [`/api/files/images?${query}`, `/api/files/images/?${query}`]) {
      const res = await ctx.get(url);
      t.equal(res.statusCode, 400, `GET ${url}`);
      t.notOk(leaks(res.rawPayload, secret));
    }
    const del = await ctx.del(`/api/files/images?${query}`);
    t.equal(del.statusCode, 400, `DELETE ?${query}`);
  }

  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = ctx.app.server.address() as net.AddressInfo;
  for (const tail of RAW_TAILS) {
    const res = await rawRequest(port, ctx.token, 'GET', `/api/files/images/${tail}`);
    t.equal(res.status, 400, `raw GET /api/files/images/${tail}`);
    t.notOk(leaks(res.body, secret));
  }
  t.ok(fs.existsSync(path.join(ctx.dataDir, 'secret.png')));
  t.ok(fs.existsSync(path.join(ctx.dataDir, 'library.db')));
});

t.test('a symlink planted in covers/ pointing outside is 400 for GET and DELETE', async (t) => {
  const ctx = await buildTestApp(t);
  const secret = plantSecret(ctx);
  const covers = path.join(ctx.dataDir, 'images', 'covers');
  fs.symlinkSync(path.join(ctx.dataDir, 'secret.png'), path.join(covers, 'planted.png'));
  fs.symlinkSync(ctx.dataDir, path.join(covers, 'dir.png'));
  fs.symlinkSync('/etc/passwd', path.join(covers, 'passwd.png'));

  for (const name of ['planted.png', 'dir.png', 'passwd.png']) {
    for (const url of [`/api/files/images/covers/${name}`, `/api/files/images?path=covers/${name}`]) {
      const res = await ctx.get(url);
      t.equal(res.statusCode, 400, url);
      t.notOk(leaks(res.rawPayload, secret));
    }
    t.equal((await ctx.del(`/api/files/images?path=covers/${name}`)).statusCode, 400);
    t.ok(fs.lstatSync(path.join(covers, name)).isSymbolicLink(), `${name} is still there: nothing was deleted`);
  }
  t.same(fs.readFileSync(path.join(ctx.dataDir, 'secret.png')), secret);
});

t.test('a trashed image is never served, not by its path nor through a link into the trash', async (t) => {
  const ctx = await buildTestApp(t);
  const image = await uploaded(ctx, img.png());
  t.equal((await ctx.del(`/api/files/images?path=${image.path}`)).statusCode, 200);
  t.same(img.trashedImages(ctx.dataDir), [image.path]);
  const name = path.basename(image.path);
  t.equal((await ctx.get(image.url)).statusCode, 404);
  for (const url of [`/api/files/images/.trash/${image.path}`, `/api/files/images?path=.trash/${image.path}`]) {
    t.equal((await ctx.get(url)).statusCode, 400, url);
  }
  const link = path.join(ctx.dataDir, 'images', 'covers', 'peek.png');
  fs.symlinkSync(path.join(ctx.dataDir, 'images', '.trash', 'covers', name), link);
  const peek = await ctx.get('/api/files/images/covers/peek.png');
  t.equal(peek.statusCode, 400, 'a link into the trash leaves covers/ and avatars/');
  t.notOk(peek.rawPayload.equals(img.png()));
});

t.test('DELETE removes the file and clears every reference in one transaction', async (t) => {
  const ctx = await buildTestApp(t);
  const doomed = await uploaded(ctx, img.png());
  const kept = await uploaded(ctx, img.jpeg());
  const avatar = await uploaded(ctx, img.webp(), 'avatar');
  const now = '2020-01-01T00:00:00.000Z';
  const db = ctx.app.db;
  const storyIds = [randomUUID(), randomUUID(), randomUUID()];
  db.insert(stories)
    .values([
      { id: storyIds[0] as string, title: 'one', coverPath: doomed.path, createdAt: now, updatedAt: now },
      { id: storyIds[1] as string, title: 'two', coverPath: doomed.path, createdAt: now, updatedAt: now },
      { id: storyIds[2] as string, title: 'three', coverPath: kept.path, createdAt: now, updatedAt: now },
    ])
    .run();
  const authorId = randomUUID();
  db.insert(authors).values({ id: authorId, name: 'A', nameKey: 'a', avatarImagePath: doomed.path, createdAt: now, updatedAt: now }).run();
  const otherAuthor = randomUUID();
  db.insert(authors).values({ id: otherAuthor, name: 'B', nameKey: 'b', avatarImagePath: avatar.path, createdAt: now, updatedAt: now }).run();

  const res = await ctx.del(`/api/files/images?path=${encodeURIComponent(doomed.path)}`);
  t.equal(res.statusCode, 200);
  t.ok(Value.Check(MessageBody, res.json()));
  t.notOk(fs.existsSync(path.join(ctx.dataDir, 'images', doomed.path)), 'the file is gone');
  t.same(img.trashedImages(ctx.dataDir), [doomed.path], 'moved to the trash, where a running backup can still copy it');
  t.equal((await ctx.get(doomed.url)).statusCode, 404);

  const cover = (id: string) => db.select().from(stories).where(eq(stories.id, id)).get();
  t.equal(cover(storyIds[0] as string)?.coverPath, null);
  t.equal(cover(storyIds[1] as string)?.coverPath, null);
  t.not(cover(storyIds[0] as string)?.updatedAt, now, 'a cleared row counts as updated');
  t.equal(cover(storyIds[2] as string)?.coverPath, kept.path, 'other covers are untouched');
  const author = (id: string) => db.select().from(authors).where(eq(authors.id, id)).get();
  t.equal(author(authorId)?.avatarImagePath, null);
  t.equal(author(otherAuthor)?.avatarImagePath, avatar.path);
  t.same(img.imageFolderFiles(ctx.dataDir).sort(), [kept.path, avatar.path].sort());

  const again = await ctx.del(`/api/files/images?path=${encodeURIComponent(doomed.path)}`);
  t.equal(again.statusCode, 404);
  t.ok(Value.Check(ErrorBody, again.json()));
});

t.test('DELETE heals a reference to a file that is already gone', async (t) => {
  const ctx = await buildTestApp(t);
  const now = new Date().toISOString();
  const id = randomUUID();
  const dangling = `covers/${randomUUID()}.png`;
  ctx.app.db.insert(stories).values({ id, title: 'x', coverPath: dangling, createdAt: now, updatedAt: now }).run();
  t.equal((await ctx.del(`/api/files/images?path=${dangling}`)).statusCode, 200);
  t.equal(ctx.app.db.select().from(stories).where(eq(stories.id, id)).get()?.coverPath, null);
  t.equal((await ctx.del('/api/files/images')).statusCode, 400, 'path is required');
});

function rawRequest(port: number, token: string, method: string, rawPath: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    // node:http sends `path` exactly as given: no normalisation of `..` or `%2e`.
    const req = http.request({ host: '127.0.0.1', port, method, path: rawPath, headers: { cookie: `token=${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}
