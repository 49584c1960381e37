import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { fixtureSite, serve, storyParagraphs, type FixtureHandler } from '../helpers/fixture-site.js';
import { imageFolderFiles, jpeg, png, pngOfSize, trashedImages, webp } from '../helpers/images.js';

const ARTICLE = storyParagraphs(['the', 'painter', 'mixed', 'blue', 'into', 'the', 'evening', 'sky']);

function inlineSources(html: string): string[] {
  return [...html.matchAll(/src="\/api\/files\/images\/(inline\/[^"]+)"/g)].map((match) => match[1] as string);
}

t.test('inline images live as long as a story body names them: restart, backup, re-import, delete', async (t) => {
  const env = { IMPORT_ALLOW_HOSTS: '127.0.0.1' };
  const first = await buildTestApp(t, env);
  const routes: Record<string, FixtureHandler> = {
    '/art': serve(`<html><head><title>Evening</title></head><body><article>${ARTICLE}<p><img src="/a.png" alt="a"></p></article></body></html>`),
    '/a.png': serve(png(), 'image/png'),
  };
  const site = await fixtureSite(t, routes);
  const created = await first.post('/api/import/url', { url: `${site.origin}/art` });
  t.equal(created.statusCode, 201, created.body);
  const id = created.json().id as string;
  const [image] = inlineSources(created.json().contentHtml);
  t.ok(image);

  // The startup sweep trashes images nothing names: the body's reference must count.
  await first.app.close();
  const ctx = await buildTestApp(t, { ...env, DATA_DIR: first.dataDir });
  t.same(imageFolderFiles(ctx.dataDir), [path.join(...(image as string).split('/'))], 'kept across a restart');
  t.equal((await ctx.get(`/api/files/images/${image}`)).statusCode, 200);

  const backup = await ctx.post('/api/admin/backup');
  t.equal(backup.statusCode, 200, backup.body);
  t.ok(fs.existsSync(path.join(backup.json().path, 'images', image as string)), 'the backup copies it');

  // Re-importing stores the page's images afresh and releases the old ones.
  const again = await ctx.post('/api/import/url?update=true', { url: `${site.origin}/art` });
  t.equal(again.statusCode, 200, again.body);
  const [replacement] = inlineSources(again.json().contentHtml);
  t.not(replacement, image);
  t.same(imageFolderFiles(ctx.dataDir), [path.join(...(replacement as string).split('/'))], 'the old image left the live folder');
  t.same(trashedImages(ctx.dataDir), [path.join(...(image as string).split('/'))], 'into the trash, for backups in progress');

  t.equal((await ctx.del(`/api/stories/${id}`)).statusCode, 200);
  t.same(imageFolderFiles(ctx.dataDir), [], 'deleting the story releases its images');
});

t.test('lazy-loaded pictures (srcset, data-srcset, data-src, <picture><source>) are stored: the best candidate, the next when it fails', async (t) => {
  const ctx = await buildTestApp(t, { IMPORT_ALLOW_HOSTS: '127.0.0.1' });
  const blank = 'data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==';
  const pictures = [
    `<p><img src="${blank}" data-srcset="/p/a-400.png 400w, /p/a-1200.png 1200w" class="lazyload" alt="a"></p>`,
    '<p><img srcset="/p/b-1x.jpg 1x, /p/b-2x.jpg 2x" alt="b"></p>',
    '<figure><picture><source type="image/avif" srcset="/p/c.avif 1600w"><source data-srcset="/p/c-800.webp 800w, /p/c-1600.webp 1600w"><img alt="c"></picture><figcaption>C</figcaption></figure>',
    '<p><img src="/p/blank.gif" data-src="/p/d?id=4" class="lazy" alt="d"></p>',
    '<p><img data-srcset="/p/gone-1000.png 1000w, /p/e-500.png 500w" alt="e"></p>',
  ].join('\n');
  const site = await fixtureSite(t, {
    '/lazy': serve(`<html><head><title>Lazy</title></head><body><article>${ARTICLE}${pictures}</article></body></html>`),
    '/p/a-1200.png': serve(pngOfSize(200), 'image/png'),
    '/p/b-2x.jpg': serve(jpeg(), 'image/jpeg'),
    '/p/c-1600.webp': serve(webp(), 'image/webp'),
    '/p/d': serve(pngOfSize(210), 'image/png'),
    '/p/e-500.png': serve(pngOfSize(220), 'image/png'),
  });
  const res = await ctx.post('/api/import/url', { url: `${site.origin}/lazy` });
  t.equal(res.statusCode, 201, res.body);
  const stored = inlineSources(res.json().contentHtml);
  t.equal(stored.length, 5, 'every picture is stored');
  t.same(imageFolderFiles(ctx.dataDir).length, 5);
  t.same(
    site.received.filter((path) => path.startsWith('/p/')),
    ['/p/a-1200.png', '/p/b-2x.jpg', '/p/c-1600.webp', '/p/d', '/p/gone-1000.png', '/p/e-500.png'],
    'the widest or densest candidate, never the AVIF source, the placeholder or a smaller one once one was stored',
  );
  t.notMatch(res.json().contentHtml, /srcset|data-src|<source|<picture/);
});
