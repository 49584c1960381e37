import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { stories } from '../../src/db/schema.js';
import type { Tx } from '../../src/db/open.js';
import { NotFound } from '../../src/errors.js';
import { commitImageChange, releaseImages } from '../../src/images/image-changes.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import * as img from '../helpers/images.js';
import { fileUpload } from '../helpers/multipart.js';

const OLD = '2020-01-01T00:00:00.000Z';

async function uploadCover(ctx: TestContext): Promise<string> {
  const body = fileUpload(img.png());
  const res = await ctx.request({ method: 'POST', url: '/api/files/upload/cover', payload: body.payload, headers: body.headers });
  return res.json().path;
}

function insertStory(ctx: TestContext, coverPath: string | null): string {
  const id = randomUUID();
  ctx.app.db.insert(stories).values({ id, title: 'x', coverPath, createdAt: OLD, updatedAt: OLD }).run();
  return id;
}

/** The cover-replacing write of part 2, in miniature. */
function setCover(id: string, coverPath: string | null) {
  return (tx: Tx) => {
    const row = tx.select().from(stories).where(eq(stories.id, id)).get();
    if (row === undefined) throw new NotFound(`Story not found with id: ${id}`);
    tx.update(stories).set({ coverPath }).where(eq(stories.id, id)).run();
    return { result: coverPath, released: [row.coverPath] };
  };
}

t.test('replacing a cover removes the old file after the commit; a shared one stays', async (t) => {
  const ctx = await buildTestApp(t);
  const { db, images } = ctx.app;
  const first = await uploadCover(ctx);
  const story = insertStory(ctx, first);
  const second = await uploadCover(ctx);
  await commitImageChange(db, images, { upload: second }, setCover(story, second));
  t.same(img.imageFolderFiles(ctx.dataDir), [second], 'the replaced file is gone');
  t.same(img.trashedImages(ctx.dataDir), [first], 'into the trash, for a backup still copying it');

  const sharer = insertStory(ctx, second);
  const third = await uploadCover(ctx);
  await commitImageChange(db, images, { upload: third }, setCover(story, third));
  t.same(img.imageFolderFiles(ctx.dataDir).sort(), [second, third].sort(), 'still used by another story: kept');

  await commitImageChange(db, images, {}, setCover(sharer, null));
  t.same(img.imageFolderFiles(ctx.dataDir), [third], 'removing the last reference removes the file');
});

t.test('a failed write removes the new upload and keeps the old cover', async (t) => {
  const ctx = await buildTestApp(t);
  const { db, images } = ctx.app;
  const kept = await uploadCover(ctx);
  insertStory(ctx, kept);
  const fresh = await uploadCover(ctx);
  await t.rejects(commitImageChange(db, images, { upload: fresh }, setCover(randomUUID(), fresh)), NotFound);
  t.same(img.imageFolderFiles(ctx.dataDir), [kept]);
  t.same(img.trashedImages(ctx.dataDir), [], 'never referenced, so deleted outright');
});

t.test('attach: the file must exist under its kind; a failed write leaves the attached file alone', async (t) => {
  const ctx = await buildTestApp(t);
  const { db, images } = ctx.app;
  const story = insertStory(ctx, null);
  const cover = await uploadCover(ctx);
  const attach = (path: string) => ({ attach: { kind: 'covers' as const, path, field: 'coverPath' } });

  const missing = await commitImageChange(db, images, attach('covers/missing.png'), setCover(story, 'covers/missing.png')).catch((e: unknown) => e);
  t.match(missing, { statusCode: 400, details: { coverPath: 'must name an uploaded image' } });
  await t.rejects(commitImageChange(db, images, attach(cover), setCover(randomUUID(), cover)), NotFound);
  t.same(img.imageFolderFiles(ctx.dataDir), [cover], 'an earlier upload is not the request\'s to discard');
  await commitImageChange(db, images, attach(cover), setCover(story, cover));
  t.equal(db.select().from(stories).where(eq(stories.id, story)).get()?.coverPath, cover);
});

t.test('a release and an attach of the same file never interleave', async (t) => {
  const ctx = await buildTestApp(t);
  const { db, images } = ctx.app;
  const shared = await uploadCover(ctx);
  const owner = insertStory(ctx, shared);
  const other = insertStory(ctx, null);
  // The attach arrives while the release has committed and found the file unreferenced but not
  // yet moved it (and the move is slowed). Without the per-path lock the attach would see the
  // file, commit, and be left naming a file that is gone a moment later.
  const remove = images.removeImage.bind(images);
  let attach: Promise<unknown> | undefined;
  images.removeImage = async (...args: Parameters<typeof remove>) => {
    attach ??= commitImageChange(db, images, { attach: { kind: 'covers', path: shared, field: 'coverPath' } }, setCover(other, shared));
    await sleep(50);
    return remove(...args);
  };
  await commitImageChange(db, images, {}, setCover(owner, null));
  t.ok(attach !== undefined, 'the release removed the file');
  const refused = await attach!.catch((e: unknown) => e);
  t.match(refused, { statusCode: 400, details: { coverPath: 'must name an uploaded image' } }, 'the attach waited and found the file gone');
  t.equal(db.select().from(stories).where(eq(stories.id, other)).get()?.coverPath, null, 'no row names the removed file');
  t.same(img.imageFolderFiles(ctx.dataDir), []);
  t.same(img.trashedImages(ctx.dataDir), [shared]);
});

t.test('concurrent replacements: the last one wins and exactly its file remains', async (t) => {
  const ctx = await buildTestApp(t);
  const { db, images } = ctx.app;
  const story = insertStory(ctx, await uploadCover(ctx));
  const uploads = await Promise.all(Array.from({ length: 6 }, () => uploadCover(ctx)));
  await Promise.all(uploads.map((path) => commitImageChange(db, images, { upload: path }, setCover(story, path))));
  const row = db.select().from(stories).where(eq(stories.id, story)).get();
  t.same(img.imageFolderFiles(ctx.dataDir), [row?.coverPath]);
});

t.test('releaseImages after a delete removes only unreferenced files', async (t) => {
  const ctx = await buildTestApp(t);
  const { db, images } = ctx.app;
  const a = await uploadCover(ctx);
  const b = await uploadCover(ctx);
  insertStory(ctx, b);
  await releaseImages(db, images, [a, b, null, undefined, a]);
  t.same(img.imageFolderFiles(ctx.dataDir), [b]);
});
