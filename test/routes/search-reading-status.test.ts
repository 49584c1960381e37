/**
 * The reader's filters on `GET /api/stories/search` (docs/decisions.md, "Reading status"):
 * `readingStatus` and `favourite`, alone and with text and the other filters, on both engines; the
 * hits carry the four fields; a change of status or mark, which moves no `updatedAt`, still reaches
 * Typesense; bad values are a 400 naming the field.
 */
import t, { type Test } from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import { startFakeTypesense } from '../helpers/fake-typesense/index.js';
import { AUTHORS, buildTypesenseApp, drained, ENGINES, engineWorld, STORIES, waitFor, type TypesenseContext } from '../helpers/fake-typesense/app.js';
import { collectionSchema } from '../../src/search/typesense/schema.js';
import { StorySearchResult, type StorySearchDto } from '../../src/schemas/search.js';
import { assertMatches } from '../helpers/schema.js';


async function search(t: Test, ctx: TestContext, query: string): Promise<{ titles: string[]; totalHits: number; results: StorySearchDto[] }> {
  const res = await ctx.get(`/api/stories/search?${query}`);
  t.equal(res.statusCode, 200, `${query}: 200`);
  assertMatches(t, StorySearchResult, res.json());
  const body = res.json() as { results: StorySearchDto[]; totalHits: number };
  return { titles: body.results.map((hit) => hit.title).sort(), totalHits: body.totalHits, results: body.results };
}

/** Six stories: "Lamp" ones mention a lamp; statuses and favourites spread over them. */
const LIBRARY = [
  { title: 'Lamp one', status: 'reading', favourite: true, tags: ['sea'] },
  { title: 'Lamp two', status: 'reading', favourite: false, tags: [] },
  { title: 'Lamp three', status: 'finished', favourite: true, tags: ['sea'] },
  { title: 'Dune four', status: 'want-to-read', favourite: false, tags: ['sea'] },
  { title: 'Dune five', status: null, favourite: true, tags: [] },
  { title: 'Dune six', status: 'abandoned', favourite: false, tags: [] },
] as const;

for (const engine of ENGINES) {
  t.test(`${engine}: readingStatus and favourite filter, alone and with the others`, async (t) => {
    const w = await engineWorld(t, engine);
    const ids = new Map<string, string>();
    for (const spec of LIBRARY) {
      const story = await createStory(w.ctx, { title: spec.title, tagNames: spec.tags, contentHtml: `<p>${spec.title.startsWith('Lamp') ? 'A lamp.' : 'Sand.'}</p>` });
      ids.set(spec.title, story.id);
      if (spec.status !== null) await w.ctx.put(`/api/stories/${story.id}/reading-status`, { status: spec.status });
      if (spec.favourite) await w.ctx.put(`/api/stories/${story.id}/favourite`, { favourite: true });
    }
    await w.settle();
    const titles = (filter: (spec: (typeof LIBRARY)[number]) => boolean) => LIBRARY.filter(filter).map((spec) => spec.title).sort();

    const reading = await search(t, w.ctx, 'query=*&readingStatus=reading');
    t.same(reading.titles, titles((spec) => spec.status === 'reading'));
    t.equal(reading.totalHits, 2);
    t.same((await search(t, w.ctx, 'query=*&readingStatus=on-hold')).totalHits, 0, 'a status no story has: nothing');
    t.same((await search(t, w.ctx, 'query=*&favourite=true')).titles, titles((spec) => spec.favourite));
    t.same((await search(t, w.ctx, 'query=*&favourite=false')).titles, titles((spec) => !spec.favourite), 'false: the others');
    t.same((await search(t, w.ctx, 'query=lamp&favourite=true')).titles, ['Lamp one', 'Lamp three'], 'with text');
    t.same((await search(t, w.ctx, 'query=*&readingStatus=reading&favourite=true')).titles, ['Lamp one'], 'both');
    t.same((await search(t, w.ctx, 'query=*&tags=sea&favourite=false')).titles, ['Dune four'], 'with a tag');
    const sorted = await search(t, w.ctx, 'query=*&favourite=true&sortBy=title&sortDir=asc&size=2');
    t.equal(sorted.totalHits, 3, 'the total counts every match, not the page');
    t.same(sorted.results.map((hit) => hit.title), ['Dune five', 'Lamp one'], 'sorted and paged');

    const hit = (await search(t, w.ctx, 'query=three')).results[0];
    t.match(hit, { title: 'Lamp three', readingStatus: 'finished', readCount: 1, favourite: true }, 'a hit carries the reader fields');
    t.match(hit?.finishedAt, /^\d{4}-\d\d-\d\dT/, 'and when it was finished');
    const plain = (await search(t, w.ctx, 'query=five')).results[0];
    t.match(plain, { readingStatus: null, finishedAt: null, readCount: 0, favourite: true });

    // A change moves no updatedAt: it must reach the index all the same.
    await w.ctx.put(`/api/stories/${ids.get('Dune six')}/reading-status`, { status: 'reading' });
    await w.ctx.put(`/api/stories/${ids.get('Lamp one')}/favourite`, { favourite: false });
    await w.ctx.put(`/api/stories/${ids.get('Dune four')}/progress`, { progress: 0.5, position: null });
    await w.settle();
    t.same((await search(t, w.ctx, 'query=*&readingStatus=reading')).titles, ['Dune four', 'Dune six', 'Lamp one', 'Lamp two'], 'set by hand and by reading');
    t.same((await search(t, w.ctx, 'query=*&favourite=true')).titles, ['Dune five', 'Lamp three']);
  });
}

