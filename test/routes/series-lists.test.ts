import { inArray } from 'drizzle-orm';
import t from 'tap';
import { series } from '../../src/db/schema.js';
import { SERIES_SORT_KEYS, type SeriesDto } from '../../src/schemas/series.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createSeries, createStory } from '../helpers/factories.js';

const names = (items: SeriesDto[]) => items.map((item) => item.name);

async function one(ctx: TestContext, id: string): Promise<SeriesDto> {
  return (await ctx.get(`/api/series/${id}`)).json() as SeriesDto;
}

type SortKey = (typeof SERIES_SORT_KEYS)[number];
const VALUE: Record<SortKey, (s: SeriesDto) => string | number> = {
  name: (s) => s.name.toLowerCase(),
  createdAt: (s) => s.createdAt,
  storyCount: (s) => s.storyCount,
};

function expectedOrder(items: SeriesDto[], key: SortKey, dir: 'asc' | 'desc'): string[] {
  const sign = dir === 'asc' ? 1 : -1;
  return [...items]
    .sort((a, b) => {
      const [x, y] = [VALUE[key](a), VALUE[key](b)];
      if (x !== y) return (x < y ? -1 : 1) * sign;
      return (a.id < b.id ? -1 : 1) * sign;
    })
    .map((s) => s.id);
}

/** Six series with tied story counts and tied creation times; stories through the stories API. */
async function tiedSeries(ctx: TestContext): Promise<void> {
  const counts: Array<[string, number]> = [
    ['Delta', 2],
    ['alpha', 0],
    ['Charlie', 2],
    ['bravo', 1],
    ['echo', 0],
    ['Foxtrot', 2],
  ];
  const ids: string[] = [];
  for (const [name, stories] of counts) {
    ids.push((await createSeries(ctx, { name })).id);
    for (let i = 0; i < stories; i += 1) await createStory(ctx, { seriesName: name, volume: i + 1 });
  }
  const stamp = (which: number[], value: string) =>
    ctx.app.db
      .update(series)
      .set({ createdAt: value })
      .where(inArray(series.id, which.map((i) => ids[i] as string)))
      .run();
  stamp([0, 1, 2], '2026-01-01T00:00:00.000Z');
  stamp([3, 4, 5], '2026-01-02T00:00:00.000Z');
}

t.test('series sorts: stable pages under every key and direction', async (t) => {
  const ctx = await buildTestApp(t);
  await tiedSeries(ctx);
  const all = (await ctx.get('/api/series?size=100')).json().content as SeriesDto[];
  t.same(names(all), ['alpha', 'bravo', 'Charlie', 'Delta', 'echo', 'Foxtrot'], 'default: name ascending, case-insensitive');
  t.same(
    all.map((s) => s.storyCount),
    [0, 1, 2, 2, 0, 2],
    'story counts',
  );

  for (const key of SERIES_SORT_KEYS) {
    for (const dir of ['asc', 'desc'] as const) {
      const expected = expectedOrder(all, key, dir);
      for (const size of [1, 2, 4]) {
        const seen: string[] = [];
        for (let page = 0; page < 10; page += 1) {
          const body = (await ctx.get(`/api/series?sortBy=${key}&sortDir=${dir}&size=${size}&page=${page}`)).json();
          if (body.content.length === 0) break;
          seen.push(...body.content.map((s: SeriesDto) => s.id));
        }
        t.same(seen, expected, `${key} ${dir}: pages of ${size} concatenate to the documented order`);
      }
    }
  }

  const byCount = (await ctx.get('/api/series?sortBy=storyCount&size=3')).json();
  t.same(
    byCount.content.map((s: SeriesDto) => s.storyCount),
    [2, 2, 2],
    'storyCount: descending by default',
  );
  const tied = all.filter((s) => s.storyCount === 2).map((s) => s.id);
  t.same(
    byCount.content.map((s: SeriesDto) => s.id),
    [...tied].sort().reverse(),
    'equal counts: by id descending',
  );
  t.same(names((await ctx.get('/api/series?sortDir=DESC&size=2')).json().content), ['Foxtrot', 'echo']);

  const invalid: Array<[query: string, field: string]> = [
    ['sortBy=rating', 'sortBy'],
    ['sortDir=sideways', 'sortDir'],
    ['size=0', 'size'],
    ['size=101', 'size'],
    ['page=-1', 'page'],
  ];
  for (const [query, field] of invalid) {
    const res = await ctx.get(`/api/series?${query}`);
    t.equal(res.statusCode, 400, query);
    t.type(res.json().details?.[field], 'string', `${query}: details.${field}`);
  }
});

