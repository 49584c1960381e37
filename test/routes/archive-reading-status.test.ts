/**
 * The reader's state in the library archive (docs/export-format.md, `stories/<id>.json`;
 * docs/decisions.md, "Reading status"): exported and restored as it was, an archive written before
 * the fields restores without them (a story already in the library keeps its own state), and a bad
 * value is reported by field.
 */
import t from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import { exportArchive, readArchive, restoreArchive, zipOf } from '../helpers/archive.js';
import { findReadingState, type ReadingState } from '../../src/stories/repository.js';

const READER_FIELDS = ['readingStatus', 'finishedAt', 'readCount', 'favourite'];

/** Three stories: one finished twice and a favourite, one being read, one untouched. */
async function library(ctx: TestContext): Promise<string[]> {
  const ids: string[] = [];
  for (const title of ['Twice read', 'Half read', 'Unread']) ids.push((await createStory(ctx, { title, contentHtml: `<p>${title}.</p>` })).id);
  const [twice, half] = ids as [string, string];
  await ctx.put(`/api/stories/${twice}/progress`, { progress: 1, position: null });
  await ctx.put(`/api/stories/${twice}/reading-status`, { status: 'reading' });
  await ctx.put(`/api/stories/${twice}/progress`, { progress: 0.99, position: null });
  await ctx.put(`/api/stories/${twice}/favourite`, { favourite: true });
  await ctx.put(`/api/stories/${half}/progress`, { progress: 0.4, position: null });
  return ids;
}

const stateOf = (ctx: TestContext, id: string): ReadingState | undefined => findReadingState(ctx.app.db, id);

/** The archive's entries as files again, with `change` applied to each story's JSON. */
async function rewritten(bytes: Buffer, change: (story: Record<string, unknown>) => Record<string, unknown>): Promise<Buffer> {
  const entries: Record<string, string | Buffer> = {};
  for (const [name, value] of await readArchive(bytes)) {
    if (Buffer.isBuffer(value)) entries[name] = value;
    else if (name.endsWith('.jsonl')) entries[name] = (value as unknown[]).map((line) => JSON.stringify(line)).join('\n');
    else if (name.startsWith('stories/') && name.endsWith('.json')) entries[name] = JSON.stringify(change(value as Record<string, unknown>));
    else entries[name] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return zipOf(entries);
}

t.test('the reader state is exported and restored as it was', async (t) => {
  const source = await buildTestApp(t);
  const ids = await library(source);
  const bytes = await exportArchive(source);
  const entries = await readArchive(bytes);
  t.match(entries.get(`stories/${ids[0]}.json`), { readingStatus: 'finished', readCount: 2, favourite: true, finishedAt: String }, 'the export carries it');
  t.match(entries.get(`stories/${ids[2]}.json`), { readingStatus: null, finishedAt: null, readCount: 0, favourite: false });

  const target = await buildTestApp(t);
  const job = await restoreArchive(target, bytes);
  t.equal(job.status, 'done');
  t.same(job.errors, []);
  for (const id of ids) t.same(stateOf(target, id), stateOf(source, id), `story ${id}: the same state after the round trip`);
  t.equal(stateOf(target, ids[1] as string)?.readingStatus, 'reading');
});

t.test('an archive written before the reader fields restores; stories already in the library keep their state', async (t) => {
  const source = await buildTestApp(t);
  const ids = await library(source);
  const before = ids.map((id) => stateOf(source, id));
  const old = await rewritten(await exportArchive(source), (story) => Object.fromEntries(Object.entries(story).filter(([key]) => !READER_FIELDS.includes(key))));
  const oldStory = (await readArchive(old)).get(`stories/${ids[0]}.json`) as object;
  t.notOk(READER_FIELDS.some((field) => field in oldStory), 'the old archive has no reader field');

  const fresh = await buildTestApp(t);
  const job = await restoreArchive(fresh, old);
  t.equal(job.status, 'done');
  t.same(job.errors, [], 'nothing reported');
  for (const id of ids) t.same(stateOf(fresh, id), { readingStatus: null, finishedAt: null, readCount: 0, favourite: false }, 'a new story starts with no state');

  const again = await restoreArchive(source, old);
  t.equal(again.status, 'done');
  t.same(ids.map((id) => stateOf(source, id)), before, 'restored over the library: the state it had stays');
});

t.test('a bad reader value is reported by field and that story left out', async (t) => {
  const source = await buildTestApp(t);
  const ids = await library(source);
  const bad = await rewritten(await exportArchive(source), (story) =>
    story.id === ids[0] ? { ...story, readingStatus: 'done' } : story.id === ids[1] ? { ...story, readCount: -1 } : story,
  );
  const target = await buildTestApp(t);
  const job = await restoreArchive(target, bad);
  t.equal(job.status, 'done');
  t.match(job.errors.find((error) => error.file === `stories/${ids[0]}.json`)?.error, /readingStatus/);
  t.match(job.errors.find((error) => error.file === `stories/${ids[1]}.json`)?.error, /readCount/);
  t.equal(stateOf(target, ids[0] as string), undefined, 'the bad story is not restored');
  t.same(stateOf(target, ids[2] as string), stateOf(source, ids[2] as string), 'the good one is');
});
