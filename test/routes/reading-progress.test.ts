/**
 * Reading progress and continue-reading (docs/decisions.md, "Reading progress"), through the real
 * HTTP stack: the round trip, the defaults, every bad input (a 400 or 404 naming the fields, with
 * nothing changed), the list's order, filter, limit and shape, the cascade on delete, and that
 * reading never changes the story itself.
 */
import path from 'node:path';
import t from 'tap';
import { closeDatabase, openDatabase } from '../../src/db/open.js';
import { NotFound } from '../../src/errors.js';
import { migrateSafely } from '../../src/plugins/db-migrate.js';
import { buildTestApp, tempDataDir, type TestContext } from '../helpers/app.js';
import { migrationsCopy } from '../helpers/migrations.js';
import { createStory, MISSING_ID } from '../helpers/factories.js';
import { assertMatches } from '../helpers/schema.js';
import { ReadingProgressDto } from '../../src/schemas/reading-progress.js';
import { StoryDto } from '../../src/schemas/story.js';
import { continueReadingCards, getProgress, saveProgress } from '../../src/stories/progress-service.js';

const progressUrl = (id: string) => `/api/stories/${id}/progress`;

async function save(ctx: TestContext, id: string, progress: number, position: string | null = null) {
  const res = await ctx.put(progressUrl(id), { progress, position });
  if (res.statusCode !== 200) throw new Error(`save failed: ${res.statusCode} ${res.body}`);
  return res.json() as ReadingProgressDto;
}

async function continueIds(ctx: TestContext, query = ''): Promise<string[]> {
  const res = await ctx.get(`/api/stories/continue-reading${query}`);
  if (res.statusCode !== 200) throw new Error(`continue-reading failed: ${res.statusCode} ${res.body}`);
  return (res.json() as StoryDto[]).map((story) => story.id);
}

t.test('a story never read answers progress 0, position null, updatedAt null', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const res = await ctx.get(progressUrl(story.id));
  t.equal(res.statusCode, 200);
  t.same(res.json(), { storyId: story.id, progress: 0, position: null, chapter: null, updatedAt: null });
  assertMatches(t, ReadingProgressDto, res.json());
});

t.test('a saved position is read back as saved, and a later save replaces it', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const put = await ctx.put(progressUrl(story.id), { progress: 0.4375, position: 'p:17' });
  t.equal(put.statusCode, 200);
  const saved = put.json() as ReadingProgressDto;
  assertMatches(t, ReadingProgressDto, saved);
  t.equal(saved.storyId, story.id);
  t.equal(saved.progress, 0.4375);
  t.equal(saved.position, 'p:17');
  t.match(saved.updatedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.same((await ctx.get(progressUrl(story.id))).json(), saved, 'GET answers what PUT did');

  const again = await save(ctx, story.id, 0.1, null);
  t.equal(again.progress, 0.1, 'last write wins, even when it goes backwards');
  t.equal(again.position, null, 'a null position is stored as null');
  t.same((await ctx.get(progressUrl(story.id))).json(), again);

  const ends = await save(ctx, story.id, 1, '');
  t.equal(ends.progress, 1, 'both ends of the range are accepted');
  t.equal(ends.position, '', 'an empty locator is kept as sent');
  t.equal((await save(ctx, story.id, 0)).progress, 0);
});

t.test("every save moves updatedAt forward and the story's own updatedAt never changes", async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, { tagNames: ['kept'] });
  // Reading moves the reader's own fields (docs/decisions.md, "Reading status"), nothing else.
  const withoutReaderFields = (body: string) => {
    const { readingStatus: _status, finishedAt: _finished, readCount: _count, favourite: _favourite, ...rest } = JSON.parse(body) as Record<string, unknown>;
    return JSON.stringify(rest);
  };
  const before = withoutReaderFields((await ctx.get(`/api/stories/${story.id}`)).body);
  let previous = '';
  for (let i = 0; i < 20; i += 1) {
    const saved = await save(ctx, story.id, i / 20, `p${i}`);
    t.ok((saved.updatedAt as string) > previous, `save ${i} sorts after the one it replaced`);
    previous = saved.updatedAt as string;
  }
  const after = (await ctx.get(`/api/stories/${story.id}`)).body;
  t.equal(withoutReaderFields(after), before, 'the story is byte-for-byte what it was but its reading status: reading is not editing');
  t.equal((JSON.parse(after) as StoryDto).readingStatus, 'reading', 'opened: reading');
  const list = (await ctx.get('/api/stories?sortBy=updatedAt')).json() as { content: StoryDto[] };
  t.equal(list.content[0]?.updatedAt, story.updatedAt, 'its place in the updatedAt order is unchanged');
});