t.test('series envelope and search', async (t) => {
  const ctx = await buildTestApp(t);
  for (const name of ['Foundation', 'Dune', 'Dune Messiah', 'The Dark Tower', '50% Off', 'snake_case']) await createSeries(ctx, { name });

  const page = (await ctx.get('/api/series?size=4&page=1')).json();
  t.same(names(page.content), ['snake_case', 'The Dark Tower'], 'by name: 50% Off, Dune, Dune Messiah, Foundation | snake_case, The Dark Tower');
  t.match(page, {
    totalElements: 6,
    totalPages: 2,
    first: false,
    last: true,
    numberOfElements: 2,
    size: 4,
    number: 1,
    empty: false,
    sort: { sorted: true, unsorted: false },
    pageable: { pageNumber: 1, pageSize: 4, offset: 4, paged: true, unpaged: false },
  });
  const past = await ctx.get('/api/series?size=4&page=2');
  t.equal(past.statusCode, 200);
  t.match(past.json(), { content: [], empty: true, last: true, first: false, totalPages: 2 });

  const search = async (query: string, extra = '') => (await ctx.get(`/api/series/search?query=${encodeURIComponent(query)}${extra}`)).json();
  t.same(names((await search('DUNE')).content), ['Dune', 'Dune Messiah'], 'case-insensitive, by name');
  t.same(names((await search('a')).content), ['Dune Messiah', 'Foundation', 'snake_case', 'The Dark Tower']);
  t.same(names((await search('%')).content), ['50% Off'], '% is literal');
  t.same(names((await search('_')).content), ['snake_case'], '_ is literal');
  const paged = await search('a', '&size=3&page=1');
  t.same(names(paged.content), ['The Dark Tower']);
  t.match(paged, { totalElements: 4, totalPages: 2, last: true, first: false, numberOfElements: 1 });
  const missing = await ctx.get('/api/series/search');
  t.equal(missing.statusCode, 400);
  t.type(missing.json().details.query, 'string');
});

t.test('with-stories, popular, empty and stats', async (t) => {
  const ctx = await buildTestApp(t);
  t.same((await ctx.get('/api/series/stats')).json(), { totalSeries: 0, seriesWithStories: 0, emptySeries: 0 });
  t.same((await ctx.get('/api/series/popular')).json(), []);

  const plan: Array<[string, number]> = [
    ['Mid', 2],
    ['big', 3],
    ['Also Mid', 2],
    ['small', 1],
    ['Unused B', 0],
    ['unused a', 0],
  ];
  for (const [name, stories] of plan) {
    await createSeries(ctx, { name });
    for (let i = 0; i < stories; i += 1) await createStory(ctx, { seriesName: name });
  }

  const withStories = await ctx.get('/api/series/with-stories');
  t.equal(withStories.statusCode, 200);
  t.same(names(withStories.json()), ['Also Mid', 'big', 'Mid', 'small'], 'only series with stories, by name');
  t.same(names((await ctx.get('/api/series/with-stories?limit=2')).json()), ['Also Mid', 'big']);

  t.same(names((await ctx.get('/api/series/popular')).json()), ['big', 'Also Mid', 'Mid', 'small'], 'most stories first, then name');
  t.same(names((await ctx.get('/api/series/popular?limit=3')).json()), ['big', 'Also Mid', 'Mid']);

  t.same(names((await ctx.get('/api/series/empty')).json()), ['unused a', 'Unused B'], 'by name');
  t.same((await ctx.get('/api/series/stats')).json(), { totalSeries: 6, seriesWithStories: 4, emptySeries: 2 });

  for (const path of ['/api/series/with-stories', '/api/series/popular']) {
    for (const limit of ['0', '101', 'many']) {
      const res = await ctx.get(`${path}?limit=${limit}`);
      t.equal(res.statusCode, 400, `${path}?limit=${limit}`);
      t.type(res.json().details.limit, 'string');
    }
    t.equal((await ctx.get(`${path}?limit=100`)).statusCode, 200);
  }
});

t.test('default limits of with-stories (20) and popular (10)', async (t) => {
  const ctx = await buildTestApp(t);
  for (let i = 0; i < 22; i += 1) {
    const name = `s${String(i).padStart(2, '0')}`;
    await createSeries(ctx, { name });
    await createStory(ctx, { seriesName: name });
  }
  const withStories = (await ctx.get('/api/series/with-stories')).json() as SeriesDto[];
  t.equal(withStories.length, 20);
  t.equal(withStories[19]?.name, 's19');
  t.equal((await ctx.get('/api/series/popular')).json().length, 10);
});

t.test('storyCount follows the stories', async (t) => {
  const ctx = await buildTestApp(t);
  const first = await createSeries(ctx, { name: 'First' });
  const second = await createSeries(ctx, { name: 'Second' });
  const a = await createStory(ctx, { seriesName: ' FIRST ' });
  t.equal(a.seriesId, first.id, 'seriesName finds the series case-insensitively');
  const b = await createStory(ctx, { seriesId: first.id });
  t.equal((await one(ctx, first.id)).storyCount, 2);

  t.equal((await ctx.put(`/api/stories/${a.id}`, { seriesId: second.id })).statusCode, 200);
  t.equal((await one(ctx, first.id)).storyCount, 1, 'moved away');
  t.equal((await one(ctx, second.id)).storyCount, 1, 'moved in');

  t.equal((await ctx.put(`/api/stories/${b.id}`, { seriesId: null })).statusCode, 200);
  t.equal((await one(ctx, first.id)).storyCount, 0, 'unlinked');
  t.same(names((await ctx.get('/api/series/empty')).json()), ['First']);

  t.equal((await ctx.del(`/api/stories/${a.id}`)).statusCode, 200);
  t.equal((await one(ctx, second.id)).storyCount, 0, 'story deleted');
  t.same((await ctx.get('/api/series/stats')).json(), { totalSeries: 2, seriesWithStories: 0, emptySeries: 2 });
});
