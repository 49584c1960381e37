import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { IMAGE_CACHE_CONTROL } from '../../src/files/service.js';
import { thumbnailUrl } from '../../src/images/thumbnails.js';
import { THUMBNAIL_WIDTHS } from '../../src/schemas/files.js';
import { buildTestApp, tempDataDir, TEST_PASSWORD, type TestContext } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import * as img from '../helpers/images.js';
import { fileUpload } from '../helpers/multipart.js';

/**
 * Thumbnails and metadata (docs/decisions.md, "Thumbnails and image metadata"; docs/api.md,
 * "Images — /api/files"), through the real HTTP stack, on images this test makes with sharp.
 */

const GPS_MARKER = 'SECRET-DATUM-4242';
const CAMERA_MARKER = 'StoryshelfTestPhone';

/** An 800x1200 photo in `format` whose EXIF holds a camera, a GPS position and orientation 6 (turn 90° clockwise). */
async function photoWithGps(format: 'jpeg' | 'png' | 'webp' = 'jpeg'): Promise<Buffer> {
  const bytes = await sharp({ create: { width: 800, height: 1200, channels: 3, background: '#3366cc' } })
    [format]()
    .withExif({ IFD0: { Make: CAMERA_MARKER }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2964/100', GPSMapDatum: GPS_MARKER } })
    .withMetadata({ orientation: 6 })
    .toBuffer();
  return bytes;
}

function leaksMetadata(bytes: Buffer): boolean {
  return bytes.includes(GPS_MARKER) || bytes.includes(CAMERA_MARKER) || bytes.includes(Buffer.from('Exif\0\0', 'latin1'));
}

async function uploadCover(ctx: TestContext, storyId: string, bytes: Buffer): Promise<string> {
  const body = fileUpload(bytes, 'photo.bin', 'application/octet-stream');
  const res = await ctx.request({ method: 'POST', url: `/api/stories/${storyId}/cover`, payload: body.payload, headers: body.headers });
  if (res.statusCode !== 200) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  return res.json().coverPath as string;
}

function thumbsOf(relPath: string): string[] {
  return THUMBNAIL_WIDTHS.map((width) => `${width}/${relPath}.webp`);
}

function thumbFile(ctx: TestContext, relPath: string, width: number): string {
  return path.join(ctx.dataDir, 'images', '.thumbs', String(width), `${relPath}.webp`);
}

async function restart(dataDir: string) {
  const app = await buildApp(loadConfig({ APP_PASSWORD: TEST_PASSWORD, LOG_LEVEL: 'silent', DATA_DIR: dataDir }), { logger: false });
  await app.ready();
  await app.close();
}

t.test('the test photos really carry the metadata the service must strip', async (t) => {
  for (const format of ['jpeg', 'png', 'webp'] as const) {
    const photo = await photoWithGps(format);
    const meta = await sharp(photo).metadata();
    t.ok(meta.exif, `${format} has EXIF`);
    t.equal(meta.orientation, 6);
    t.ok(leaksMetadata(photo), `${format} contains the markers`);
  }
});

t.test('an uploaded cover gets both WebP thumbnails; neither they nor the original keep EXIF or GPS', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  for (const format of ['jpeg', 'png', 'webp'] as const) {
    const cover = await uploadCover(ctx, story.id, await photoWithGps(format));
    t.same(img.thumbnailFiles(ctx.dataDir), thumbsOf(cover).sort(), `${format}: both thumbnails written at upload, the old cover's gone`);

    const original = await ctx.get(`/api/files/images/${cover}`);
    t.equal(original.statusCode, 200);
    const meta = await sharp(original.rawPayload).metadata();
    t.equal(meta.format, format, 'the original keeps its format');
    t.equal(meta.exif, undefined, `${format} original: no EXIF`);
    t.equal(meta.xmp, undefined);
    t.notOk(leaksMetadata(original.rawPayload), `${format} original: no GPS or camera bytes`);
    t.same([meta.width, meta.height, meta.orientation ?? 1], [1200, 800, 1], 'the orientation is applied to the pixels');

    for (const width of THUMBNAIL_WIDTHS) {
      const res = await ctx.get(thumbnailUrl(cover, width));
      t.equal(res.statusCode, 200, thumbnailUrl(cover, width));
      t.equal(res.headers['content-type'], 'image/webp');
      t.equal(Number(res.headers['content-length']), res.rawPayload.length);
      const thumb = await sharp(res.rawPayload).metadata();
      t.equal(thumb.format, 'webp');
      t.equal(thumb.width, width, `${width} px wide`);
      t.equal(thumb.height, Math.round((width * 800) / 1200), 'the aspect ratio of the turned image');
      t.equal(thumb.exif, undefined, 'thumbnail: no EXIF');
      t.notOk(leaksMetadata(res.rawPayload), 'thumbnail: no GPS or camera bytes');
      t.same(res.rawPayload, fs.readFileSync(thumbFile(ctx, cover, width)), 'served from .thumbs/');
    }
  }
});

t.test('an image without metadata is stored byte for byte', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const plain = await sharp({ create: { width: 400, height: 600, channels: 3, background: '#101010' } }).jpeg().toBuffer();
  const cover = await uploadCover(ctx, story.id, plain);
  t.same((await ctx.get(`/api/files/images/${cover}`)).rawPayload, plain);
});