t.test('bad input is a 400 naming each field (or a 404), never a 500, and changes nothing', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const kept = await save(ctx, story.id, 0.5, 'kept');

  const cases: Array<[string, unknown, string[]]> = [
    ['progress below 0', { progress: -0.01, position: 'x' }, ['progress']],
    ['progress above 1', { progress: 1.01, position: 'x' }, ['progress']],
    ['progress as text', { progress: '0.5', position: 'x' }, ['progress']],
    ['progress null', { progress: null, position: 'x' }, ['progress']],
    ['progress a list', { progress: [0.5], position: 'x' }, ['progress']],
    ['progress missing', { position: 'x' }, ['progress']],
    ['position missing', { progress: 0.5 }, ['position']],
    ['both missing', {}, ['progress', 'position']],
    ['position a number', { progress: 0.5, position: 17 }, ['position']],
    ['position an object', { progress: 0.5, position: { p: 1 } }, ['position']],
    ['position too long', { progress: 0.5, position: 'x'.repeat(1001) }, ['position']],
    ['position with a lone surrogate', { progress: 0.5, position: 'p\ud800' }, ['position']],
    ['both wrong', { progress: 2, position: 'x'.repeat(1001) }, ['progress', 'position']],
  ];
  for (const [label, body, fields] of cases) {
    const res = await ctx.put(progressUrl(story.id), body);
    t.equal(res.statusCode, 400, `${label}: 400`);
    t.same(Object.keys(res.json().details ?? {}).sort(), [...fields].sort(), `${label}: details name ${fields.join(', ')}`);
  }

  // JSON has no NaN or Infinity; 1e999 is what parses to Infinity, and a bare NaN is not JSON.
  for (const [label, raw] of [
    ['Infinity', '{"progress": 1e999, "position": "x"}'],
    ['-Infinity', '{"progress": -1e999, "position": "x"}'],
    ['NaN', '{"progress": NaN, "position": "x"}'],
  ] as const) {
    const res = await ctx.request({ method: 'PUT', url: progressUrl(story.id), payload: raw, headers: { 'content-type': 'application/json' } });
    t.equal(res.statusCode, 400, `${label}: 400`);
    t.type(res.json().error, 'string');
  }
  const exactly = await ctx.put(progressUrl(story.id), { progress: 0.5, position: 'y'.repeat(1000) });
  t.equal(exactly.statusCode, 200, 'a position of exactly 1,000 characters is accepted');
  await save(ctx, story.id, kept.progress, kept.position);

  const notJson = await ctx.request({ method: 'PUT', url: progressUrl(story.id), payload: 'progress=0.5', headers: { 'content-type': 'text/plain' } });
  t.equal(notJson.statusCode, 415, 'a body that is not JSON: 415');

  const malformed = await ctx.put(progressUrl('not-a-uuid'), { progress: 0.5, position: 'x' });
  t.equal(malformed.statusCode, 400, 'a malformed id: 400');
  t.ok(malformed.json().details?.id, 'naming id');
  const malformedGet = await ctx.get(progressUrl('not-a-uuid'));
  t.equal(malformedGet.statusCode, 400);
  t.ok(malformedGet.json().details?.id);

  const missing = await ctx.put(progressUrl(MISSING_ID), { progress: 0.5, position: 'x' });
  t.equal(missing.statusCode, 404, 'an unknown story: 404');
  t.match(missing.json().error, `Story not found with id: ${MISSING_ID}`);
  t.equal((await ctx.get(progressUrl(MISSING_ID))).statusCode, 404, 'GET of an unknown story: 404');
  const stored = ctx.app.db.$client.prepare('SELECT count(*) FROM reading_progress').pluck().get();
  t.equal(stored, 1, 'no row for the unknown story');

  const after = (await ctx.get(progressUrl(story.id))).json() as ReadingProgressDto;
  t.equal(after.progress, 0.5);
  t.equal(after.position, 'kept', 'no bad request changed the saved position');
});

t.test('continue-reading: started and unfinished stories, most recently read first, bounded', async (t) => {
  const ctx = await buildTestApp(t);
  t.same(await continueIds(ctx), [], 'nothing read yet: an empty list');
  const [a, b, c, done, almost, zero, unread] = await Promise.all(Array.from({ length: 7 }, () => createStory(ctx)));
  if (!a || !b || !c || !done || !almost || !zero || !unread) throw new Error('stories not created');
  await save(ctx, a.id, 0.2);
  await save(ctx, b.id, 0.5);
  await save(ctx, done.id, 0.98, 'end');
  await save(ctx, almost.id, 0.979);
  await save(ctx, zero.id, 0);
  await save(ctx, c.id, 0.9);
  t.same(await continueIds(ctx), [c.id, almost.id, b.id, a.id], 'newest save first; finished (>= 0.98), never-started (0) and unread left out');

  await save(ctx, a.id, 0.3);
  t.same(await continueIds(ctx), [a.id, c.id, almost.id, b.id], 'reading a story again moves it to the front');
  await save(ctx, c.id, 1);
  t.same(await continueIds(ctx), [a.id, almost.id, b.id], 'finishing a story takes it off the list');

  t.same(await continueIds(ctx, '?limit=2'), [a.id, almost.id], 'limit cuts the list');
  t.same(await continueIds(ctx, '?limit=100'), [a.id, almost.id, b.id], 'limit 100 is accepted');
  for (const limit of ['0', '101', '-1', 'ten', '1.5', 'Infinity']) {
    const res = await ctx.get(`/api/stories/continue-reading?limit=${limit}`);
    t.equal(res.statusCode, 400, `limit=${limit}: 400`);
    t.ok(res.json().details?.limit, `limit=${limit}: names limit`);
  }

  const res = await ctx.get('/api/stories/continue-reading');
  const list = res.json() as StoryDto[];
  for (const story of list) {
    assertMatches(t, StoryDto, story, `${story.id} is a StoryDto`);
    t.same(story, (await ctx.get(`/api/stories/${story.id}`)).json(), 'exactly as GET /api/stories/{id} shows it');
  }
  t.same(continueReadingCards(ctx.app.db, 10).map(({ card }) => card.id), list.map((story) => story.id), 'the home page lists the same stories in the same order');
});

