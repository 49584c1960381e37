/**
 * The library archive of imported web pages: the pictures a story body names (stored under
 * `inline/`) travel with it, and an export -> restore round trip gives back every image file and
 * every picture URL byte for byte.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ArchiveManifest } from '../../src/schemas/archive.js';
import { exportArchive, readArchive, restoreArchive } from '../helpers/archive.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { fixtureSite, serve, storyParagraphs } from '../helpers/fixture-site.js';
import { imageFolderFiles, jpeg, pngOfSize } from '../helpers/images.js';
import { multipart } from '../helpers/multipart.js';

const ARTICLE = storyParagraphs(['gulls', 'circled', 'the', 'lighthouse', 'before', 'the', 'storm']);
const ENV = { IMPORT_ALLOW_HOSTS: '127.0.0.1' };

/** Every stored image URL a body names, in order. */
function pictureUrls(html: string): string[] {
  return [...html.matchAll(/src="(\/api\/files\/images\/[^"]+)"/g)].map((match) => match[1] as string);
}

/** Every file of the images folder with its bytes. */
function imageFiles(dataDir: string): Map<string, Buffer> {
  return new Map(imageFolderFiles(dataDir).map((relPath) => [relPath, fs.readFileSync(path.join(dataDir, 'images', relPath))]));
}

async function bytesOf(ctx: TestContext, url: string): Promise<{ status: number; bytes: Buffer }> {
  const res = await ctx.get(url);
  return { status: res.statusCode, bytes: res.rawPayload };
}

t.test('export -> restore of a library of imported pages keeps every picture byte for byte', async (t) => {
  const source = await buildTestApp(t, ENV);
  const pictures = [pngOfSize(300), jpeg([Buffer.from('harbour')]), pngOfSize(400)];
  const site = await fixtureSite(t, {
    '/storm': serve(
      `<html><head><title>Storm</title></head><body><article>${ARTICLE}
<figure><img src="/p/0.png" alt="the light"><figcaption>The light at dusk</figcaption></figure>
<p><img src="/p/1.jpg" alt="the quay"> and <img src="/p/2.png" alt="the boats"></p></article></body></html>`,
    ),
    '/p/0.png': serve(pictures[0] as Buffer, 'image/png'),
    '/p/1.jpg': serve(pictures[1] as Buffer, 'image/jpeg'),
    '/p/2.png': serve(pictures[2] as Buffer, 'image/png'),
  });
  const imported = await source.post('/api/import/url', { url: `${site.origin}/storm` });
  t.equal(imported.statusCode, 201, imported.body);
  const storyId = imported.json().id as string;
  const urls = pictureUrls(imported.json().contentHtml as string);
  t.equal(urls.length, 3, 'the import stored all three pictures');
  t.ok(urls.every((url) => url.startsWith('/api/files/images/inline/')));
  // A cover too, so the archive carries both kinds.
  const cover = multipart([{ name: 'file', data: pngOfSize(500), filename: 'c.png', contentType: 'image/png' }]);
  const covered = await source.request({ method: 'POST', url: `/api/stories/${storyId}/cover`, payload: cover.payload, headers: cover.headers });
  t.equal(covered.statusCode, 200, covered.body);

  const before = imageFiles(source.dataDir);
  t.equal(before.size, 4, 'three pictures and a cover are stored');
  const served = new Map<string, Buffer>();
  for (const url of urls) {
    const { status, bytes } = await bytesOf(source, url);
    t.equal(status, 200);
    served.set(url, bytes);
  }

  const archive = await exportArchive(source);
  const entries = await readArchive(archive);
  const manifest = entries.get('manifest.json') as ArchiveManifest;
  t.equal(manifest.counts.images, 4, 'the manifest counts every picture and the cover');
  t.same(manifest.missingImages, []);
  for (const [relPath, bytes] of before) t.same(entries.get(`images/${relPath}`), bytes, `the archive holds ${relPath} as stored`);
  const readable = (entries.get(`stories/${storyId}.html`) as Buffer).toString();
  t.equal(pictureUrls(readable).length, 0, 'the readable copy names no server URL');
  t.equal([...readable.matchAll(/src="\.\.\/images\/inline\//g)].length, 3, 'its pictures point into the archive');

  const target = await buildTestApp(t, ENV);
  const job = await restoreArchive(target, archive);
  t.equal(job.status, 'done', JSON.stringify(job.errors));
  t.same(job.errors, []);
  t.same(imageFiles(target.dataDir), before, 'every image file is restored byte for byte');
  const restored = await target.get(`/api/stories/${storyId}`);
  t.same(pictureUrls(restored.json().contentHtml as string), urls, 'the body names the same pictures');
  for (const url of urls) {
    const { status, bytes } = await bytesOf(target, url);
    t.equal(status, 200, `${url} answers after the restore`);
    t.same(bytes, served.get(url), `${url} serves the same bytes`);
  }

  // The restored pictures are referenced: a restart's sweep keeps them.
  await target.app.close();
  const restarted = await buildTestApp(t, { ...ENV, DATA_DIR: target.dataDir });
  t.same(imageFiles(restarted.dataDir), before, 'a restart keeps every restored picture');
});

t.test('a picture a body names but the library lost is listed in the manifest', async (t) => {
  const source = await buildTestApp(t, ENV);
  const site = await fixtureSite(t, {
    '/lost': serve(`<html><head><title>Lost</title></head><body><article>${ARTICLE}<p><img src="/p.png" alt="p"></p></article></body></html>`),
    '/p.png': serve(pngOfSize(300), 'image/png'),
  });
  const imported = await source.post('/api/import/url', { url: `${site.origin}/lost` });
  t.equal(imported.statusCode, 201, imported.body);
  const [url] = pictureUrls(imported.json().contentHtml as string);
  const relPath = (url as string).slice('/api/files/images/'.length);
  fs.rmSync(path.join(source.dataDir, 'images', relPath));

  const archive = await exportArchive(source);
  const manifest = (await readArchive(archive)).get('manifest.json') as ArchiveManifest;
  t.same(manifest.missingImages, [relPath]);
  t.equal(manifest.counts.images, 0);

  const target = await buildTestApp(t, ENV);
  const job = await restoreArchive(target, archive);
  t.equal(job.status, 'done');
  t.same(
    job.errors.map((error) => error.error),
    [`its text shows the image ${relPath}, which is in neither the archive nor the library`],
    'the restore says which picture it could not bring back',
  );
});
