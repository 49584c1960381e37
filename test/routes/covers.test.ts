import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Value } from '@sinclair/typebox/value';
import t from 'tap';
import { ErrorBody, MessageBody } from '../../src/schemas/common.js';
import { CoverResponse, StoryDto } from '../../src/schemas/story.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory, MISSING_ID } from '../helpers/factories.js';
import * as img from '../helpers/images.js';
import { fileUpload, multipart, type MultipartBody } from '../helpers/multipart.js';
import { assertMatches } from '../helpers/schema.js';

const MiB = 1024 * 1024;

function postCover(ctx: TestContext, id: string, body: MultipartBody) {
  return ctx.request({ method: 'POST', url: `/api/stories/${id}/cover`, payload: body.payload, headers: body.headers });
}

async function coverOf(ctx: TestContext, id: string): Promise<string | null> {
  return (await ctx.get(`/api/stories/${id}`)).json().coverPath;
}

t.test('POST cover stores each format, answers {message, coverPath, coverUrl} and serves it back', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const cases = [
    [img.png(), 'png', 'image/png'],
    [img.jpeg(), 'jpg', 'image/jpeg'],
    [img.webp(), 'webp', 'image/webp'],
  ] as const;
  let previous = story.updatedAt as string;
  for (const [bytes, ext, type] of cases) {
    await sleep(2);
    const res = await postCover(ctx, story.id, fileUpload(bytes, 'whatever.bin', 'application/octet-stream'));
    t.equal(res.statusCode, 200, ext);
    const body = res.json();
    t.ok(Value.Check(CoverResponse, body), 'matches CoverResponse');
    t.same(Object.keys(body).sort(), ['coverPath', 'coverUrl', 'message']);
    t.equal(body.message, 'Cover uploaded successfully');
    t.match(body.coverPath, new RegExp(`^covers/[0-9a-f-]{36}\\.${ext}$`));
    t.equal(body.coverUrl, `/api/files/images/${body.coverPath}`);

    const served = await ctx.get(body.coverUrl);
    t.equal(served.statusCode, 200);
    t.equal(served.headers['content-type'], type);
    t.same(served.rawPayload, bytes);

    const after = (await ctx.get(`/api/stories/${story.id}`)).json();
    assertMatches(t, StoryDto, after, 'matches StoryDto');
    t.equal(after.coverPath, body.coverPath, 'the story names its new cover');
    t.ok(after.updatedAt > previous, 'a cover change is an update');
    previous = after.updatedAt;
    t.same(img.imageFolderFiles(ctx.dataDir), [body.coverPath], 'only the current cover is live');
  }
  t.equal(img.trashedImages(ctx.dataDir).length, 2, 'each replaced cover went to the trash');
});

t.test('replacing a cover keeps the old file while another story still names it', async (t) => {
  const ctx = await buildTestApp(t);
  const a = await createStory(ctx);
  const first = (await postCover(ctx, a.id, fileUpload(img.png()))).json().coverPath;
  const b = await createStory(ctx, { coverPath: first });
  t.equal(b.coverPath, first, 'two stories share one file');

  const second = (await postCover(ctx, a.id, fileUpload(img.jpeg()))).json().coverPath;
  t.same(img.imageFolderFiles(ctx.dataDir).sort(), [first, second].sort(), 'still named by b: kept');
  t.equal((await ctx.get(`/api/files/images/${first}`)).statusCode, 200);

  t.equal((await ctx.del(`/api/stories/${b.id}/cover`)).statusCode, 200);
  t.same(img.imageFolderFiles(ctx.dataDir), [second], 'its last reference went: removed');
});

t.test('unknown story: 404 before the upload is read, nothing written', async (t) => {
  const ctx = await buildTestApp(t);
  const before = img.imageFolderFiles(ctx.dataDir);
  const saved: string[] = [];
  const save = ctx.app.images.saveUploadedImage.bind(ctx.app.images);
  ctx.app.images.saveUploadedImage = async (...args) => {
    saved.push('called');
    return save(...args);
  };
  const res = await postCover(ctx, MISSING_ID, fileUpload(img.pngOfSize(2 * MiB)));
  t.equal(res.statusCode, 404);
  t.same(res.json(), { error: `Story not found with id: ${MISSING_ID}` });
  t.same(saved, [], 'the store never saw the file');
  t.same(img.imageFolderFiles(ctx.dataDir), before);

  const del = await ctx.del(`/api/stories/${MISSING_ID}/cover`);
  t.equal(del.statusCode, 404);
  t.ok(Value.Check(ErrorBody, del.json()));

  const bad = await postCover(ctx, 'not-a-uuid', fileUpload(img.png()));
  t.equal(bad.statusCode, 400);
  t.type(bad.json().details.id, 'string');
  t.equal((await ctx.del('/api/stories/not-a-uuid/cover')).statusCode, 400);
  t.same(img.imageFolderFiles(ctx.dataDir), before);
});