t.test('continue-reading is not taken for a story id, and more than the default 10 are cut to 10', async (t) => {
  const ctx = await buildTestApp(t);
  const stories = [];
  for (let i = 0; i < 12; i += 1) stories.push(await createStory(ctx));
  for (const story of stories) await save(ctx, story.id, 0.5);
  const ids = await continueIds(ctx);
  t.equal(ids.length, 10, 'default limit 10');
  t.same(ids, stories.slice(2).reverse().map((story) => story.id));
});

t.test("deleting a story deletes its progress and takes it off continue-reading", async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const other = await createStory(ctx);
  await save(ctx, story.id, 0.5, 'p3');
  await save(ctx, other.id, 0.25, 'p1');
  t.equal((await ctx.del(`/api/stories/${story.id}`)).statusCode, 200);
  const rows = ctx.app.db.$client.prepare('SELECT story_id FROM reading_progress').pluck().all();
  t.same(rows, [other.id], 'the deleted story left no progress row; the other kept its own');
  t.same(await continueIds(ctx), [other.id]);
  t.equal((await ctx.get(progressUrl(story.id))).statusCode, 404);
});

t.test('the service functions pages call: getProgress and saveProgress', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  t.same(getProgress(ctx.app.db, story.id), { storyId: story.id, progress: 0, position: null, chapter: null, updatedAt: null });
  const saved = saveProgress(ctx.app.db, story.id, { progress: 0.75, position: '42' });
  t.same(getProgress(ctx.app.db, story.id), saved);
  t.same((await ctx.get(progressUrl(story.id))).json(), saved, 'the API sees what the page saved');
  t.throws(() => getProgress(ctx.app.db, MISSING_ID), new NotFound(`Story not found with id: ${MISSING_ID}`));
  t.throws(() => saveProgress(ctx.app.db, MISSING_ID, { progress: 0.5, position: null }), new NotFound(`Story not found with id: ${MISSING_ID}`));
});

t.test('the database refuses an out-of-range progress or an over-long position written around the API', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const insert = ctx.app.db.$client.prepare('INSERT INTO reading_progress (story_id, progress, position, updated_at) VALUES (?, ?, ?, ?)');
  const now = new Date().toISOString();
  t.throws(() => insert.run(story.id, 1.5, null, now), /CHECK constraint failed/);
  t.throws(() => insert.run(story.id, -0.5, null, now), /CHECK constraint failed/);
  t.throws(() => insert.run(story.id, 0.5, 'x'.repeat(1001), now), /CHECK constraint failed/);
  t.throws(() => insert.run(MISSING_ID, 0.5, null, now), /FOREIGN KEY constraint failed/);
});

t.test('a library from before reading progress (migrations up to 0010) migrates and keeps its stories', async (t) => {
  const dataDir = tempDataDir(t);
  const db = openDatabase(path.join(dataDir, 'library.db'));
  const log = { info() {}, warn() {}, error() {}, debug() {} } as never;
  await migrateSafely(db, dataDir, log, migrationsCopy(dataDir, 11));
  const tables = () => db.$client.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'reading_progress'").pluck().get();
  t.equal(tables(), 0, 'the old schema has no reading_progress');
  const now = '2026-11-21T10:00:00.000Z';
  const id = '3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b';
  db.$client.prepare('INSERT INTO stories (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)').run(id, 'Old', now, now);
  closeDatabase(db);

  const ctx = await buildTestApp(t, { DATA_DIR: dataDir });
  t.same((await ctx.get(progressUrl(id))).json(), { storyId: id, progress: 0, position: null, chapter: null, updatedAt: null }, 'an old story has no progress yet');
  t.equal((await save(ctx, id, 0.5, 'p1')).progress, 0.5, 'and can be given some');
  t.same(await continueIds(ctx), [id]);
  t.equal((await ctx.get(`/api/stories/${id}`)).json().updatedAt, now, 'the story is as it was');
});
