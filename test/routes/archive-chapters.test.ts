/**
 * Chapters, co-authors, tag kinds and the source metadata in the library archive
 * (docs/export-format.md, `stories/<id>.json`; docs/decisions.md, "Library archive"): a
 * multi-chapter, co-authored story with typed tags comes back as it was; an archive written
 * before chapters (only `contentHtml`) restores as one chapter; a chapter list over the bound is
 * reported and that story left out.
 */
import t from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { exportArchive, readArchive, restoreArchive, zipOf } from '../helpers/archive.js';
import { CHAPTERS_MAX } from '../../src/schemas/chapter.js';

/** A three-chapter story by three authors, with a fandom, a character and a reader's own tag. */
async function library(ctx: TestContext): Promise<string> {
  const res = await ctx.post('/api/stories', {
    title: 'The long watch',
    authorNames: ['Ada Shore', 'Ben Quay', 'Cy Reef'],
    tagNames: ['Lighthouses', 'Keeper', 'rainy'],
    status: 'complete',
    publishedAt: '2023-03-01T00:00:00.000Z',
    sourceUpdatedAt: '2024-05-13T00:00:00.000Z',
    language: 'pt-BR',
    chapters: [
      { title: 'Dusk', contentHtml: '<p>The lamp was lit at dusk.</p>', sourceUrl: 'https://example.org/w/1/c/1' },
      { title: 'Midnight', contentHtml: '<p>Midnight, and the <em>storm</em>.</p>' },
      { title: 'Dawn', contentHtml: '<p>At dawn the ship came home.</p>' },
    ],
  });
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  const id = (res.json() as { id: string }).id;
  const appended = await ctx.post(`/api/stories/${id}/chapters`, { title: 'Afterword', contentHtml: '<p>Thanks for reading.</p>' });
  if (appended.statusCode !== 201) throw new Error(`append failed: ${appended.statusCode}`);
  // Kinds come from importers only (no body sets one): the probe gives them on the rows.
  const client = ctx.app.db.$client;
  client.prepare("UPDATE tags SET kind = 'fandom' WHERE name = 'lighthouses'").run();
  client.prepare("UPDATE tags SET kind = 'character' WHERE name = 'keeper'").run();
  // A source that has since lost a chapter, and a source key a refresh matches on.
  client.prepare("UPDATE story_chapters SET source_gone_at = '2024-06-01T00:00:00.000Z', source_key = '901' WHERE story_id = ? AND position = 2").run(id);
  return id;
}

/** Everything the API and the chapter rows say of the story, as a round trip must keep it. */
async function view(ctx: TestContext, id: string) {
  const story = (await ctx.get(`/api/stories/${id}`)).json() as Record<string, unknown>;
  const chapters = ctx.app.db.$client
    .prepare('SELECT position, title, content_html, content_plain, word_count, source_url, source_key, source_gone_at, created_at, updated_at FROM story_chapters WHERE story_id = ? ORDER BY position')
    .all(id);
  const tags = ctx.app.db.$client.prepare('SELECT name, kind FROM tags ORDER BY name').all();
  const { tags: storyTags, ...rest } = story;
  return { story: rest, storyTags: (storyTags as { name: string; kind: string | null }[]).map(({ name, kind }) => ({ name, kind })), chapters, tags };
}