t.test('typesense: the documents carry the reader fields and follow their changes', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx: TypesenseContext = await buildTypesenseApp(t, fake);
  const story = await createStory(ctx, { title: 'Watched' });
  await drained(ctx);
  t.match(fake.document(STORIES, story.id), { readCount: 0, favourite: false }, 'a new story: no status, not a favourite');
  t.notOk('readingStatus' in (fake.document(STORIES, story.id) ?? {}), 'an unset status is left out');
  await ctx.put(`/api/stories/${story.id}/progress`, { progress: 1, position: null });
  await ctx.put(`/api/stories/${story.id}/favourite`, { favourite: true });
  await drained(ctx);
  const row = ctx.app.db.$client.prepare('SELECT finished_at FROM stories WHERE id = ?').pluck().get(story.id) as string;
  t.match(fake.document(STORIES, story.id), { readingStatus: 'finished', readCount: 1, favourite: true, finishedAt: Date.parse(row) });
});

t.test('typesense: collections made before the reader fields are rebuilt at start-up, and then answer the filters', async (t) => {
  const fake = await startFakeTypesense(t);
  // What an older version left: its collections and aliases, without the fields it did not know.
  const newer = ['readingStatus', 'finishedAt', 'readCount', 'favourite'];
  for (const [kind, alias] of [['stories', STORIES], ['authors', AUTHORS]] as const) {
    const schema = collectionSchema(kind, `${alias}_1`);
    fake.store.createCollection({ ...schema, fields: schema.fields?.filter((field) => !newer.includes(field.name)) });
    fake.store.upsertAlias(alias, { collection_name: `${alias}_1` });
  }
  const ctx = await buildTypesenseApp(t, fake);
  await waitFor(() => fake.aliasTarget(STORIES) !== `${STORIES}_1`, 'the stories collection to be rebuilt');
  const story = await createStory(ctx, { title: 'Upgraded' });
  await ctx.put(`/api/stories/${story.id}/favourite`, { favourite: true });
  await drained(ctx);
  const before = fake.requests.filter((request) => request.path.endsWith('/documents/search')).length;
  const res = await ctx.get('/api/stories/search?query=*&favourite=true&readingStatus=want-to-read&facets=true');
  t.equal(res.statusCode, 200);
  t.equal(fake.requests.filter((request) => request.path.endsWith('/documents/search')).length, before + 1, 'Typesense was asked');
  t.equal(res.json().totalHits, 0, 'and answered: no favourite is want-to-read');
  const favourites = await ctx.get('/api/stories/search?query=*&favourite=true&facets=true');
  t.same(favourites.json().results.map((hit: { id: string }) => hit.id), [story.id]);
  t.equal(favourites.json().facets.favourites, 1);
});

t.test('bad filter values are a 400 naming the field', async (t) => {
  const ctx = await buildTestApp(t);
  for (const [query, field] of [
    ['readingStatus=done', 'readingStatus'],
    ['readingStatus=', 'readingStatus'],
    ['readingStatus=READING', 'readingStatus'],
    ['favourite=yes', 'favourite'],
    ['favourite=2', 'favourite'],
  ] as const) {
    const res = await ctx.get(`/api/stories/search?query=*&${query}`);
    t.equal(res.statusCode, 400, `${query}: 400`);
    t.ok(res.json().details?.[field], `${query}: names ${field}`);
  }
});
