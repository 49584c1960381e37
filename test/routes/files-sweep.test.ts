import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { buildTestApp, tempDataDir, TEST_PASSWORD, type TestContext } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import * as img from '../helpers/images.js';
import { fileUpload } from '../helpers/multipart.js';

/**
 * The startup sweep (docs/decisions.md, "Images"): a restart keeps every image a row names and
 * every upload through /api/files/upload/* not attached yet, and moves anything else in covers/ or
 * avatars/ (what a crash between a file change and its commit leaves) to the trash.
 */

async function upload(ctx: TestContext, url: string): Promise<string> {
  const body = fileUpload(img.png());
  const res = await ctx.request({ method: 'POST', url, payload: body.payload, headers: body.headers });
  if (res.statusCode !== 200) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  const answer = res.json();
  return answer.path ?? answer.coverPath ?? answer.avatarPath;
}

/** Starts and stops the app on `dataDir`: the startup sweep runs once. */
async function restart(dataDir: string) {
  const app = await buildApp(loadConfig({ APP_PASSWORD: TEST_PASSWORD, LOG_LEVEL: 'silent', DATA_DIR: dataDir }), { logger: false });
  await app.ready();
  await app.close();
}

t.test('a restart keeps named and waiting images and trashes leftovers', async (t) => {
  const dataDir = tempDataDir(t);
  const ctx = await buildTestApp(t, { DATA_DIR: dataDir });
  const story = await createStory(ctx);
  const cover = await upload(ctx, `/api/stories/${story.id}/cover`);
  const waitingCover = await upload(ctx, '/api/files/upload/cover');
  const waitingAvatar = await upload(ctx, '/api/files/upload/avatar');
  const attached = await upload(ctx, '/api/files/upload/cover');
  const other = await createStory(ctx, { coverPath: attached });
  t.equal(other.coverPath, attached);
  // What a kill -9 between storing an upload and committing its row leaves behind:
  fs.copyFileSync(path.join(dataDir, 'images', cover), path.join(dataDir, 'images', 'covers', 'c0ffee00-0000-4000-8000-000000000000.png'));
  await ctx.app.close();

  await restart(dataDir);
  t.same(img.imageFolderFiles(dataDir), [attached, cover, waitingAvatar, waitingCover].sort(), 'named and waiting images stay');
  t.same(img.trashedImages(dataDir), ['covers/c0ffee00-0000-4000-8000-000000000000.png'], 'the leftover is in the trash');

  const again = await buildTestApp(t, { DATA_DIR: dataDir });
  const later = await createStory(again, { coverPath: waitingCover });
  t.equal(later.coverPath, waitingCover, 'a waiting upload can still be attached after the restart');
  t.equal((await again.del(`/api/stories/${later.id}`)).statusCode, 200);
  t.notOk(img.imageFolderFiles(dataDir).includes(waitingCover), 'once attached, it is released with its story');
});