t.test('a multi-chapter, co-authored story with typed tags makes the round trip unchanged', async (t) => {
  const source = await buildTestApp(t);
  const id = await library(source);
  const bytes = await exportArchive(source);
  const entry = (await readArchive(bytes)).get(`stories/${id}.json`) as Record<string, unknown>;
  t.match(entry, { status: 'complete', language: 'pt-BR', publishedAt: '2023-03-01T00:00:00.000Z', chaptersAddedAt: String });
  t.equal((entry.chapters as unknown[]).length, 4, 'the export carries every chapter');
  t.equal((entry.coauthorIds as unknown[]).length, 2, 'and the authors after the first');
  t.match(((await readArchive(bytes)).get('tags.jsonl') as { name: string; kind: string | null }[]).find((tag) => tag.name === 'lighthouses'), { kind: 'fandom' });

  const target = await buildTestApp(t);
  const job = await restoreArchive(target, bytes);
  t.equal(job.status, 'done');
  t.same(job.errors, []);
  const before = await view(source, id);
  const after = await view(target, id);
  t.same(after, before, 'chapters, their times and sources, authors, tag kinds and metadata as they were');
  const kinds = Object.fromEntries(after.storyTags.map(({ name, kind }) => [name, kind]));
  t.same(kinds, { keeper: 'character', lighthouses: 'fandom', rainy: null }, 'the tag kinds came back');
  t.match(after.story, { chapterCount: 4, authors: [{ name: 'Ada Shore' }, { name: 'Ben Quay' }, { name: 'Cy Reef' }] });
  const chapters = (await target.get(`/api/stories/${id}/chapters`)).json() as { title: string }[];
  t.same(chapters.map((chapter) => chapter.title), ['Dusk', 'Midnight', 'Dawn', 'Afterword'], 'the contents through the API');
  const third = (after.story.authors as { id: string }[])[2]!.id;
  t.match((await target.get(`/api/authors/${third}`)).json(), { name: 'Cy Reef', storyCount: 1 }, 'a co-author counts the story');
});

t.test('an archive written before chapters restores each story as one chapter', async (t) => {
  const source = await buildTestApp(t);
  const id = await library(source);
  const entries: Record<string, string | Buffer> = {};
  for (const [name, value] of await readArchive(await exportArchive(source))) {
    if (Buffer.isBuffer(value)) entries[name] = value;
    else if (name.endsWith('.jsonl')) entries[name] = (value as Record<string, unknown>[]).map(({ kind: _kind, ...line }) => JSON.stringify(line)).join('\n');
    else if (name === `stories/${id}.json`) {
      const { chapters: _c, coauthorIds: _a, status: _s, publishedAt: _p, sourceUpdatedAt: _u, language: _l, chaptersAddedAt: _d, ...old } = value as Record<string, unknown>;
      entries[name] = JSON.stringify(old);
    } else entries[name] = JSON.stringify(value);
  }
  const target = await buildTestApp(t);
  const job = await restoreArchive(target, await zipOf(entries));
  t.equal(job.status, 'done');
  t.same(job.errors, []);
  const story = (await target.get(`/api/stories/${id}`)).json() as Record<string, unknown>;
  const original = (await source.get(`/api/stories/${id}`)).json() as Record<string, unknown>;
  t.match(story, { chapterCount: 1, contentHtml: original.contentHtml, status: null, language: null });
  const chapters = (await target.get(`/api/stories/${id}/chapters`)).json() as { index: number; title: string; wordCount: number }[];
  t.match(chapters, [{ index: 1, title: '', wordCount: story.wordCount }]);
  t.equal(chapters.length, 1, 'the whole body is the one chapter');
});

t.test('a story with more chapters than a story may have is reported and left out', async (t) => {
  const source = await buildTestApp(t);
  const id = await library(source);
  const entries: Record<string, string | Buffer> = {};
  for (const [name, value] of await readArchive(await exportArchive(source))) {
    if (Buffer.isBuffer(value)) entries[name] = value;
    else if (name.endsWith('.jsonl')) entries[name] = (value as unknown[]).map((line) => JSON.stringify(line)).join('\n');
    else if (name === `stories/${id}.json`) {
      const story = value as { chapters: unknown[] };
      entries[name] = JSON.stringify({ ...story, chapters: Array.from({ length: CHAPTERS_MAX + 1 }, () => story.chapters[0]) });
    } else entries[name] = JSON.stringify(value);
  }
  const target = await buildTestApp(t);
  const job = await restoreArchive(target, await zipOf(entries));
  t.equal(job.status, 'done');
  t.equal(job.failed, 1);
  t.match(job.errors, [{ file: `stories/${id}.json`, error: /chapters/ }]);
  t.equal((await target.get(`/api/stories/${id}`)).statusCode, 404, 'nothing of it written');
});
