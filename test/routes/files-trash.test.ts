import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { createBackup } from '../../src/backup/snapshot.js';
import { TRASH_RETENTION_MS } from '../../src/images/store.js';
import { buildTestApp, tempDataDir, type TestContext } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import * as img from '../helpers/images.js';
import { fileUpload } from '../helpers/multipart.js';

/** The image trash (docs/decisions.md, "Images"), for the online backup's consistency. */

async function coverStory(ctx: TestContext): Promise<{ id: string; coverPath: string }> {
  const story = await createStory(ctx);
  const body = fileUpload(img.png());
  const res = await ctx.request({ method: 'POST', url: `/api/stories/${story.id}/cover`, payload: body.payload, headers: body.headers });
  return { id: story.id, coverPath: res.json().coverPath };
}

t.test('a cover removed after a backup snapshot was taken is still copied, from the trash', async (t) => {
  const ctx = await buildTestApp(t);
  const replaced = await coverStory(ctx);
  const deleted = await coverStory(ctx);

  // The snapshot the backup is working from, taken while both covers were live.
  const snapshotFile = path.join(tempDataDir(t), 'snapshot.db');
  await ctx.app.db.$client.backup(snapshotFile);

  const body = fileUpload(img.jpeg());
  await ctx.request({ method: 'POST', url: `/api/stories/${replaced.id}/cover`, payload: body.payload, headers: body.headers });
  await ctx.del(`/api/stories/${deleted.id}`);
  t.same(img.trashedImages(ctx.dataDir), [replaced.coverPath, deleted.coverPath].sort());

  const snapshot = new Database(snapshotFile);
  t.teardown(() => snapshot.close());
  const result = await createBackup(snapshot, ctx.dataDir, { pagesPerStep: 1000 });
  t.same(result.missingImages, [], 'every image the snapshot names was found');
  for (const relPath of [replaced.coverPath, deleted.coverPath]) {
    t.same(fs.readFileSync(path.join(result.path, 'images', relPath)), img.png(), `${relPath} copied`);
  }
  t.notOk(fs.existsSync(path.join(result.path, 'images', '.trash')), 'the trash itself is not part of a snapshot');
  t.notOk(fs.existsSync(path.join(result.path, 'images', '.incoming')), 'nor are uploads in progress');
});

t.test('startup purges trash older than the retention and keeps the rest', async (t) => {
  const dataDir = tempDataDir(t);
  const trash = path.join(dataDir, 'images', '.trash', 'covers');
  fs.mkdirSync(trash, { recursive: true });
  const expired = new Date(Date.now() - TRASH_RETENTION_MS - 1000);
  fs.writeFileSync(path.join(trash, 'expired.png'), img.png());
  fs.utimesSync(path.join(trash, 'expired.png'), expired, expired);
  fs.writeFileSync(path.join(trash, 'recent.png'), img.png());

  await buildTestApp(t, { DATA_DIR: dataDir });
  t.same(fs.readdirSync(trash), ['recent.png']);
});