t.test('thumbnails follow the cache rules of the originals and are protected', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const cover = await uploadCover(ctx, story.id, await photoWithGps());
  const original = await ctx.get(`/api/files/images/${cover}`);
  const etags = new Set([original.headers.etag]);
  for (const width of THUMBNAIL_WIDTHS) {
    for (const url of [thumbnailUrl(cover, width), `/api/files/images?path=${cover}&w=${width}`]) {
      const res = await ctx.get(url);
      t.equal(res.statusCode, 200, url);
      t.equal(res.headers['cache-control'], IMAGE_CACHE_CONTROL);
      t.equal(res.headers['cache-control'], original.headers['cache-control']);
      t.equal(res.headers['content-security-policy'], original.headers['content-security-policy']);
      t.equal(res.headers['x-content-type-options'], 'nosniff');
      t.ok(res.headers['last-modified']);
      t.match(res.headers.etag, /^"[^"]+-w\d+-[0-9a-f]+-[0-9a-f]+"$/, 'a strong ETag naming the width');
      etags.add(res.headers.etag);
      const again = await ctx.request({ method: 'GET', url, headers: { 'if-none-match': res.headers.etag as string } });
      t.equal(again.statusCode, 304, `${url} If-None-Match`);
      t.equal(again.rawPayload.length, 0);
      t.equal(again.headers.etag, res.headers.etag);
      t.equal(again.headers['cache-control'], IMAGE_CACHE_CONTROL);
      const since = await ctx.request({ method: 'GET', url, headers: { 'if-modified-since': res.headers['last-modified'] as string } });
      t.equal(since.statusCode, 304, `${url} If-Modified-Since`);
    }
    const anonymous = await ctx.app.inject({ method: 'GET', url: thumbnailUrl(cover, width) });
    t.equal(anonymous.statusCode, 401, 'no token, no thumbnail');
    t.notMatch(String(anonymous.headers['content-type']), /^image\//);
  }
  t.equal(etags.size, 3, 'the original and each width have their own ETag');
});

