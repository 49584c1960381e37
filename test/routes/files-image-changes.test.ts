import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { stories } from '../../src/db/schema.js';
import type { Tx } from '../../src/db/transaction.js';
import { NotFound } from '../../src/errors.js';
import { commitImageChange, releaseImages } from '../../src/files/image-changes.js';
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
  await commitImageChange(db, images, second, setCover(story, second));
  t.same(img.imageFolderFiles(ctx.dataDir), [second], 'the replaced file is gone');

  const sharer = insertStory(ctx, second);
  const third = await uploadCover(ctx);
  await commitImageChange(db, images, third, setCover(story, third));
  t.same(img.imageFolderFiles(ctx.dataDir).sort(), [second, third].sort(), 'still used by another story: kept');

  await commitImageChange(db, images, undefined, setCover(sharer, null));
  t.same(img.imageFolderFiles(ctx.dataDir), [third], 'removing the last reference removes the file');
});

t.test('a failed write removes the new upload and keeps the old cover', async (t) => {
  const ctx = await buildTestApp(t);
  const { db, images } = ctx.app;
  const kept = await uploadCover(ctx);
  insertStory(ctx, kept);
  const fresh = await uploadCover(ctx);
  await t.rejects(commitImageChange(db, images, fresh, setCover(randomUUID(), fresh)), NotFound);
  t.same(img.imageFolderFiles(ctx.dataDir), [kept]);
});

t.test('concurrent replacements: the last one wins and exactly its file remains', async (t) => {
  const ctx = await buildTestApp(t);
  const { db, images } = ctx.app;
  const story = insertStory(ctx, await uploadCover(ctx));
  const uploads = await Promise.all(Array.from({ length: 6 }, () => uploadCover(ctx)));
  await Promise.all(uploads.map((path) => commitImageChange(db, images, path, setCover(story, path))));
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
