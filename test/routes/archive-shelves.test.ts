/**
 * Shelves in the library archive (docs/export-format.md, "shelves.jsonl"; docs/decisions.md,
 * "Shelves"): exported with a manual shelf's stories in its order and a smart shelf's search,
 * restored as they were, bad lines reported, and archives written before shelves restored as ever.
 */
import t from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { exportArchive, manifestJson, readArchive, restoreArchive, zipOf } from '../helpers/archive.js';
import { createStory } from '../helpers/factories.js';
import { ArchiveShelf } from '../../src/schemas/archive.js';
import { assertMatches } from '../helpers/schema.js';

/** Every entry of an exported archive as the text a ZIP of it holds. */
function entriesOf(archive: Map<string, unknown>): Record<string, string | Buffer> {
  const entries: Record<string, string | Buffer> = {};
  for (const [name, value] of archive) {
    if (Buffer.isBuffer(value)) entries[name] = value;
    else if (name.endsWith('.jsonl')) entries[name] = (value as unknown[]).map((line) => JSON.stringify(line)).join('\n');
    else entries[name] = JSON.stringify(value);
  }
  return entries;
}

async function shelvesOf(ctx: TestContext): Promise<unknown[]> {
  return (await ctx.get('/api/shelves')).json().content;
}

async function titlesOn(ctx: TestContext, id: string): Promise<string[]> {
  return (await ctx.get(`/api/shelves/${id}/stories`)).json().content.map((story: { title: string }) => story.title);
}

t.test('shelves and their stories survive an export and a restore', async (t) => {
  const source = await buildTestApp(t);
  const a = await createStory(source, { title: 'Alpha', tagNames: ['sea'] });
  const b = await createStory(source, { title: 'Beta', tagNames: ['sea'] });
  const manual = (await source.post('/api/shelves', { name: 'Next', description: 'Soon', kind: 'manual' })).json();
  await source.put(`/api/shelves/${manual.id}/stories`, { storyIds: [b.id, a.id] });
  const smart = (await source.post('/api/shelves', { name: 'At sea', kind: 'smart', query: { tags: ['sea'], sortBy: 'title', sortDir: 'asc', favourite: false } })).json();

  const archive = await readArchive(await exportArchive(source));
  const lines = archive.get('shelves.jsonl') as unknown[];
  t.equal(lines.length, 2);
  for (const line of lines) assertMatches(t, ArchiveShelf, line, 'each line matches ArchiveShelf');
  t.match(lines, [{ id: smart.id, kind: 'smart', storyIds: [] }, { id: manual.id, kind: 'manual', query: null, storyIds: [b.id, a.id] }].sort((x, y) => (x.id < y.id ? -1 : 1)));
  t.equal((archive.get('manifest.json') as { counts: { shelves: number } }).counts.shelves, 2);

  const target = await buildTestApp(t);
  const job = await restoreArchive(target, await zipOf(entriesOf(archive)));
  t.equal(job.status, 'done');
  t.same(job.errors, []);
  t.same(await shelvesOf(target), await shelvesOf(source), 'the same shelves, ids and stamps kept');
  t.same(await titlesOn(target, manual.id), ['Beta', 'Alpha'], "a manual shelf's order kept");
  t.same(await titlesOn(target, smart.id), ['Alpha', 'Beta'], "a smart shelf's search kept");

  const again = await restoreArchive(target, await zipOf(entriesOf(archive)));
  t.equal(again.status, 'done');
  t.equal((await shelvesOf(target)).length, 2, 'a second restore updates instead of duplicating');
});

t.test('bad shelf lines are reported; missing stories are left out; old archives restore', async (t) => {
  const source = await buildTestApp(t);
  const a = await createStory(source, { title: 'Alpha' });
  const list = (await source.post('/api/shelves', { name: 'List', kind: 'manual' })).json();
  await source.put(`/api/shelves/${list.id}/stories`, { storyIds: [a.id] });
  const archive = await readArchive(await exportArchive(source));
  const entries = entriesOf(archive);
  const [line] = archive.get('shelves.jsonl') as Record<string, unknown>[];
  const gone = 'ffffffff-ffff-4fff-8fff-ffffffffffff';
  entries['shelves.jsonl'] = [
    JSON.stringify({ ...line, storyIds: [gone, a.id] }),
    JSON.stringify({ ...line, id: '00000000-0000-4000-8000-0000000000b1', name: 'Smart', kind: 'smart', query: { minRating: 5, maxRating: 1 } }),
    JSON.stringify({ ...line, id: '00000000-0000-4000-8000-0000000000b2', name: 'No query', kind: 'smart', query: null }),
    JSON.stringify({ ...line, id: '00000000-0000-4000-8000-0000000000b3', name: 'Mine' }),
    '{"id":"bad"}',
  ].join('\n');
  const target = await buildTestApp(t);
  await target.post('/api/shelves', { name: 'MINE', kind: 'manual' });
  const job = await restoreArchive(target, await zipOf(entries));
  t.equal(job.status, 'done');
  const byLine = Object.fromEntries(job.errors.map((error) => [error.file, error.error]));
  t.match(byLine['shelves.jsonl:1'], /1 of its stories is not in the library/);
  t.match(byLine['shelves.jsonl:2'], /greater than maxRating/, "a smart shelf's search is checked as the API checks it");
  t.match(byLine['shelves.jsonl:3'], /needs its query/);
  t.match(byLine['shelves.jsonl:4'], /already in the library/, 'a name another shelf has is not restored over it');
  t.match(byLine['shelves.jsonl:5'], /invalid/);
  t.same((await shelvesOf(target)).map((shelf) => (shelf as { name: string }).name), ['List', 'MINE']);
  t.same(await titlesOn(target, list.id), ['Alpha'], 'the stories it has are kept');

  const old = await buildTestApp(t);
  const story = archive.get(`stories/${a.id}.json`);
  const oldJob = await restoreArchive(
    old,
    await zipOf({ 'manifest.json': manifestJson({ stories: 1 }), 'authors.jsonl': '', 'series.jsonl': '', 'tags.jsonl': '', [`stories/${a.id}.json`]: JSON.stringify(story), 'progress.jsonl': '' }),
  );
  t.equal(oldJob.status, 'done');
  t.same(oldJob.errors, [], 'an archive from before shelves has nothing to report');
  t.equal(oldJob.done, 1);
  t.same(await shelvesOf(old), []);
});
