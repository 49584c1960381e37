/**
 * Refreshing a story that follows a FanFicFare source (docs/decisions.md, "Sources", "Updates"),
 * with the stand-in that replays real FanFicFare output (test/fixtures/fanficfare): the import
 * makes the story follow the address, `POST /api/stories/{id}/refresh` is a `refresh-fanficfare`
 * job whose result holds the refresh's counts, and the schedule's `source-check` job runs
 * FanFicFare in its own turn. FANFICFARE_REPLAY_STAGE picks what the stand-in replays.
 */
import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { ChapterMetaDto } from '../../src/schemas/chapter.js';
import { JobDto } from '../../src/schemas/job.js';
import type { StoryDto } from '../../src/schemas/story.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import { waitForJob } from '../helpers/import.js';
import { assertMatches } from '../helpers/schema.js';
import { buildWebTestApp } from '../helpers/web.js';

const REPLAY = `${process.execPath} ${path.join(import.meta.dirname, '..', 'fixtures', 'fanficfare', 'replay-fanficfare.mjs')}`;

/** Sets what the stand-in replays from now on (it reads the variable when the app spawns it). */
function stage(t: Test, value: string | undefined): void {
  if (value === undefined) delete process.env.FANFICFARE_REPLAY_STAGE;
  else process.env.FANFICFARE_REPLAY_STAGE = value;
  t.teardown(() => {
    delete process.env.FANFICFARE_REPLAY_STAGE;
  });
}

async function importWork(t: Test, ctx: TestContext, url: string): Promise<StoryDto> {
  const res = await ctx.post('/api/import/url', { url });
  t.equal(res.statusCode, 202, res.body);
  const job = await waitForJob(ctx, res.json().jobId);
  t.match(job, { kind: 'import-fanficfare', status: 'done', done: 1 });
  const [story] = (await ctx.get('/api/stories')).json().content as StoryDto[];
  return story as StoryDto;
}

async function refresh(t: Test, ctx: TestContext, storyId: string): Promise<JobDto> {
  const res = await ctx.request({ method: 'POST', url: `/api/stories/${storyId}/refresh` });
  t.equal(res.statusCode, 202, res.body);
  const job = await waitForJob(ctx, res.json().jobId);
  assertMatches(t, JobDto, job);
  return job;
}

interface SourceRow {
  engine: string;
  url: string;
  follow: number;
  next_check_at: string | null;
  failures: number;
  last_error: string | null;
}

function sourceRow(ctx: TestContext, storyId: string): SourceRow {
  return ctx.app.db.$client.prepare('SELECT engine, url, follow, next_check_at, failures, last_error FROM story_sources WHERE story_id = ?').get(storyId) as SourceRow;
}

async function chaptersOf(ctx: TestContext, storyId: string): Promise<ChapterMetaDto[]> {
  return (await ctx.get(`/api/stories/${storyId}/chapters`)).json() as ChapterMetaDto[];
}

async function updatesOf(ctx: TestContext, storyId: string): Promise<Array<Record<string, unknown>>> {
  return (await ctx.get(`/api/stories/${storyId}/updates`)).json().updates;
}

t.test('a FanFicFare import follows the address it was given, its first check within the interval, its import logged', async (t) => {
  stage(t, '1');
  const ctx = await buildTestApp(t, { FANFICFARE_COMMAND: REPLAY });
  const story = await importWork(t, ctx, 'http://test1.com?sid=1');
  t.equal(story.chapterCount, 5);
  const source = sourceRow(ctx, story.id);
  t.match(source, { engine: 'fanficfare', url: 'http://test1.com?sid=1', follow: 1, failures: 0 });
  t.ok(source.next_check_at !== null && Date.parse(source.next_check_at) <= Date.now() + 24 * 3600 * 1000, 'the schedule will check it within the interval');
  t.match(await updatesOf(ctx, story.id), [{ origin: 'import', addedChapters: 5, sourceUrl: 'http://test1.com?sid=1' }]);
});

