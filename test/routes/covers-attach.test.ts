import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import * as img from '../helpers/images.js';
import { fileUpload } from '../helpers/multipart.js';

/** docs/decisions.md, "Images": story create/update take `coverPath` naming an earlier upload. */

async function uploaded(ctx: TestContext, kind: 'cover' | 'avatar', bytes = img.png()): Promise<string> {
  const body = fileUpload(bytes);
  const res = await ctx.request({ method: 'POST', url: `/api/files/upload/${kind}`, payload: body.payload, headers: body.headers });
  if (res.statusCode !== 200) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  return res.json().path;
}

t.test('create with coverPath attaches an uploaded cover', async (t) => {
  const ctx = await buildTestApp(t);
  const cover = await uploaded(ctx, 'cover');
  const res = await ctx.post('/api/stories', { title: 'Covered', coverPath: cover });
  t.equal(res.statusCode, 201);
  t.equal(res.json().coverPath, cover);
  t.equal((await ctx.get(`/api/stories/${res.json().id}`)).json().coverPath, cover);
  const none = await ctx.post('/api/stories', { title: 'Bare', coverPath: null });
  t.equal(none.statusCode, 201);
  t.equal(none.json().coverPath, null, 'null on create means no cover');
  t.same(img.imageFolderFiles(ctx.dataDir), [cover]);
});

t.test('update: replacing or clearing the cover releases the old file; absent leaves it', async (t) => {
  const ctx = await buildTestApp(t);
  const first = await uploaded(ctx, 'cover');
  const story = await createStory(ctx, { coverPath: first });

  const untouched = await ctx.put(`/api/stories/${story.id}`, { title: 'Renamed' });
  t.equal(untouched.json().coverPath, first, 'an absent coverPath keeps the cover');
  const same = await ctx.put(`/api/stories/${story.id}`, { coverPath: first });
  t.equal(same.statusCode, 200, 'setting the cover it already has');
  t.same(img.imageFolderFiles(ctx.dataDir), [first], 'keeps its file');

  const second = await uploaded(ctx, 'cover', img.jpeg());
  const replaced = await ctx.put(`/api/stories/${story.id}`, { coverPath: second });
  t.equal(replaced.statusCode, 200);
  t.equal(replaced.json().coverPath, second);
  t.same(img.imageFolderFiles(ctx.dataDir), [second], 'the replaced cover is gone');
  t.same(img.trashedImages(ctx.dataDir), [first]);

  const cleared = await ctx.put(`/api/stories/${story.id}`, { coverPath: null });
  t.equal(cleared.statusCode, 200);
  t.equal(cleared.json().coverPath, null, 'null removes the cover');
  t.same(img.imageFolderFiles(ctx.dataDir), [], 'and its file');
});

t.test('a cover shared by two stories is released only with its last reference', async (t) => {
  const ctx = await buildTestApp(t);
  const cover = await uploaded(ctx, 'cover');
  const a = await createStory(ctx, { coverPath: cover });
  const b = await createStory(ctx, { coverPath: cover });
  await ctx.put(`/api/stories/${a.id}`, { coverPath: null });
  t.same(img.imageFolderFiles(ctx.dataDir), [cover], 'b still names it');
  await ctx.put(`/api/stories/${b.id}`, { coverPath: null });
  t.same(img.imageFolderFiles(ctx.dataDir), []);
});

t.test('coverPath must name an existing file under covers/: 400 details.coverPath', async (t) => {
  const ctx = await buildTestApp(t);
  const avatar = await uploaded(ctx, 'avatar');
  const kept = await uploaded(ctx, 'cover');
  const story = await createStory(ctx, { coverPath: kept });
  fs.writeFileSync(path.join(ctx.dataDir, 'secret.png'), img.png());
  fs.symlinkSync(path.join(ctx.dataDir, 'secret.png'), path.join(ctx.dataDir, 'images', 'covers', 'planted.png'));
  const trashed = await uploaded(ctx, 'cover');
  t.equal((await ctx.del(`/api/files/images?path=${trashed}`)).statusCode, 200);

  const bad: Array<[string, unknown]> = [
    ['a file that was never uploaded', 'covers/00000000-0000-4000-8000-000000000000.png'],
    ['a removed (trashed) file', trashed],
    ['the avatars folder', avatar],
    ['traversal', '../secret.png'],
    ['traversal inside covers', 'covers/../../secret.png'],
    ['encoded traversal', 'covers/%2e%2e/%2e%2e/secret.png'],
    ['double-encoded traversal', '%252e%252e/secret.png'],
    ['the trash', `.trash/${trashed}`],
    ['the upload folder', '.incoming/x.upload'],
    ['an absolute path', '/etc/passwd'],
    ['a backslash', 'covers\\..\\secret.png'],
    ['a NUL', 'covers/x.png\0.png'],
    ['a URL', 'https://example.com/x.png'],
    ['a symlink leaving the folder', 'covers/planted.png'],
    ['an empty string', ''],
    ['a number', 42],
    ['over 200 characters', `covers/${'a'.repeat(200)}.png`],
  ];
  for (const [label, coverPath] of bad) {
    const created = await ctx.post('/api/stories', { title: 'x', coverPath });
    t.equal(created.statusCode, 400, `create: ${label}`);
    t.type(created.json().details?.coverPath, 'string', `create: ${label} names coverPath`);
    const updated = await ctx.put(`/api/stories/${story.id}`, { coverPath });
    t.equal(updated.statusCode, 400, `update: ${label}`);
    t.type(updated.json().details?.coverPath, 'string', `update: ${label} names coverPath`);
  }
  t.equal((await ctx.get('/api/stories')).json().totalElements, 1, 'no story was created');
  t.equal((await ctx.get(`/api/stories/${story.id}`)).json().coverPath, kept, 'the cover is unchanged');
  t.same(img.imageFolderFiles(ctx.dataDir).filter((f) => f.startsWith('covers/')).sort(), [kept, 'covers/planted.png'].sort());
  t.ok(fs.existsSync(path.join(ctx.dataDir, 'secret.png')), 'nothing outside was touched');

  const both = await ctx.post('/api/stories', { title: '  ', coverPath: '../x.png' });
  t.equal(both.statusCode, 400);
  t.same(Object.keys(both.json().details).sort(), ['coverPath', 'title'], 'reported together with other fields');
});

t.test('a failed update does not touch the attached file or the current cover', async (t) => {
  const ctx = await buildTestApp(t);
  const current = await uploaded(ctx, 'cover');
  const story = await createStory(ctx, { coverPath: current });
  const next = await uploaded(ctx, 'cover');
  const res = await ctx.put(`/api/stories/${story.id}`, { coverPath: next, authorId: '00000000-0000-4000-8000-000000000000' });
  t.equal(res.statusCode, 400);
  t.type(res.json().details.authorId, 'string');
  t.equal((await ctx.get(`/api/stories/${story.id}`)).json().coverPath, current);
  t.same(img.imageFolderFiles(ctx.dataDir).sort(), [current, next].sort(), 'both files are still there');

  const missing = await ctx.put('/api/stories/00000000-0000-4000-8000-000000000000', { coverPath: next });
  t.equal(missing.statusCode, 404);
  t.ok(fs.existsSync(path.join(ctx.dataDir, 'images', next)), 'the upload stays available to attach');
});
