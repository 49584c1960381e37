import t, { type Test } from 'tap';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { stories } from '../../src/db/schema.js';
import { STORY_SORT_KEYS, type StorySortKey } from '../../src/schemas/story.js';

interface Story {
  id: string;
  title: string;
  rating: number | null;
  wordCount: number;
  volume: number | null;
  authorName: string | null;
  seriesName: string | null;
  createdAt: string;
  updatedAt: string;
}

type SortValue = string | number | null;

/** The value each sort key orders by, as docs/decisions.md, "Lists and pagination", defines it (names and titles case-insensitive). */
const SORT_VALUE: Record<StorySortKey, (story: Story) => SortValue> = {
  createdAt: (s) => s.createdAt,
  updatedAt: (s) => s.updatedAt,
  title: (s) => s.title.toLowerCase(),
  rating: (s) => s.rating,
  wordCount: (s) => s.wordCount,
  volume: (s) => s.volume,
  authorName: (s) => s.authorName?.toLowerCase() ?? null,
  seriesName: (s) => s.seriesName?.toLowerCase() ?? null,
};

/** The documented order: by the key in the direction, nulls last either way, ties by id in the direction. */
function expectedOrder(list: readonly Story[], sortBy: StorySortKey, dir: 'asc' | 'desc'): string[] {
  const sign = dir === 'asc' ? 1 : -1;
  const value = SORT_VALUE[sortBy];
  return [...list]
    .sort((a, b) => {
      const [va, vb] = [value(a), value(b)];
      if (va === null && vb !== null) return 1;
      if (vb === null && va !== null) return -1;
      if (va !== null && vb !== null && va !== vb) return (va < vb ? -1 : 1) * sign;
      return (a.id < b.id ? -1 : 1) * sign;
    })
    .map((s) => s.id);
}

/** Every page of a list concatenated, checking that no page is larger than asked. */
async function walkPages(t: Test, ctx: TestContext, base: string, size: number): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 0; page < 50; page += 1) {
    const res = await ctx.get(`${base}&size=${size}&page=${page}`);
    if (res.statusCode !== 200) throw new Error(`${base} page ${page}: ${res.statusCode} ${res.body}`);
    const body = res.json() as { content: Story[]; last: boolean };
    if (body.content.length > size) t.fail(`page ${page} of ${base} has ${body.content.length} > ${size} items`);
    ids.push(...body.content.map((s) => s.id));
    if (body.last) return ids;
  }
  throw new Error('too many pages');
}

async function checkEveryOrder(t: Test, ctx: TestContext, path: string, list: readonly Story[], keys: readonly StorySortKey[]) {
  for (const sortBy of keys) {
    for (const dir of ['asc', 'desc'] as const) {
      const expected = expectedOrder(list, sortBy, dir);
      const full = (await ctx.get(`${path}?sortBy=${sortBy}&sortDir=${dir}&size=100`)).json() as { content: Story[]; totalElements: number };
      t.same(full.content.map((s) => s.id), expected, `${path} ${sortBy} ${dir}: documented order`);
      t.equal(full.totalElements, list.length);
      for (const size of [1, 2, 3]) {
        const walked = await walkPages(t, ctx, `${path}?sortBy=${sortBy}&sortDir=${dir.toUpperCase()}`, size);
        t.same(walked, expected, `${path} ${sortBy} ${dir}, pages of ${size}: same order, no repeats, no gaps`);
      }
    }
  }
}

/** Stories with many equal sort values, nulls in every nullable key, names equal up to case. */
async function seedTies(ctx: TestContext): Promise<Story[]> {
  const words = (n: number) => (n === 0 ? null : `<p>${Array.from({ length: n }, (_, i) => `w${i}`).join(' ')}</p>`);
  const rows = [
    { title: 'apple', rating: 5, words: 2, volume: 1, authorName: 'Ann', seriesName: 'Saga', created: 1, updated: 1 },
    { title: 'Apple', rating: 5, words: 2, volume: 1, authorName: 'ann', seriesName: 'saga', created: 1, updated: 1 },
    { title: 'banana', rating: null, words: 3, volume: null, authorName: null, seriesName: null, created: 1, updated: 1 },
    { title: 'BANANA', rating: 3, words: 3, volume: 0, authorName: 'bob', seriesName: 'Arc', created: 2, updated: 1 },
    { title: 'cherry', rating: null, words: 0, volume: null, authorName: 'Bob', seriesName: null, created: 2, updated: 2 },
    { title: 'apple', rating: 3, words: 2, volume: 1, authorName: null, seriesName: 'Arc', created: 3, updated: 2 },
    { title: 'date', rating: 1, words: 5, volume: null, authorName: 'Cy', seriesName: 'Saga', created: 3, updated: 2 },
    { title: 'Elder', rating: null, words: 0, volume: 7, authorName: null, seriesName: null, created: 3, updated: 3 },
  ];
  for (const row of rows) {
    const { words: count, created, updated, ...body } = row;
    const res = await ctx.post('/api/stories', { ...body, contentHtml: words(count) });
    if (res.statusCode !== 201) throw new Error(res.body);
    // Equal timestamps cannot be made through the API: set them directly.
    ctx.app.db
      .update(stories)
      .set({ createdAt: `2026-01-0${created}T00:00:00.000Z`, updatedAt: `2026-02-0${updated}T00:00:00.000Z` })
      .where(eq(stories.id, res.json().id))
      .run();
  }
  return (await ctx.get('/api/stories?size=100')).json().content as Story[];
}

