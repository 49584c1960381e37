import { setTimeout as sleep } from 'node:timers/promises';
import { Value } from '@sinclair/typebox/value';
import t from 'tap';
import { AvatarResponse } from '../../src/schemas/author.js';
import { ErrorBody, MessageBody } from '../../src/schemas/common.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createAuthor, createStory, MISSING_ID } from '../helpers/factories.js';
import * as img from '../helpers/images.js';
import { fileUpload, multipart, type MultipartBody } from '../helpers/multipart.js';

const MiB = 1024 * 1024;

function postAvatar(ctx: TestContext, id: string, body: MultipartBody) {
  return ctx.request({ method: 'POST', url: `/api/authors/${id}/avatar`, payload: body.payload, headers: body.headers });
}

async function avatarOf(ctx: TestContext, id: string): Promise<string | null> {
  return (await ctx.get(`/api/authors/${id}`)).json().avatarImagePath;
}

t.test('POST avatar stores the image, answers {message, avatarPath, avatarUrl} and serves it back', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx);
  let previous = author.updatedAt as string;
  const paths: string[] = [];
  for (const [bytes, ext, type] of [[img.jpeg(), 'jpg', 'image/jpeg'], [img.webpLossy(), 'webp', 'image/webp'], [img.png(), 'png', 'image/png']] as const) {
    await sleep(2);
    const res = await postAvatar(ctx, author.id, fileUpload(bytes, 'me.gif', 'image/gif'));
    t.equal(res.statusCode, 200, ext);
    const body = res.json();
    t.ok(Value.Check(AvatarResponse, body));
    t.same(Object.keys(body).sort(), ['avatarPath', 'avatarUrl', 'message']);
    t.equal(body.message, 'Avatar uploaded successfully');
    t.match(body.avatarPath, new RegExp(`^avatars/[0-9a-f-]{36}\\.${ext}$`));
    t.equal(body.avatarUrl, `/api/files/images/${body.avatarPath}`);
    const served = await ctx.get(body.avatarUrl);
    t.equal(served.statusCode, 200);
    t.equal(served.headers['content-type'], type);
    t.same(served.rawPayload, bytes);
    const after = (await ctx.get(`/api/authors/${author.id}`)).json();
    t.equal(after.avatarImagePath, body.avatarPath);
    t.ok(after.updatedAt > previous, 'an avatar change is an update');
    previous = after.updatedAt;
    t.same(img.imageFolderFiles(ctx.dataDir), [body.avatarPath], 'the replaced avatar is gone');
    paths.push(body.avatarPath);
  }
  t.same(img.trashedImages(ctx.dataDir), paths.slice(0, 2).sort());
});

t.test('unknown author: 404 before the upload is read; bad id 400', async (t) => {
  const ctx = await buildTestApp(t);
  let saved = 0;
  const save = ctx.app.images.saveUploadedImage.bind(ctx.app.images);
  ctx.app.images.saveUploadedImage = async (...args) => {
    saved += 1;
    return save(...args);
  };
  const res = await postAvatar(ctx, MISSING_ID, fileUpload(img.pngOfSize(MiB)));
  t.equal(res.statusCode, 404);
  t.same(res.json(), { error: `Author not found with id: ${MISSING_ID}` });
  t.equal(saved, 0, 'the store never saw the file');
  t.equal((await ctx.del(`/api/authors/${MISSING_ID}/avatar`)).statusCode, 404);
  t.equal((await postAvatar(ctx, 'nope', fileUpload(img.png()))).statusCode, 400);
  t.equal((await ctx.del('/api/authors/nope/avatar')).statusCode, 400);
  t.same(img.imageFolderFiles(ctx.dataDir), []);
});

t.test('refused uploads (415, 413, 400) leave the author and the folder as they were', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx);
  const current = (await postAvatar(ctx, author.id, fileUpload(img.png()))).json().avatarPath;
  const before = (await ctx.get(`/api/authors/${author.id}`)).json();
  const cases: Array<[string, MultipartBody | undefined, number, Record<string, string> | undefined]> = [
    ['HTML named .jpg', fileUpload(img.html(), 'a.jpg', 'image/jpeg'), 415, { file: 'must be a JPEG, PNG or WebP image' }],
    ['text named .jpg', fileUpload(img.text(), 'photo.jpg', 'image/jpeg'), 415, { file: 'must be a JPEG, PNG or WebP image' }],
    ['PNG signature then HTML', fileUpload(img.pngHeaderPolyglot()), 415, undefined],
    ['7 MiB', fileUpload(img.pngOfSize(7 * MiB)), 413, { file: 'must be at most 5 MiB (5242880 bytes)' }],
    ['no file part', multipart([]), 400, { file: 'is required' }],
    ['the form part name', multipart([{ name: 'avatar', data: img.png() }]), 400, { file: 'is required' }],
    ['not multipart', undefined, 415, undefined],
  ];
  for (const [label, body, status, details] of cases) {
    const res = body === undefined ? await ctx.post(`/api/authors/${author.id}/avatar`, { file: 'x' }) : await postAvatar(ctx, author.id, body);
    t.equal(res.statusCode, status, label);
    t.ok(Value.Check(ErrorBody, res.json()));
    if (details !== undefined) t.same(res.json().details, details, `${label}: details`);
  }
  t.same((await ctx.get(`/api/authors/${author.id}`)).json(), before, 'the author is unchanged');
  t.same(img.imageFolderFiles(ctx.dataDir), [current]);
  t.same(img.trashedImages(ctx.dataDir), []);
});

