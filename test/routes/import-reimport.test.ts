/**
 * Files of FanFicFare's growing work (test/fixtures/fanficfare: grow-v1 has 3 chapters, grow-v2
 * the same work downloaded after it grew to 5, chapter 2 retitled) imported one after the other
 * through `POST /api/import/files`: the second updates the first's story. Then the same through
 * FanFicFare as an engine (the replay stand-in), and the typed metadata a FanFicFare file gives.
 */
import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { eq } from 'drizzle-orm';
import { storySources } from '../../src/db/schema.js';
import type { JobDto } from '../../src/schemas/job.js';
import type { StoryDto } from '../../src/schemas/story.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { postImport, waitForJob } from '../helpers/import.js';

const DIR = path.join(import.meta.dirname, '..', 'fixtures', 'fanficfare');
const REPLAY = `${process.execPath} ${path.join(DIR, 'replay-fanficfare.mjs')}`;

async function importFile(t: Test, ctx: TestContext, name: string): Promise<JobDto> {
  const res = await postImport(ctx, [{ filename: name, data: fs.readFileSync(path.join(DIR, name)) }]);
  t.equal(res.statusCode, 202, res.body);
  return waitForJob(ctx, res.json().jobId);
}

async function stories(ctx: TestContext): Promise<StoryDto[]> {
  return (await ctx.get('/api/stories?size=10')).json().content as StoryDto[];
}

async function chapterTitles(ctx: TestContext, id: string): Promise<string[]> {
  return ((await ctx.get(`/api/stories/${id}/chapters`)).json() as Array<{ title: string }>).map((chapter) => chapter.title);
}

t.test('re-importing a grown work: new chapters appended, the changed one replaced, the rest untouched; logged and said', async (t) => {
  const ctx = await buildTestApp(t);
  const first = await importFile(t, ctx, 'grow-v1.epub');
  t.match(first, { status: 'done', done: 1, errors: [] });
  const [before] = await stories(ctx);
  const id = before?.id as string;
  t.match(before, { title: 'Growing Test Story', chapterCount: 3, wordCount: 854, status: 'in-progress', publishedAt: '2024-03-15T00:00:00.000Z', sourceUpdatedAt: '2024-05-13T00:00:00.000Z', language: 'en' });
  const firstChapter = (await ctx.get(`/api/stories/${id}/chapters/1`)).json();

  const second = await importFile(t, ctx, 'grow-v2.epub');
  t.match(second, { status: 'done', done: 1, failed: 0 });
  t.same(second.errors, [{ file: 'grow-v2.epub', error: `updated: the story ${id} ("Growing Test Story"): 2 chapters added, 1 replaced, 2 unchanged` }]);
  const after = await stories(ctx);
  t.equal(after.length, 1, 'the same story, not a second one');
  t.match(after[0], { id, chapterCount: 5, wordCount: 1518, sourceUpdatedAt: '2024-06-20T00:00:00.000Z' });
  t.same(await chapterTitles(ctx, id), ['Prologue', 'Chapter 1, Arrival (revised)', 'Chapter 2, The Road', 'Chapter 3, The Bridge', 'Chapter 4, Home']);
  t.same((await ctx.get(`/api/stories/${id}/chapters/1`)).json().updatedAt, firstChapter.updatedAt, 'an unchanged chapter is not rewritten (its download time differs, and is not text)');
  const updates = (await ctx.get(`/api/stories/${id}/updates`)).json().updates;
  t.match(updates, [{ origin: 'file', addedChapters: 2, updatedChapters: 1, keptChapters: 0, goneChapters: 0, sourceUrl: 'http://test1.com/?sid=1000' }]);
  t.same(updates[0].details.added, ['Chapter 3, The Bridge', 'Chapter 4, Home']);
  const source = ctx.app.db.select().from(storySources).where(eq(storySources.storyId, id)).get();
  t.match(source, { engine: 'file', follow: false, uid: 'fanficfare-uid:test1.com-u45-s1000', url: 'http://test1.com/?sid=1000', site: 'test1.com' });

  const older = await importFile(t, ctx, 'grow-v1.epub');
  t.match(older.errors, [{ error: /1 replaced, 2 unchanged/ }], 'the old file again: its retitled chapter comes back');
  t.equal((await stories(ctx))[0]?.chapterCount, 5, 'chapters missing from the file are kept');
  const again = await importFile(t, ctx, 'grow-v1.epub');
  t.match(again.errors, [{ error: /^already up to date: .*0 chapters added, 0 replaced, 3 unchanged$/ }]);
  t.equal((await ctx.get(`/api/stories/${id}/updates`)).json().updates.length, 2, 'nothing changed: nothing logged');
});

t.test("a FanFicFare file's typed tags, every author, status and dates reach the story", async (t) => {
  const ctx = await buildTestApp(t);
  await importFile(t, ctx, 'test1-s673-authors.epub');
  await importFile(t, ctx, 'test1-s2-complete.epub');
  const byTitle = new Map((await stories(ctx)).map((story) => [story.title, story]));
  const many = byTitle.get('Test Story Title 673') as StoryDto;
  t.equal(many.authors.length, 20);
  t.same(many.authors.slice(0, 2).map((author) => author.name), ['Test Author aa', 'Author From List 1']);
  const kinds = new Map(many.tags.map((tag) => [tag.name, tag.kind]));
  t.equal(kinds.get('power rangers'), 'fandom');
  t.equal(kinds.get('harry potter & hermione granger'), 'relationship');
  t.equal(kinds.get('bob smith'), 'character');
  t.equal(kinds.get('tweenie'), 'rating');
  t.equal(kinds.get('swearing'), 'warning');
  t.equal(kinds.get('comedy'), 'freeform');
  t.notOk(kinds.has('fanfiction') || kinds.has('in-progress'));
  t.match(byTitle.get('Test Story Title 2'), { status: 'complete', chapterCount: 9, wordCount: 2846 });
});

t.test('FanFicFare as the engine: the grown work fetched again with ?update=true updates the story', async (t) => {
  const ctx = await buildTestApp(t, { FANFICFARE_COMMAND: REPLAY });
  process.env.FANFICFARE_REPLAY_STAGE = '1';
  t.teardown(() => {
    delete process.env.FANFICFARE_REPLAY_STAGE;
  });
  const post = (query = '') => ctx.request({ method: 'POST', url: `/api/import/url${query}`, payload: { url: 'http://test1.com?sid=1000' } });
  const first = await post();
  t.equal(first.statusCode, 202);
  t.match(await waitForJob(ctx, first.json().jobId), { status: 'done', errors: [] });
  const [story] = await stories(ctx);
  t.equal(story?.chapterCount, 3);
  const source = ctx.app.db.select().from(storySources).where(eq(storySources.storyId, story?.id as string)).get();
  t.match(source, { engine: 'fanficfare', follow: true, uid: 'fanficfare-uid:test1.com-u45-s1000' });
  delete process.env.FANFICFARE_REPLAY_STAGE;
  t.equal((await post()).statusCode, 409, 'without update: the story it already is');
  const second = await post('?update=true');
  t.equal(second.statusCode, 202);
  const job = await waitForJob(ctx, second.json().jobId);
  t.match(job.errors, [{ error: /2 chapters added, 1 replaced, 2 unchanged/ }]);
  t.match(await stories(ctx), [{ id: story?.id, chapterCount: 5 }]);
});
