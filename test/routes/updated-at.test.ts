import { eq } from 'drizzle-orm';
import t from 'tap';
import { authors, series, stories, tags } from '../../src/db/schema.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createAuthor, createSeries, createStory, createTag } from '../helpers/factories.js';
import * as img from '../helpers/images.js';
import { fileUpload } from '../helpers/multipart.js';

/**
 * The one `updatedAt` rule (docs/decisions.md "Identifiers and timestamps", src/lib/clock.ts):
 * a stamp ahead of the clock stands for a second write in the same millisecond, so each write
 * below must land exactly 1 ms after it, never at now.
 */
const AHEAD = '2999-01-01T00:00:00.000Z';
const AFTER = '2999-01-01T00:00:00.001Z';

async function upload(ctx: TestContext, kind: 'cover' | 'avatar'): Promise<string> {
  const body = fileUpload(img.png());
  const res = await ctx.request({ method: 'POST', url: `/api/files/upload/${kind}`, payload: body.payload, headers: body.headers });
  return res.json().path;
}

t.test('author, series and tag updates move updatedAt past a stamp the clock has not reached', async (t) => {
  const ctx = await buildTestApp(t);
  const { db } = ctx.app;
  const author = await createAuthor(ctx);
  const shelf = await createSeries(ctx);
  const tag = await createTag(ctx);
  db.update(authors).set({ updatedAt: AHEAD }).where(eq(authors.id, author.id)).run();
  db.update(series).set({ updatedAt: AHEAD }).where(eq(series.id, shelf.id)).run();
  db.update(tags).set({ updatedAt: AHEAD }).where(eq(tags.id, tag.id)).run();

  t.equal((await ctx.put(`/api/authors/${author.id}`, { notes: 'n' })).json().updatedAt, AFTER, 'author');
  t.equal((await ctx.put(`/api/series/${shelf.id}`, { description: 'd' })).statusCode, 200);
  const stamp = db.select({ updatedAt: series.updatedAt }).from(series).where(eq(series.id, shelf.id)).get()?.updatedAt;
  t.equal(stamp, AFTER, 'series (its DTO has no updatedAt, so the row)');
  t.equal((await ctx.put(`/api/tags/${tag.id}`, { name: 'renamed tag' })).json().updatedAt, AFTER, 'tag');
  t.equal((await ctx.put(`/api/authors/${author.id}`, { notes: 'again' })).json().updatedAt, '2999-01-01T00:00:00.002Z', 'and again');
});

t.test('clearing a cover or avatar keeps the owner updatedAt monotonic', async (t) => {
  const ctx = await buildTestApp(t);
  const { db } = ctx.app;
  const shared = await upload(ctx, 'cover');
  const story = await createStory(ctx, { coverPath: shared });
  const avatar = await upload(ctx, 'avatar');
  const author = await createAuthor(ctx);
  t.equal((await ctx.put(`/api/authors/${author.id}`, { avatarImagePath: avatar })).statusCode, 200);
  const own = await upload(ctx, 'cover');
  const other = await createStory(ctx, { coverPath: own });
  db.update(stories).set({ updatedAt: AHEAD }).run();
  db.update(authors).set({ updatedAt: AHEAD }).run();

  t.equal((await ctx.del(`/api/files/images?path=${encodeURIComponent(shared)}`)).statusCode, 200);
  t.equal((await ctx.get(`/api/stories/${story.id}`)).json().updatedAt, AFTER, 'DELETE /api/files/images stamps the story by the rule');
  t.equal((await ctx.del(`/api/files/images?path=${encodeURIComponent(avatar)}`)).statusCode, 200);
  t.equal((await ctx.get(`/api/authors/${author.id}`)).json().updatedAt, AFTER, 'and the author');
  t.equal((await ctx.del(`/api/stories/${other.id}/cover`)).statusCode, 200);
  t.equal((await ctx.get(`/api/stories/${other.id}`)).json().updatedAt, AFTER, 'as does DELETE /api/stories/{id}/cover');
});