t.test('DELETE avatar removes the file; an author without one is 200 and unchanged', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx);
  const { avatarPath } = (await postAvatar(ctx, author.id, fileUpload(img.jpeg()))).json();
  const res = await ctx.del(`/api/authors/${author.id}/avatar`);
  t.equal(res.statusCode, 200);
  t.ok(Value.Check(MessageBody, res.json()));
  t.same(res.json(), { message: 'Avatar removed successfully' });
  const after = (await ctx.get(`/api/authors/${author.id}`)).json();
  t.equal(after.avatarImagePath, null);
  t.same(img.imageFolderFiles(ctx.dataDir), []);
  t.same(img.trashedImages(ctx.dataDir), [avatarPath]);

  const again = await ctx.del(`/api/authors/${author.id}/avatar`);
  t.equal(again.statusCode, 200);
  t.same(again.json(), { message: 'The author has no avatar' });
  t.same((await ctx.get(`/api/authors/${author.id}`)).json(), after, 'nothing changed');
});

t.test('deleting an author removes its avatar file; its stories are kept', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx);
  const story = await createStory(ctx, { authorId: author.id });
  const { avatarPath } = (await postAvatar(ctx, author.id, fileUpload(img.png()))).json();
  const other = await createAuthor(ctx);
  const otherAvatar = (await postAvatar(ctx, other.id, fileUpload(img.webp()))).json().avatarPath;

  t.equal((await ctx.del(`/api/authors/${author.id}`)).statusCode, 200);
  t.same(img.imageFolderFiles(ctx.dataDir), [otherAvatar], 'only the deleted author\'s avatar went');
  t.same(img.trashedImages(ctx.dataDir), [avatarPath]);
  t.equal((await ctx.get(`/api/files/images/${avatarPath}`)).statusCode, 404);
  t.equal((await ctx.get(`/api/stories/${story.id}`)).json().authorId, null, 'the story is kept, unlinked');
});

t.test('an avatar shared with another author survives the first one\'s delete', async (t) => {
  const ctx = await buildTestApp(t);
  const a = await createAuthor(ctx);
  const shared = (await postAvatar(ctx, a.id, fileUpload(img.png()))).json().avatarPath;
  const b = await createAuthor(ctx);
  t.equal((await ctx.put(`/api/authors/${b.id}`, { avatarImagePath: shared })).statusCode, 200);
  await ctx.del(`/api/authors/${a.id}`);
  t.same(img.imageFolderFiles(ctx.dataDir), [shared], 'b still names it');
  await ctx.del(`/api/authors/${b.id}`);
  t.same(img.imageFolderFiles(ctx.dataDir), []);
});

t.test('concurrent uploads to one author all succeed; exactly the winner remains', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx);
  const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => postAvatar(ctx, author.id, fileUpload(i % 2 ? img.webp() : img.jpeg()))));
  t.same(responses.map((res) => res.statusCode), Array(8).fill(200));
  const paths = responses.map((res) => res.json().avatarPath as string);
  t.equal(new Set(paths).size, 8);
  const winner = await avatarOf(ctx, author.id);
  t.ok(paths.includes(winner as string));
  t.same(img.imageFolderFiles(ctx.dataDir), [winner], 'exactly one file remains: the one the row names');
});

t.test('concurrent multipart updates with avatars to one author: the last wins, one file remains', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx);
  const bodies = Array.from({ length: 6 }, (_, i) => multipart([{ name: 'notes', value: `take ${i}` }, { name: 'avatar', data: img.png() }]));
  const responses = await Promise.all(
    bodies.map((body) => ctx.request({ method: 'PUT', url: `/api/authors/${author.id}`, payload: body.payload, headers: body.headers })),
  );
  t.same(responses.map((res) => res.statusCode), Array(6).fill(200));
  const final = (await ctx.get(`/api/authors/${author.id}`)).json();
  t.same(img.imageFolderFiles(ctx.dataDir), [final.avatarImagePath]);
});
