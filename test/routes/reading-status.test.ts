/**
 * Reading status and favourites (docs/decisions.md, "Reading status"), through the real HTTP stack:
 * setting them by hand, every bad input (a 400 or 404 that changes nothing), what reading does to
 * the status (opened, finished once per finish, hand-set statuses kept), and that none of it
 * changes the story's `updatedAt`.
 */
import t, { type Test } from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory, MISSING_ID } from '../helpers/factories.js';
import { assertMatches } from '../helpers/schema.js';
import { StoryDto } from '../../src/schemas/story.js';
import { READING_STATUSES, type ReadingStatus } from '../../src/schemas/reading-status.js';
import type { ReadingProgressDto } from '../../src/schemas/reading-progress.js';
import { findReadingState, type ReadingState } from '../../src/stories/repository.js';

const statusUrl = (id: string) => `/api/stories/${id}/reading-status`;
const favouriteUrl = (id: string) => `/api/stories/${id}/favourite`;

/** The story's stored reading state. */
function stateOf(ctx: TestContext, id: string): ReadingState {
  const state = findReadingState(ctx.app.db, id);
  if (state === undefined) throw new Error(`no story ${id}`);
  return state;
}

async function setStatus(t: Test, ctx: TestContext, id: string, status: ReadingStatus | null): Promise<StoryDto> {
  const res = await ctx.put(statusUrl(id), { status });
  t.equal(res.statusCode, 200, `PUT status ${String(status)}: 200`);
  assertMatches(t, StoryDto, res.json());
  return res.json() as StoryDto;
}

async function read(ctx: TestContext, id: string, progress: number): Promise<ReadingProgressDto> {
  const res = await ctx.put(`/api/stories/${id}/progress`, { progress, position: null });
  if (res.statusCode !== 200) throw new Error(`save failed: ${res.statusCode} ${res.body}`);
  return res.json() as ReadingProgressDto;
}

t.test('each status is set by hand and read back; null clears it; updatedAt never moves', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  t.same(stateOf(ctx, story.id), { readingStatus: null, finishedAt: null, readCount: 0, favourite: false }, 'a new story has no status');
  for (const status of READING_STATUSES) {
    const dto = await setStatus(t, ctx, story.id, status);
    t.equal(dto.id, story.id, 'the answer is the story');
    t.equal(dto.updatedAt, story.updatedAt, `${status}: the story's updatedAt stays`);
    t.equal(stateOf(ctx, story.id).readingStatus, status, `${status} is stored`);
  }
  await setStatus(t, ctx, story.id, null);
  t.equal(stateOf(ctx, story.id).readingStatus, null, 'null clears the status');
  t.equal((await ctx.get(`/api/stories/${story.id}`)).json().updatedAt, story.updatedAt, 'updatedAt is what it was at creation');
});

t.test('finished by hand is a finish: stamped and counted once; the history stays when the status moves on', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  await setStatus(t, ctx, story.id, 'finished');
  const first = stateOf(ctx, story.id);
  t.equal(first.readCount, 1, 'one read');
  t.match(first.finishedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'finishedAt is a timestamp');
  await setStatus(t, ctx, story.id, 'finished');
  t.same(stateOf(ctx, story.id), first, 'finished again changes nothing: a PUT of the same status is no new read');
  await setStatus(t, ctx, story.id, 'reading');
  t.same(stateOf(ctx, story.id), { ...first, readingStatus: 'reading' }, 'finishedAt and readCount stay when the reader starts again');
  await setStatus(t, ctx, story.id, null);
  t.same(stateOf(ctx, story.id), { ...first, readingStatus: null }, 'and when the status is cleared');
  await setStatus(t, ctx, story.id, 'finished');
  const second = stateOf(ctx, story.id);
  t.equal(second.readCount, 2, 'a second finish counts a second read');
  t.ok((second.finishedAt as string) >= (first.finishedAt as string), 'finishedAt is the latest finish');
});

t.test('favourite is set and cleared, idempotently, without touching updatedAt or the status', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  await setStatus(t, ctx, story.id, 'on-hold');
  for (const favourite of [true, true, false, false, true]) {
    const res = await ctx.put(favouriteUrl(story.id), { favourite });
    t.equal(res.statusCode, 200);
    assertMatches(t, StoryDto, res.json());
    t.equal(res.json().updatedAt, story.updatedAt, 'updatedAt stays');
    t.equal(stateOf(ctx, story.id).favourite, favourite, `favourite ${favourite} is stored`);
  }
  t.equal(stateOf(ctx, story.id).readingStatus, 'on-hold', 'the status is untouched');
});

