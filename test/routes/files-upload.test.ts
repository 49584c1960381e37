import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Value } from '@sinclair/typebox/value';
import t from 'tap';
import { ErrorBody } from '../../src/schemas/common.js';
import { UploadResponse } from '../../src/schemas/files.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import * as img from '../helpers/images.js';
import { fileUpload, multipart, type MultipartBody } from '../helpers/multipart.js';

const MiB = 1024 * 1024;

function upload(ctx: TestContext, kind: 'cover' | 'avatar', body: MultipartBody) {
  return ctx.request({ method: 'POST', url: `/api/files/upload/${kind}`, payload: body.payload, headers: body.headers });
}

t.test('uploads each format and serves it back', async (t) => {
  const ctx = await buildTestApp(t);
  const cases = [
    ['cover', img.png(), 'png', 'image/png'],
    ['cover', img.jpeg(), 'jpg', 'image/jpeg'],
    ['avatar', img.webp(), 'webp', 'image/webp'],
    ['avatar', img.webpLossy(), 'webp', 'image/webp'],
  ] as const;
  for (const [kind, bytes, ext, type] of cases) {
    const res = await upload(ctx, kind, fileUpload(bytes));
    t.equal(res.statusCode, 200, `${kind} ${ext}`);
    const body = res.json();
    t.ok(Value.Check(UploadResponse, body), 'matches the response schema');
    const folder = kind === 'cover' ? 'covers' : 'avatars';
    t.match(body.path, new RegExp(`^${folder}/[0-9a-f-]{36}\\.${ext}$`));
    t.equal(body.url, `/api/files/images/${body.path}`);
    t.type(body.message, 'string');
    t.same(fs.readFileSync(path.join(ctx.dataDir, 'images', body.path)), bytes, 'stored byte for byte');
    const served = await ctx.get(body.url);
    t.equal(served.statusCode, 200);
    t.equal(served.headers['content-type'], type);
    t.same(served.rawPayload, bytes);
  }
  t.same(fs.readdirSync(path.join(ctx.dataDir, 'images', '.incoming')), [], 'no temp files remain');
});

t.test('the type comes from the bytes, never the name or declared type', async (t) => {
  const ctx = await buildTestApp(t);
  const res = await upload(ctx, 'cover', fileUpload(img.png(), 'notes.txt', 'text/plain'));
  t.equal(res.statusCode, 200);
  t.match(res.json().path, /\.png$/);
  const served = await ctx.get(res.json().url);
  t.equal(served.headers['content-type'], 'image/png');
});

t.test('anything but a complete JPEG, PNG or WebP is 415 and leaves nothing', async (t) => {
  const ctx = await buildTestApp(t);
  const refused: Array<[string, Buffer, string, string]> = [
    ['GIF', img.gif(), 'anim.gif', 'image/gif'],
    ['SVG', img.svg(), 'logo.svg', 'image/svg+xml'],
    ['SVG named .png', img.svg(), 'logo.png', 'image/png'],
    ['HTML', img.html(), 'page.html', 'text/html'],
    ['HTML named .jpg', img.html(), 'page.jpg', 'image/jpeg'],
    ['text named .jpg', img.text(), 'photo.jpg', 'image/jpeg'],
    ['JPEG header then HTML', img.jpegHeaderPolyglot(), 'photo.jpg', 'image/jpeg'],
    ['PNG signature then HTML', img.pngHeaderPolyglot(), 'photo.png', 'image/png'],
    ['RIFF/WEBP header then HTML', img.webpHeaderPolyglot(), 'photo.webp', 'image/webp'],
    ['a truncated JPEG', img.jpeg().subarray(0, 120), 'photo.jpg', 'image/jpeg'],
    ['an empty file', Buffer.alloc(0), 'empty.png', 'image/png'],
  ];
  for (const [label, bytes, filename, type] of refused) {
    for (const kind of ['cover', 'avatar'] as const) {
      const res = await upload(ctx, kind, fileUpload(bytes, filename, type));
      t.equal(res.statusCode, 415, `${label} as ${kind}`);
      t.ok(Value.Check(ErrorBody, res.json()));
      t.same(res.json().details, { file: 'must be a JPEG, PNG or WebP image' });
    }
  }
  t.same(img.imageFolderFiles(ctx.dataDir), []);
});

t.test('exactly 5 MiB is accepted; one byte more is 413 and nothing is written', async (t) => {
  const ctx = await buildTestApp(t);
  const exact = await upload(ctx, 'cover', fileUpload(img.pngOfSize(5 * MiB)));
  t.equal(exact.statusCode, 200);
  t.equal(fs.statSync(path.join(ctx.dataDir, 'images', exact.json().path)).size, 5 * MiB);
  const before = img.imageFolderFiles(ctx.dataDir);

  const over = await upload(ctx, 'cover', fileUpload(img.pngOfSize(5 * MiB + 1)));
  t.equal(over.statusCode, 413);
  t.same(over.json().details, { file: 'must be at most 5 MiB (5242880 bytes)' });
  const far = await upload(ctx, 'avatar', fileUpload(img.pngOfSize(7 * MiB)));
  t.equal(far.statusCode, 413);
  t.same(img.imageFolderFiles(ctx.dataDir), before, 'only the accepted image is on disk');
});