t.test('bad widths are 400 naming w; unknown images are 404; a corrupt original is 404 and the service lives on', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const cover = await uploadCover(ctx, story.id, await photoWithGps());
  for (const w of ['200', '0', '-160', '160.5', 'abc', '', '1e9']) {
    const res = await ctx.get(`/api/files/images/${cover}?w=${w}`);
    t.equal(res.statusCode, 400, `w=${w}`);
    t.type(res.json().error, 'string');
    t.type(res.json().details?.w, 'string', `w=${w} names w`);
  }
  const missing = await ctx.get(thumbnailUrl('covers/00000000-0000-4000-8000-000000000000.jpg', 160));
  t.equal(missing.statusCode, 404);
  t.type(missing.json().error, 'string');
  t.same(img.thumbnailFiles(ctx.dataDir), thumbsOf(cover).sort(), 'nothing is made for a missing image');

  // Bytes that start like an image but do not decode, planted as a pre-existing file.
  const covers = path.join(ctx.dataDir, 'images', 'covers');
  const badIdat = img.png().subarray(0, 33);
  const corruptPng = Buffer.concat([badIdat, img.pngChunk('IDAT', zlib.deflateSync(Buffer.from('not pixels'))), img.pngChunk('IEND', Buffer.alloc(0))]);
  fs.writeFileSync(path.join(covers, 'corrupt-png.png'), corruptPng);
  fs.writeFileSync(path.join(covers, 'garbage.jpg'), Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(5000, 0x42)]));
  for (const name of ['corrupt-png.png', 'garbage.jpg']) {
    for (const width of THUMBNAIL_WIDTHS) {
      const res = await ctx.get(thumbnailUrl(`covers/${name}`, width));
      t.equal(res.statusCode, 404, `${name} at ${width}`);
      t.type(res.json().error, 'string');
    }
  }
  t.equal((await ctx.get(thumbnailUrl(cover, 160))).statusCode, 200, 'still serving');
  t.same(img.imageFolderFiles(ctx.dataDir).filter((entry) => entry.startsWith('.incoming')), [], 'no temp file left');
});

t.test('a deleted thumbnail, or a library stored before thumbnails, is made on first request', async (t) => {
  const dataDir = tempDataDir(t);
  const ctx = await buildTestApp(t, { DATA_DIR: dataDir });
  const story = await createStory(ctx);
  const cover = await uploadCover(ctx, story.id, await photoWithGps());
  fs.rmSync(thumbFile(ctx, cover, 320));
  const lazy = await ctx.get(thumbnailUrl(cover, 320));
  t.equal(lazy.statusCode, 200);
  t.equal((await sharp(lazy.rawPayload).metadata()).width, 320);
  t.ok(fs.existsSync(thumbFile(ctx, cover, 320)), 'written back to .thumbs/');

  // The whole folder gone while the service runs: made again, folders included.
  fs.rmSync(path.join(dataDir, 'images', '.thumbs'), { recursive: true });
  t.equal((await ctx.get(thumbnailUrl(cover, 160))).statusCode, 200);
  t.same(img.thumbnailFiles(dataDir), [`160/${cover}.webp`]);
  await ctx.app.close();

  // An existing library: images, no .thumbs at all.
  fs.rmSync(path.join(dataDir, 'images', '.thumbs'), { recursive: true });
  const later = await buildTestApp(t, { DATA_DIR: dataDir });
  t.same(img.thumbnailFiles(dataDir), [], 'startup makes none (they are made lazily)');
  const burst = await Promise.all([...THUMBNAIL_WIDTHS, ...THUMBNAIL_WIDTHS].map((width) => later.get(thumbnailUrl(cover, width))));
  t.same(
    burst.map((res) => res.statusCode),
    [200, 200, 200, 200],
  );
  t.same(burst[0]!.rawPayload, burst[2]!.rawPayload, 'concurrent first requests get the same thumbnail');
  t.same(img.thumbnailFiles(dataDir), thumbsOf(cover).sort());
});

t.test('thumbnails go with their original: replaced, removed, deleted through /api/files', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const first = await uploadCover(ctx, story.id, await photoWithGps());
  const second = await uploadCover(ctx, story.id, await photoWithGps('png'));
  t.same(img.thumbnailFiles(ctx.dataDir), thumbsOf(second).sort(), 'the replaced cover lost its thumbnails');
  t.same(img.trashedImages(ctx.dataDir), [first], 'its original is in the trash, thumbnails are not');
  t.equal((await ctx.get(thumbnailUrl(first, 160))).statusCode, 404, 'nor made again from the trash');

  t.equal((await ctx.del(`/api/stories/${story.id}/cover`)).statusCode, 200);
  t.same(img.thumbnailFiles(ctx.dataDir), [], 'a removed cover loses its thumbnails');

  const other = await createStory(ctx);
  const third = await uploadCover(ctx, other.id, await photoWithGps());
  t.equal((await ctx.del(`/api/files/images?path=${third}`)).statusCode, 200);
  t.same(img.thumbnailFiles(ctx.dataDir), []);
  t.equal((await ctx.get(thumbnailUrl(third, 320))).statusCode, 404);
});