t.test('bad input is a 400 naming the field (or a 404), never a 500, and changes nothing', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  await setStatus(t, ctx, story.id, 'reading');
  await ctx.put(favouriteUrl(story.id), { favourite: true });
  const before = stateOf(ctx, story.id);
  const cases: Array<[string, string, unknown, string]> = [
    ['unknown status', statusUrl(story.id), { status: 'read' }, 'status'],
    ['status in another case', statusUrl(story.id), { status: 'Reading' }, 'status'],
    ['status missing', statusUrl(story.id), {}, 'status'],
    ['status a number', statusUrl(story.id), { status: 1 }, 'status'],
    ['status a list', statusUrl(story.id), { status: ['reading'] }, 'status'],
    ['favourite missing', favouriteUrl(story.id), {}, 'favourite'],
    ['favourite a string', favouriteUrl(story.id), { favourite: 'false' }, 'favourite'],
    ['favourite a number', favouriteUrl(story.id), { favourite: 0 }, 'favourite'],
    ['favourite null', favouriteUrl(story.id), { favourite: null }, 'favourite'],
    ['malformed id', '/api/stories/not-a-uuid/reading-status', { status: 'finished' }, 'id'],
    ['malformed id', '/api/stories/not-a-uuid/favourite', { favourite: false }, 'id'],
  ];
  for (const [label, url, body, field] of cases) {
    const res = await ctx.put(url, body);
    t.equal(res.statusCode, 400, `${label}: 400`);
    t.type(res.json().error, 'string', `${label}: an error message`);
    t.ok(res.json().details?.[field], `${label}: details name ${field}`);
  }
  for (const url of [statusUrl(MISSING_ID), favouriteUrl(MISSING_ID)]) {
    const res = await ctx.put(url, url.endsWith('favourite') ? { favourite: true } : { status: 'finished' });
    t.equal(res.statusCode, 404, `${url}: an unknown story is 404`);
    t.type(res.json().error, 'string');
  }
  const notJson = await ctx.request({ method: 'PUT', url: statusUrl(story.id), payload: 'status=finished', headers: { 'content-type': 'text/plain' } });
  t.equal(notJson.statusCode, 415, 'a body that is not JSON: 415');
  t.same(stateOf(ctx, story.id), before, 'nothing changed');
});

t.test('opening a story with no status or want-to-read makes it reading; statuses set by hand stay', async (t) => {
  const ctx = await buildTestApp(t);
  const fresh = await createStory(ctx);
  await read(ctx, fresh.id, 0);
  t.equal(stateOf(ctx, fresh.id).readingStatus, 'reading', 'no status -> reading, even at progress 0 (the reader opened it)');

  const wanted = await createStory(ctx);
  await setStatus(t, ctx, wanted.id, 'want-to-read');
  await read(ctx, wanted.id, 0.3);
  t.equal(stateOf(ctx, wanted.id).readingStatus, 'reading', 'want-to-read -> reading');

  for (const status of ['on-hold', 'abandoned', 'finished'] as const) {
    const story = await createStory(ctx);
    await setStatus(t, ctx, story.id, status);
    const before = stateOf(ctx, story.id);
    await read(ctx, story.id, 0.5);
    t.same(stateOf(ctx, story.id), before, `${status} stays when the story is opened`);
  }
  const after = (await ctx.get(`/api/stories/${fresh.id}`)).json() as StoryDto;
  t.equal(after.updatedAt, fresh.updatedAt, "the story's updatedAt stays");
});

t.test('reaching the end finishes the story once per finish, stamped with the save', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  await read(ctx, story.id, 0.5);
  await read(ctx, story.id, 0.97);
  t.equal(stateOf(ctx, story.id).readingStatus, 'reading', 'just short of the end is still reading');
  const saved = await read(ctx, story.id, 0.98);
  const finished = stateOf(ctx, story.id);
  t.same(finished, { readingStatus: 'finished', finishedAt: saved.updatedAt, readCount: 1, favourite: false }, 'finished, stamped with the save, one read');
  for (const progress of [0.99, 1, 1, 0.6, 1]) await read(ctx, story.id, progress);
  t.same(stateOf(ctx, story.id), finished, 'more saves at the end, or going back and forth, are the same finish');

  await setStatus(t, ctx, story.id, 'reading');
  await read(ctx, story.id, 0.1);
  const again = await read(ctx, story.id, 1);
  t.same(stateOf(ctx, story.id), { readingStatus: 'finished', finishedAt: again.updatedAt, readCount: 2, favourite: false }, 'a re-read set by hand counts a second read');

  const direct = await createStory(ctx);
  await read(ctx, direct.id, 1);
  t.same(
    { ...stateOf(ctx, direct.id), finishedAt: null },
    { readingStatus: 'finished', finishedAt: null, readCount: 1, favourite: false },
    'a first save at the end finishes a story with no status',
  );
  t.equal((await ctx.get(`/api/stories/${story.id}`)).json().updatedAt, story.updatedAt, "the story's updatedAt stays");
});

t.test('the end finishes an on-hold story; an abandoned one stays abandoned', async (t) => {
  const ctx = await buildTestApp(t);
  const held = await createStory(ctx);
  await setStatus(t, ctx, held.id, 'on-hold');
  await read(ctx, held.id, 1);
  t.equal(stateOf(ctx, held.id).readingStatus, 'finished', 'on-hold -> finished: the reader came back and read to the end');
  t.equal(stateOf(ctx, held.id).readCount, 1);

  const dropped = await createStory(ctx);
  await setStatus(t, ctx, dropped.id, 'abandoned');
  await read(ctx, dropped.id, 1);
  t.same(stateOf(ctx, dropped.id), { readingStatus: 'abandoned', finishedAt: null, readCount: 0, favourite: false }, 'abandoned stays: a peek at the end is not a read');
});

t.test('a save for an unknown story changes nothing and is 404', async (t) => {
  const ctx = await buildTestApp(t);
  const res = await ctx.put(`/api/stories/${MISSING_ID}/progress`, { progress: 1, position: null });
  t.equal(res.statusCode, 404);
  t.equal(ctx.app.db.$client.prepare('SELECT count(*) FROM reading_progress').pluck().get(), 0, 'no progress row');
});