t.test('refused uploads (415, 413, 400) leave the story and the folder as they were', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const current = (await postCover(ctx, story.id, fileUpload(img.png()))).json().coverPath;
  const before = (await ctx.get(`/api/stories/${story.id}`)).json();
  const cases: Array<[string, () => Promise<{ statusCode: number; json: () => unknown }>, number, Record<string, string> | undefined]> = [
    ['GIF', () => postCover(ctx, story.id, fileUpload(img.gif(), 'a.gif', 'image/gif')), 415, { file: 'must be a JPEG, PNG or WebP image' }],
    ['SVG named .png', () => postCover(ctx, story.id, fileUpload(img.svg(), 'a.png', 'image/png')), 415, { file: 'must be a JPEG, PNG or WebP image' }],
    ['JPEG header then HTML', () => postCover(ctx, story.id, fileUpload(img.jpegHeaderPolyglot(), 'a.jpg', 'image/jpeg')), 415, undefined],
    ['5 MiB + 1', () => postCover(ctx, story.id, fileUpload(img.pngOfSize(5 * MiB + 1))), 413, { file: 'must be at most 5 MiB (5242880 bytes)' }],
    ['no file part', () => postCover(ctx, story.id, multipart([{ name: 'title', value: 'x' }])), 400, { file: 'is required' }],
    ['image under another name', () => postCover(ctx, story.id, multipart([{ name: 'cover', data: img.png() }])), 400, { file: 'is required' }],
    ['JSON', () => ctx.post(`/api/stories/${story.id}/cover`, { file: 'x' }), 415, undefined],
    ['raw bytes', () => ctx.request({ method: 'POST', url: `/api/stories/${story.id}/cover`, payload: img.png(), headers: { 'content-type': 'image/png' } }), 415, undefined],
  ];
  for (const [label, send, status, details] of cases) {
    const res = await send();
    t.equal(res.statusCode, status, label);
    t.ok(Value.Check(ErrorBody, res.json()), `${label}: an error body`);
    if (details !== undefined) t.same((res.json() as { details?: unknown }).details, details, `${label}: details`);
  }
  t.same((await ctx.get(`/api/stories/${story.id}`)).json(), before, 'the story is unchanged');
  t.same(img.imageFolderFiles(ctx.dataDir), [current], 'only the current cover on disk');
  t.same(img.trashedImages(ctx.dataDir), [], 'nothing was trashed either');

  const exact = await postCover(ctx, story.id, fileUpload(img.pngOfSize(5 * MiB)));
  t.equal(exact.statusCode, 200, 'exactly 5 MiB is accepted');
});

t.test('DELETE cover removes the file; a story without a cover is 200 and unchanged', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const { coverPath, coverUrl } = (await postCover(ctx, story.id, fileUpload(img.webp()))).json();
  const withCover = (await ctx.get(`/api/stories/${story.id}`)).json();

  await sleep(2);
  const res = await ctx.del(`/api/stories/${story.id}/cover`);
  t.equal(res.statusCode, 200);
  t.ok(Value.Check(MessageBody, res.json()));
  t.same(res.json(), { message: 'Cover removed successfully' });
  const after = (await ctx.get(`/api/stories/${story.id}`)).json();
  t.equal(after.coverPath, null);
  t.ok(after.updatedAt > withCover.updatedAt);
  t.same(img.imageFolderFiles(ctx.dataDir), [], 'gone from covers/');
  t.same(img.trashedImages(ctx.dataDir), [coverPath]);
  t.equal((await ctx.get(coverUrl)).statusCode, 404);

  const again = await ctx.del(`/api/stories/${story.id}/cover`);
  t.equal(again.statusCode, 200, 'idempotent');
  t.same(again.json(), { message: 'The story has no cover' });
  t.same((await ctx.get(`/api/stories/${story.id}`)).json(), after, 'nothing changed, updatedAt included');
});