t.test('the startup sweep keeps thumbnails of kept images and drops the others', async (t) => {
  const dataDir = tempDataDir(t);
  const ctx = await buildTestApp(t, { DATA_DIR: dataDir });
  const story = await createStory(ctx);
  const cover = await uploadCover(ctx, story.id, await photoWithGps());
  const waitingBody = fileUpload(await photoWithGps('webp'));
  const waiting = (await ctx.request({ method: 'POST', url: '/api/files/upload/cover', payload: waitingBody.payload, headers: waitingBody.headers })).json().path as string;
  await ctx.app.close();
  const thumbs = path.join(dataDir, 'images', '.thumbs');
  // A leftover image with thumbnails (a crash before its commit), a thumbnail with no original, an old width.
  const leftover = 'covers/c0ffee00-0000-4000-8000-000000000000.jpg';
  fs.copyFileSync(path.join(dataDir, 'images', cover), path.join(dataDir, 'images', leftover));
  for (const width of THUMBNAIL_WIDTHS) fs.copyFileSync(path.join(thumbs, String(width), `${cover}.webp`), path.join(thumbs, String(width), `${leftover}.webp`));
  fs.writeFileSync(path.join(thumbs, '160', 'avatars', 'gone.png.webp'), 'x');
  fs.mkdirSync(path.join(thumbs, '999', 'covers'), { recursive: true });
  fs.writeFileSync(path.join(thumbs, '999', 'covers', 'old.png.webp'), 'x');

  await restart(dataDir);
  t.same(img.trashedImages(dataDir), [leftover], 'the leftover original went to the trash');
  t.same(img.thumbnailFiles(dataDir), [...thumbsOf(cover), ...thumbsOf(waiting)].sort(), 'only thumbnails of kept images remain');
});

t.test('the thumbnail route refuses traversal and planted links like the image route', async (t) => {
  const ctx = await buildTestApp(t);
  const secret = await sharp({ create: { width: 400, height: 400, channels: 3, background: '#ff0000' } }).png().toBuffer();
  fs.writeFileSync(path.join(ctx.dataDir, 'secret.png'), secret);
  const covers = path.join(ctx.dataDir, 'images', 'covers');
  fs.symlinkSync(path.join(ctx.dataDir, 'secret.png'), path.join(covers, 'planted.png'));
  const tails = ['../secret.png', 'covers/..%2f..%2fsecret.png', '%2e%2e/secret.png', 'covers/%252e%252e/%252e%252e/secret.png', '.thumbs/160/covers/x.png.webp', '.trash/covers/x.png', 'covers/planted.png'];
  for (const tail of tails) {
    const res = await ctx.get(`/api/files/images?path=${encodeURIComponent(tail)}&w=320`);
    t.equal(res.statusCode, 400, `?path=${tail}`);
    t.type(res.json().details?.path, 'string', `?path=${tail} names path`);
  }
  // Tails over a raw socket: app.inject would normalise `..` before routing.
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = ctx.app.server.address() as net.AddressInfo;
  for (const tail of [...tails, '../../../../etc/passwd', 'covers/../../secret.png', '.%2e/secret.png']) {
    const res = await rawGet(port, ctx.token, `/api/files/images/${tail}?w=160`);
    t.equal(res.status, 400, `raw /api/files/images/${tail}?w=160`);
    t.notOk(res.body.includes(Buffer.from('RIFF')), 'no image bytes');
  }
  t.same(img.thumbnailFiles(ctx.dataDir), [], 'no thumbnail was made of anything outside');
});

function rawGet(port: number, token: string, rawPath: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    // node:http sends `path` exactly as given: no normalisation of `..` or `%2e`.
    const req = http.request({ host: '127.0.0.1', port, method: 'GET', path: rawPath, headers: { cookie: `token=${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}
