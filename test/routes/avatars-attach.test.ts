import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createAuthor } from '../helpers/factories.js';
import * as img from '../helpers/images.js';
import { fileUpload } from '../helpers/multipart.js';

/** docs/decisions.md, "Images": the author JSON update takes `avatarImagePath` naming an earlier upload. */

async function uploaded(ctx: TestContext, kind: 'cover' | 'avatar', bytes = img.png()): Promise<string> {
  const body = fileUpload(bytes);
  const res = await ctx.request({ method: 'POST', url: `/api/files/upload/${kind}`, payload: body.payload, headers: body.headers });
  if (res.statusCode !== 200) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  return res.json().path;
}

t.test('attach, replace and clear an avatar by path', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx, { notes: 'keep' });
  const first = await uploaded(ctx, 'avatar');
  const attached = await ctx.put(`/api/authors/${author.id}`, { avatarImagePath: first });
  t.equal(attached.statusCode, 200);
  t.equal(attached.json().avatarImagePath, first);
  t.equal(attached.json().notes, 'keep', 'other fields untouched');

  t.equal((await ctx.put(`/api/authors/${author.id}`, { notes: 'x' })).json().avatarImagePath, first, 'absent: kept');

  const second = await uploaded(ctx, 'avatar', img.jpeg());
  const replaced = await ctx.put(`/api/authors/${author.id}`, { avatarImagePath: second, rating: 4 });
  t.equal(replaced.json().avatarImagePath, second);
  t.equal(replaced.json().authorRating, 4);
  t.same(img.imageFolderFiles(ctx.dataDir), [second], 'the replaced avatar is gone');
  t.same(img.trashedImages(ctx.dataDir), [first]);

  const cleared = await ctx.put(`/api/authors/${author.id}`, { avatarImagePath: null });
  t.equal(cleared.json().avatarImagePath, null);
  t.same(img.imageFolderFiles(ctx.dataDir), [], 'null removes the avatar and its file');
});

t.test('avatarImagePath must name an existing file under avatars/: 400 details.avatarImagePath', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx, { name: 'Kept Name' });
  const current = await uploaded(ctx, 'avatar');
  await ctx.put(`/api/authors/${author.id}`, { avatarImagePath: current });
  const cover = await uploaded(ctx, 'cover');
  fs.writeFileSync(path.join(ctx.dataDir, 'secret.png'), img.png());
  fs.symlinkSync(path.join(ctx.dataDir, 'secret.png'), path.join(ctx.dataDir, 'images', 'avatars', 'planted.png'));

  const bad: Array<[string, unknown]> = [
    ['a file that was never uploaded', 'avatars/00000000-0000-4000-8000-000000000000.png'],
    ['the covers folder', cover],
    ['traversal', '../secret.png'],
    ['traversal inside avatars', 'avatars/../../secret.png'],
    ['encoded traversal', '%2e%2e%2fsecret.png'],
    ['the trash', `.trash/${current}`],
    ['an absolute path', '/etc/passwd'],
    ['a symlink leaving the folder', 'avatars/planted.png'],
    ['a number', 7],
  ];
  for (const [label, avatarImagePath] of bad) {
    const res = await ctx.put(`/api/authors/${author.id}`, { name: 'Changed', avatarImagePath });
    t.equal(res.statusCode, 400, label);
    t.type(res.json().details?.avatarImagePath, 'string', `${label}: details.avatarImagePath`);
  }
  const after = (await ctx.get(`/api/authors/${author.id}`)).json();
  t.equal(after.name, 'Kept Name', 'a refused update changes nothing');
  t.equal(after.avatarImagePath, current);
  t.same(img.imageFolderFiles(ctx.dataDir).sort(), [current, cover, 'avatars/planted.png'].sort());
  t.ok(fs.existsSync(path.join(ctx.dataDir, 'secret.png')));
});

t.test('a failed update (409) keeps both the current avatar and the file it tried to attach', async (t) => {
  const ctx = await buildTestApp(t);
  await createAuthor(ctx, { name: 'Other' });
  const author = await createAuthor(ctx);
  const current = await uploaded(ctx, 'avatar');
  await ctx.put(`/api/authors/${author.id}`, { avatarImagePath: current });
  const next = await uploaded(ctx, 'avatar');
  const res = await ctx.put(`/api/authors/${author.id}`, { name: 'OTHER', avatarImagePath: next });
  t.equal(res.statusCode, 409);
  t.equal((await ctx.get(`/api/authors/${author.id}`)).json().avatarImagePath, current);
  t.same(img.imageFolderFiles(ctx.dataDir).sort(), [current, next].sort(), 'an earlier upload is still there to attach');
});