t.test('refresh: FanFicFare downloads the grown work; only the new chapters are written, logged; again: unchanged', async (t) => {
  stage(t, '1');
  const ctx = await buildTestApp(t, { FANFICFARE_COMMAND: REPLAY });
  const story = await importWork(t, ctx, 'http://test1.com?sid=1');
  const before = await chaptersOf(ctx, story.id);
  t.equal(before.length, 5);

  stage(t, undefined);
  const job = await refresh(t, ctx, story.id);
  t.match(job, { kind: 'refresh-fanficfare', status: 'done', done: 1, failed: 0, errors: [] });
  t.same(job.result, { storyId: story.id, result: 'updated', addedChapters: 4, updatedChapters: 0, keptChapters: 0, goneChapters: 0 });
  t.equal(fs.existsSync(path.join(ctx.dataDir, 'jobs', job.id)), false, "the job's folder is removed");

  const after = await chaptersOf(ctx, story.id);
  t.same(after.map((chapter) => chapter.title).slice(5), ['Chapter 5 < 5.4', 'Chapter A & B < C > D', 'Chapter 7', 'Chapter 8']);
  t.same(after.slice(0, 5), before, 'the chapters held are not touched');
  const updated = (await ctx.get(`/api/stories/${story.id}`)).json() as StoryDto;
  t.match(updated, { title: story.title, chapterCount: 9, wordCount: 2846, summary: story.summary, authorName: story.authorName });
  t.same(updated.tags, story.tags, 'the tags are not touched');
  t.ok(updated.updatedAt > story.updatedAt, 'the story moved');
  const log = await updatesOf(ctx, story.id);
  t.match(log, [
    { origin: 'refresh', sourceUrl: 'http://test1.com?sid=1', addedChapters: 4, updatedChapters: 0, keptChapters: 0, goneChapters: 0, details: { added: ['Chapter 5 < 5.4', 'Chapter A & B < C > D', 'Chapter 7', 'Chapter 8'] } },
    { origin: 'import' },
  ]);
  t.match(sourceRow(ctx, story.id), { failures: 0, last_error: null });

  const again = await refresh(t, ctx, story.id);
  t.same(again.result, { storyId: story.id, result: 'unchanged', addedChapters: 0, updatedChapters: 0, keptChapters: 0, goneChapters: 0 });
  t.equal((await updatesOf(ctx, story.id)).length, 2, 'an unchanged refresh logs nothing');
  t.equal(((await ctx.get(`/api/stories/${story.id}`)).json() as StoryDto).updatedAt, updated.updatedAt, 'nor moves the story');
});

t.test('FanFicFare failing: the job fails with its message, the story is untouched, the failure is recorded on the source', async (t) => {
  stage(t, '1');
  const ctx = await buildTestApp(t, { FANFICFARE_COMMAND: REPLAY });
  const story = await importWork(t, ctx, 'http://test1.com?sid=1');
  const chapters = await chaptersOf(ctx, story.id);

  stage(t, 'fail');
  const job = await refresh(t, ctx, story.id);
  t.equal(job.status, 'failed');
  t.equal(job.result, undefined, 'a failed refresh has no result');
  t.match(job.errors, [{ file: '', error: 'FanFicFare failed: fanficfare.exceptions.FailedToDownload: Error downloading Chapter: http://test1.com?sid=1&chapter=2!' }]);
  t.same(await chaptersOf(ctx, story.id), chapters);
  t.same((await ctx.get(`/api/stories/${story.id}`)).json(), (await ctx.get(`/api/stories/${story.id}`)).json());
  t.equal(((await ctx.get(`/api/stories/${story.id}`)).json() as StoryDto).updatedAt, story.updatedAt, 'the story did not move');
  t.equal((await updatesOf(ctx, story.id)).length, 1, 'nothing logged but the import');
  const source = sourceRow(ctx, story.id);
  t.match(source, { failures: 1, last_error: /FailedToDownload/ });
  t.ok(Date.parse(source.next_check_at as string) > Date.now() + 47 * 3600 * 1000, 'the next check is pushed back');
  t.equal(fs.existsSync(path.join(ctx.dataDir, 'jobs', job.id)), false);
});