t.test('a request without a file part is 400 details.file', async (t) => {
  const ctx = await buildTestApp(t);
  const bodies = {
    'only a text field': multipart([{ name: 'title', value: 'x' }]),
    'no parts at all': multipart([]),
    'the image under another name': multipart([{ name: 'image', data: img.png(), filename: 'a.png' }]),
  };
  for (const [label, body] of Object.entries(bodies)) {
    const res = await upload(ctx, 'cover', body);
    t.equal(res.statusCode, 400, label);
    t.same(res.json().details, { file: 'is required' }, label);
  }
  t.same(img.imageFolderFiles(ctx.dataDir), []);
});

t.test('fields around the file are fine; a second file is refused and nothing is kept', async (t) => {
  const ctx = await buildTestApp(t);
  const withFields = multipart([
    { name: 'note', value: 'before' },
    { name: 'file', data: img.png(), filename: 'a.png' },
    { name: 'note', value: 'after' },
  ]);
  t.equal((await upload(ctx, 'cover', withFields)).statusCode, 200);
  const before = img.imageFolderFiles(ctx.dataDir);

  const two = multipart([
    { name: 'file', data: img.png(), filename: 'a.png' },
    { name: 'file', data: img.jpeg(), filename: 'b.jpg' },
  ]);
  const res = await upload(ctx, 'cover', two);
  t.equal(res.statusCode, 413);
  t.type(res.json().error, 'string');
  t.same(img.imageFolderFiles(ctx.dataDir), before, 'the first file of the refused request was removed');
});

t.test('not multipart is 415; a broken multipart body is 400 and leaves nothing', async (t) => {
  const ctx = await buildTestApp(t);
  const json = await ctx.request({ method: 'POST', url: '/api/files/upload/cover', payload: { file: 'x' } });
  t.equal(json.statusCode, 415);
  const bare = await ctx.request({ method: 'POST', url: '/api/files/upload/avatar' });
  t.equal(bare.statusCode, 415);
  const binary = await ctx.request({ method: 'POST', url: '/api/files/upload/cover', payload: img.png(), headers: { 'content-type': 'image/png' } });
  t.equal(binary.statusCode, 415);

  const noBoundary = await ctx.request({ method: 'POST', url: '/api/files/upload/cover', payload: 'x', headers: { 'content-type': 'multipart/form-data' } });
  t.equal(noBoundary.statusCode, 400);
  t.type(noBoundary.json().error, 'string');

  const full = fileUpload(img.pngOfSize(200_000));
  const truncated = await ctx.request({
    method: 'POST',
    url: '/api/files/upload/cover',
    payload: full.payload.subarray(0, 100_000),
    headers: full.headers,
  });
  t.equal(truncated.statusCode, 400, 'a body cut off mid-file');
  t.type(truncated.json().error, 'string');
  t.same(img.imageFolderFiles(ctx.dataDir), []);
});

t.test('a multipart body sent to a JSON endpoint is 415', async (t) => {
  const ctx = await buildTestApp(t);
  const body = multipart([{ name: 'name', value: 'horror' }]);
  const res = await ctx.request({ method: 'POST', url: '/api/tags', payload: body.payload, headers: body.headers });
  t.equal(res.statusCode, 415);
  t.equal((await ctx.get('/api/tags')).json().totalElements, 0);
  const unknown = await ctx.request({ method: 'POST', url: '/api/nothing-here', payload: body.payload, headers: body.headers });
  t.equal(unknown.statusCode, 404, 'unknown routes stay 404');
});

t.test('an upload aborted mid-file over a real socket leaves the folder as it was', async (t) => {
  const ctx = await buildTestApp(t);
  await upload(ctx, 'cover', fileUpload(img.png()));
  const before = img.imageFolderFiles(ctx.dataDir);
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = ctx.app.server.address() as net.AddressInfo;

  const body = fileUpload(img.pngOfSize(2 * MiB));
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.on('error', () => undefined);
  socket.write(
    `POST /api/files/upload/cover HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: token=${ctx.token}\r\n` +
      `Content-Type: ${body.headers['content-type']}\r\nContent-Length: ${body.payload.length}\r\n\r\n`,
  );
  socket.write(body.payload.subarray(0, MiB));

  const incoming = path.join(ctx.dataDir, 'images', '.incoming');
  const started = await waitFor(() => fs.readdirSync(incoming).length > 0);
  t.ok(started, 'the server was writing a temp file when the client went away');
  socket.destroy();

  t.ok(await waitFor(() => fs.readdirSync(incoming).length === 0), 'the temp file is removed');
  await sleep(50);
  t.same(img.imageFolderFiles(ctx.dataDir), before);
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await sleep(10);
  }
  return condition();
}