t.test('every sort key, both directions: ties by id, nulls last, pages concatenate exactly', async (t) => {
  const ctx = await buildTestApp(t);
  const list = await seedTies(ctx);
  t.equal(list.length, 8);
  t.ok(list.filter((s) => s.authorName?.toLowerCase() === 'ann').length === 2, 'two stories share an author');
  await checkEveryOrder(t, ctx, '/api/stories', list, STORY_SORT_KEYS);
});

t.test('default order is createdAt desc; sortDir alone applies to createdAt; default direction is desc', async (t) => {
  const ctx = await buildTestApp(t);
  const list = await seedTies(ctx);
  const ids = async (query: string) => ((await ctx.get(`/api/stories${query}`)).json().content as Story[]).map((s) => s.id);
  t.same(await ids(''), expectedOrder(list, 'createdAt', 'desc'));
  t.same(await ids('?sortDir=asc'), expectedOrder(list, 'createdAt', 'asc'));
  t.same(await ids('?sortBy=title'), expectedOrder(list, 'title', 'desc'), 'sortDir defaults to desc (docs/api.md, "Sorting")');
  t.same(await ids('?sortBy=rating&sortDir=Asc'), expectedOrder(list, 'rating', 'asc'), 'sortDir is case-insensitive');
});

t.test('scoped lists take the same sorts with the same tie-breaking', async (t) => {
  const ctx = await buildTestApp(t);
  const list = await seedTies(ctx);
  // Tag five of the eight stories, and give two of them a shared author.
  const tagged = [list[0], list[2], list[3], list[4], list[6]] as Story[];
  for (const story of tagged) {
    const res = await ctx.put(`/api/stories/${story.id}`, { tagNames: ['scoped'] });
    if (res.statusCode !== 200) throw new Error(res.body);
  }
  const fresh = (await ctx.get('/api/stories?size=100')).json().content as Story[];
  const scoped = fresh.filter((s) => tagged.some((x) => x.id === s.id));
  await checkEveryOrder(t, ctx, '/api/stories/tags/Scoped', scoped, STORY_SORT_KEYS);

  const bob = fresh.find((s) => s.authorName === 'bob') as Story & { authorId: string };
  const bobs = fresh.filter((s) => s.authorName === 'bob');
  t.equal(bobs.length, 2);
  await checkEveryOrder(t, ctx, `/api/stories/author/${bob.authorId}`, bobs, ['createdAt', 'title', 'rating', 'volume', 'authorName']);
});

t.test('name sorts stay exact after stories move between authors and series or are deleted', async (t) => {
  const ctx = await buildTestApp(t);
  let list = await seedTies(ctx);
  const date = list.find((s) => s.title === 'date') as Story;
  const banana = list.find((s) => s.title === 'BANANA') as Story;
  const elder = list.find((s) => s.title === 'Elder') as Story;
  await ctx.put(`/api/stories/${date.id}`, { authorName: 'ANN', seriesName: 'Arc' });
  await ctx.put(`/api/stories/${elder.id}`, { authorName: 'Zed', seriesName: 'Zulu' });
  await ctx.del(`/api/stories/${banana.id}`);
  for (let i = 0; i < 3; i += 1) await ctx.post('/api/stories', { title: `extra ${i}`, authorName: 'Ann', seriesName: 'Middle' });
  list = (await ctx.get('/api/stories?size=100')).json().content as Story[];
  t.equal(list.length, 10);
  t.equal(list.filter((s) => s.authorName?.toLowerCase() === 'ann').length, 6, 'one author spans several pages');
  await checkEveryOrder(t, ctx, '/api/stories', list, ['authorName', 'seriesName']);
});