t.test("the story page's refresh form leads to the job's page; asking again meanwhile gives the same job; FanFicFare off is 409, a file 422", async (t) => {
  stage(t, '1');
  const ctx = await buildWebTestApp(t, { FANFICFARE_COMMAND: REPLAY });
  const story = await importWork(t, ctx, 'http://test1.com?sid=1');
  stage(t, undefined);
  const form = await ctx.form(`/stories/${story.id}/refresh`, {});
  t.equal(form.statusCode, 303, form.body);
  const jobId = /^\/jobs\/([0-9a-f-]{36})$/.exec(String(form.headers.location))?.[1] as string;
  t.type(jobId, 'string', `redirected to the job's page: ${form.headers.location}`);
  const again = await ctx.request({ method: 'POST', url: `/api/stories/${story.id}/refresh` });
  t.equal(again.statusCode, 202);
  t.equal(again.json().jobId, jobId, 'one download for both');
  t.match(await waitForJob(ctx, jobId), { kind: 'refresh-fanficfare', status: 'done', result: { result: 'updated', addedChapters: 4 } });

  const off = await buildTestApp(t);
  const held = await createStory(off);
  off.app.db.$client
    .prepare("INSERT INTO story_sources (story_id, engine, url, site, follow, created_at) VALUES (?, 'fanficfare', 'http://test1.com?sid=1', 'test1.com', 1, '2026-01-01T00:00:00.000Z')")
    .run(held.id);
  const refused = await off.request({ method: 'POST', url: `/api/stories/${held.id}/refresh` });
  t.equal(refused.statusCode, 409);
  t.match(refused.json(), { error: /FanFicFare is not set up/, details: { id: /FANFICFARE_COMMAND/ } });
  t.equal((await off.get('/api/jobs')).json().jobs.length, 0, 'no job queued');
  off.app.db.$client.prepare("UPDATE story_sources SET engine = 'file', follow = 0 WHERE story_id = ?").run(held.id);
  t.equal((await off.request({ method: 'POST', url: `/api/stories/${held.id}/refresh` })).statusCode, 422, 'a file is matched, never fetched');
});

t.test('the schedule refreshes a due FanFicFare source in its source-check job: the retitled chapter replaced, two added', async (t) => {
  stage(t, '1');
  const ctx = await buildTestApp(t, { FANFICFARE_COMMAND: REPLAY });
  const story = await importWork(t, ctx, 'http://test1.com?sid=1000');
  t.equal(story.chapterCount, 3);
  ctx.app.db.$client.prepare("UPDATE story_sources SET next_check_at = '2000-01-01T00:00:00.000Z' WHERE story_id = ?").run(story.id);

  stage(t, undefined);
  const jobId = ctx.app.sourceSchedule.tick() as string;
  const job = await waitForJob(ctx, jobId);
  t.match(job, { kind: 'source-check', status: 'done', done: 1, failed: 0 });
  t.equal(fs.existsSync(path.join(ctx.dataDir, 'jobs', jobId)), false, "FanFicFare's folder is removed");
  const chapters = await chaptersOf(ctx, story.id);
  t.equal(chapters.length, 5);
  t.equal(chapters[1]?.title, 'Chapter 1, Arrival (revised)');
  t.match(await updatesOf(ctx, story.id), [{ origin: 'schedule', addedChapters: 2, updatedChapters: 1, keptChapters: 0, goneChapters: 0, details: { updated: ['Chapter 1, Arrival (revised)'] } }, { origin: 'import' }]);
  const source = sourceRow(ctx, story.id);
  t.ok(Date.parse(source.next_check_at as string) > Date.now() + 23 * 3600 * 1000, 'checked again one interval later');
  t.equal(((await ctx.get(`/api/stories/${story.id}`)).json() as StoryDto).sourceUpdatedAt, '2024-06-20T00:00:00.000Z', "the work's dates follow the source");
});
