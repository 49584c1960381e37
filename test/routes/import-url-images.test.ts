import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { fixtureSite, serve, storyParagraphs, type FixtureHandler } from '../helpers/fixture-site.js';
import { imageFolderFiles, png, trashedImages } from '../helpers/images.js';

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
