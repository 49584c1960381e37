import t from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory, createTag } from '../helpers/factories.js';

async function suggest(ctx: TestContext, query: string, limit?: number): Promise<string[]> {
  const res = await ctx.get(`/api/stories/search/suggestions?query=${encodeURIComponent(query)}${limit === undefined ? '' : `&limit=${limit}`}`);
  if (res.statusCode !== 200) throw new Error(`suggestions failed: ${res.statusCode} ${res.body}`);
  return res.json() as string[];
}

t.test('suggestions: titles and names with a word starting with the text, deduplicated, best first', async (t) => {
  const ctx = await buildTestApp(t);
  await createStory(ctx, { title: 'The Dark Forest', authorName: 'Dara Quinn', tagNames: ['dragons'] });
  await createStory(ctx, { title: 'Dragons of Autumn', tagNames: ['dragons'], seriesName: 'Dragonlance' });
  await createStory(ctx, { title: 'Dragons', tagNames: ['dragons'] });
  await createStory(ctx, { title: 'Café Society', authorName: 'Dara Quinn' });
  await createStory(ctx, { title: 'A Supercalifragilistic Day' });
  await createTag(ctx, 'drama');

  t.same(await suggest(ctx, 'dra'), ['dragons', 'Dragonlance', 'Dragons of Autumn'], 'most used first (the tag: 3 stories); the "Dragons" title is the same text');
  t.same(await suggest(ctx, 'DRAGONS'), ['dragons', 'Dragons of Autumn'], 'case-insensitive');
  t.same(await suggest(ctx, 'da'), ['Dara Quinn', 'The Dark Forest', 'A Supercalifragilistic Day'], 'a name used twice first; then first words, then shorter');
  t.same(await suggest(ctx, 'fores'), ['The Dark Forest'], 'a word inside the text');
  t.same(await suggest(ctx, 'dark fo'), ['The Dark Forest'], 'several words, the last a prefix');
  t.same(await suggest(ctx, 'forest dark'), [], 'the words must follow each other');
  t.same(await suggest(ctx, 'cafe'), ['Café Society'], 'diacritic-insensitive');
  t.same(await suggest(ctx, 'CAFÉ SOC'), ['Café Society']);
  t.same(await suggest(ctx, 'supercalifragil'), ['A Supercalifragilistic Day'], 'words longer than the indexed prefixes');
  t.same(await suggest(ctx, 'supercalifragilx'), []);
  t.same(await suggest(ctx, 'drama'), [], 'a tag no story uses is not suggested');
  t.same(await suggest(ctx, 'x'), []);
  t.same(await suggest(ctx, '  '), [], 'blank text suggests nothing');
  t.same(await suggest(ctx, '"(*'), []);
  t.same(await suggest(ctx, 'd', 2), ['dragons', 'Dara Quinn'], 'limit');
  t.same(await suggest(ctx, 'd'), ['dragons', 'Dara Quinn', 'Dragonlance', 'Dragons of Autumn', 'The Dark Forest'], 'default limit 5');
  t.same(await suggest(ctx, 'd', 100), ['dragons', 'Dara Quinn', 'Dragonlance', 'Dragons of Autumn', 'The Dark Forest', 'A Supercalifragilistic Day']);
});

t.test('suggestions follow renames and deletes', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, { title: 'Moonrise', authorName: 'Mona Vale', tagNames: ['mystery'] });
  t.same(await suggest(ctx, 'mo'), ['Moonrise', 'Mona Vale'], 'equally used: the shorter first');
  await ctx.put(`/api/stories/${story.id}`, { title: 'Sunset' });
  t.same(await suggest(ctx, 'mo'), ['Mona Vale']);
  await ctx.put(`/api/authors/${story.authorId}`, { name: 'Nora Vale' });
  t.same(await suggest(ctx, 'mo'), []);
  t.same(await suggest(ctx, 'vale'), ['Nora Vale']);
  t.same(await suggest(ctx, 'my'), ['mystery']);
  await ctx.del(`/api/stories/${story.id}`);
  t.same(await suggest(ctx, 'my'), [], 'a tag left without stories is no longer suggested');
  t.same(await suggest(ctx, 'sun'), []);
  t.same(await suggest(ctx, 'vale'), [], 'an author without stories neither');
});

t.test('suggestion parameters are validated', async (t) => {
  const ctx = await buildTestApp(t);
  for (const [query, field] of [
    ['', 'query'],
    ['?limit=3', 'query'],
    ['?query=a&limit=0', 'limit'],
    ['?query=a&limit=101', 'limit'],
    ['?query=a&limit=x', 'limit'],
  ] as const) {
    const res = await ctx.get(`/api/stories/search/suggestions${query}`);
    t.equal(res.statusCode, 400, query);
    t.type(res.json().details?.[field], 'string');
  }
  t.equal((await ctx.app.inject({ method: 'GET', url: '/api/stories/search/suggestions?query=a' })).statusCode, 401);
});

t.test('health names the embedded engine; reindex and health need a token', async (t) => {
  const ctx = await buildTestApp(t);
  const health = await ctx.get('/api/search/health');
  t.equal(health.statusCode, 200);
  t.same(Object.keys(health.json()).sort(), ['engine', 'message', 'status']);
  t.equal(health.json().status, 'healthy');
  t.equal(health.json().engine, 'embedded');
  t.match(health.json().message, /SQLite FTS5/);
  t.equal((await ctx.app.inject({ method: 'GET', url: '/api/search/health' })).statusCode, 401);
  t.equal((await ctx.app.inject({ method: 'POST', url: '/api/search/reindex' })).statusCode, 401);
  const reindex = await ctx.post('/api/search/reindex');
  t.equal(reindex.statusCode, 200);
  t.same(reindex.json(), { message: 'Search index rebuilt: 0 stories indexed', storiesCount: 0 });
  t.equal((await ctx.get('/api/stories/search?query=*')).json().totalHits, 0, 'an empty library searches fine');
  t.same(await suggest(ctx, 'a'), []);
});

/**
 * Keys hold a rank bucket (src/search/embedded/suggestions.ts, rankBucket): names with 32-33 stories share
 * one, so the walk must rank a bucket by the exact count, and a count that moves within its
 * bucket must still reorder the suggestions.
 */
t.test('names whose story counts share a rank bucket are still ordered by the exact count', async (t) => {
  const ctx = await buildTestApp(t);
  const addStories = async (tag: string, count: number) => {
    for (let i = 0; i < count; i += 1) await createStory(ctx, { title: `Filler ${i}`, tagNames: [tag] });
  };
  // Created first, so it has the lower id: the key order alone would put it first.
  await addStories('quill alpha', 32);
  await addStories('quill gamma', 33);
  t.same(await suggest(ctx, 'quill'), ['quill gamma', 'quill alpha'], '33 stories before 32, although both are in one bucket and alpha is older (names of one length)');
  await addStories('quill alpha', 2);
  t.same(await suggest(ctx, 'quill'), ['quill alpha', 'quill gamma'], 'alpha, now at 34 (the next bucket), first');
  await addStories('quill gamma', 1);
  t.same(await suggest(ctx, 'quill'), ['quill alpha', 'quill gamma'], '34 vs 34: the same count, the older name first');
  await addStories('quill gamma', 1);
  t.same(await suggest(ctx, 'quill', 1), ['quill gamma'], 'gamma at 35 (the bucket of 34) ranks first even with limit 1');
});