t.test('deleting a story removes its cover file unless another story names it', async (t) => {
  const ctx = await buildTestApp(t);
  const solo = await createStory(ctx);
  const soloCover = (await postCover(ctx, solo.id, fileUpload(img.png()))).json().coverPath;
  const a = await createStory(ctx);
  const shared = (await postCover(ctx, a.id, fileUpload(img.jpeg()))).json().coverPath;
  const b = await createStory(ctx, { coverPath: shared });

  t.equal((await ctx.del(`/api/stories/${solo.id}`)).statusCode, 200);
  t.same(img.imageFolderFiles(ctx.dataDir), [shared], 'the deleted story took its cover with it');
  t.same(img.trashedImages(ctx.dataDir), [soloCover]);

  t.equal((await ctx.del(`/api/stories/${a.id}`)).statusCode, 200);
  t.same(img.imageFolderFiles(ctx.dataDir), [shared], 'still the cover of b');
  t.equal((await ctx.del(`/api/stories/${b.id}`)).statusCode, 200);
  t.same(img.imageFolderFiles(ctx.dataDir), [], 'its last story went: removed');
});

t.test('concurrent uploads to one story all succeed; exactly the winner remains', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const bodies = Array.from({ length: 8 }, (_, i) => fileUpload(i % 2 === 0 ? img.png() : img.jpeg()));
  const responses = await Promise.all(bodies.map((body) => postCover(ctx, story.id, body)));
  t.same(responses.map((res) => res.statusCode), Array(8).fill(200), 'every upload succeeded');
  const paths = responses.map((res) => res.json().coverPath as string);
  t.equal(new Set(paths).size, 8, 'each got its own file');
  const winner = await coverOf(ctx, story.id);
  t.ok(paths.includes(winner as string), 'the row names one of them');
  t.same(img.imageFolderFiles(ctx.dataDir), [winner], 'exactly one file remains: the one the row names');
  t.equal((await ctx.get(`/api/files/images/${winner}`)).statusCode, 200);
});

t.test('the row and the file never disagree: write file, commit row, then remove the old file', async (t) => {
  const ctx = await buildTestApp(t);
  const images = ctx.app.images;
  const story = await createStory(ctx);
  const old = (await postCover(ctx, story.id, fileUpload(img.png()))).json().coverPath;

  // At the moment the old file is removed, the row already names the new file, which is on disk.
  const seen: Array<{ removing: string; rowNames: string | null; newOnDisk: boolean }> = [];
  const remove = images.removeImage.bind(images);
  images.removeImage = async (...args: Parameters<typeof remove>) => {
    const rowNames = await coverOf(ctx, story.id);
    seen.push({ removing: String(args[0]), rowNames, newOnDisk: fs.existsSync(path.join(ctx.dataDir, 'images', String(rowNames))) });
    return remove(...args);
  };
  const fresh = (await postCover(ctx, story.id, fileUpload(img.jpeg()))).json().coverPath;
  t.same(seen, [{ removing: old, rowNames: fresh, newOnDisk: true }]);

  // A removal that fails after the commit (a crash, a full disk) leaves an unreferenced old file,
  // never a row naming a missing one.
  images.removeImage = async () => {
    throw new Error('disk trouble');
  };
  const third = await postCover(ctx, story.id, fileUpload(img.webp()));
  t.equal(third.statusCode, 200, 'the change itself happened');
  t.equal(await coverOf(ctx, story.id), third.json().coverPath);
  t.same(img.imageFolderFiles(ctx.dataDir).sort(), [fresh, third.json().coverPath].sort(), 'the old file is merely left over');
});

t.test('a story deleted while its cover uploads: 404, and the upload is not kept', async (t) => {
  const ctx = await buildTestApp(t);
  const images = ctx.app.images;
  const story = await createStory(ctx);
  const save = images.saveUploadedImage.bind(images);
  images.saveUploadedImage = async (...args) => {
    const saved = await save(...args);
    await ctx.del(`/api/stories/${story.id}`);
    return saved;
  };
  const res = await postCover(ctx, story.id, fileUpload(img.png()));
  t.equal(res.statusCode, 404);
  t.same(img.imageFolderFiles(ctx.dataDir), []);
  t.same(img.trashedImages(ctx.dataDir), [], 'never referenced: deleted outright');
});
