import { eq, inArray } from 'drizzle-orm';
import t from 'tap';
import { authors } from '../../src/db/schema.js';
import { AUTHOR_SORT_KEYS, type AuthorDto } from '../../src/schemas/author.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createAuthor, createStory } from '../helpers/factories.js';

async function author(ctx: TestContext, id: string): Promise<AuthorDto> {
  const res = await ctx.get(`/api/authors/${id}`);
  if (res.statusCode !== 200) throw new Error(`GET author ${id}: ${res.statusCode}`);
  return res.json() as AuthorDto;
}

/** Every item of a list, read page by page with `size`, in the order the pages give them. */
async function readAllPages(ctx: TestContext, query: string, size: number): Promise<AuthorDto[]> {
  const items: AuthorDto[] = [];
  for (let page = 0; page < 50; page += 1) {
    const body = (await ctx.get(`/api/authors?${query}&size=${size}&page=${page}`)).json();
    if (body.content.length === 0) return items;
    items.push(...body.content);
  }
  throw new Error('too many pages');
}

type SortKey = (typeof AUTHOR_SORT_KEYS)[number];
const VALUE: Record<SortKey, (a: AuthorDto) => string | number | null> = {
  name: (a) => a.name.toLowerCase(),
  createdAt: (a) => a.createdAt,
  updatedAt: (a) => a.updatedAt,
  authorRating: (a) => a.authorRating,
  averageStoryRating: (a) => a.averageStoryRating,
  storyCount: (a) => a.storyCount,
};

/** The documented order: the key (nulls last in both directions), ties by id the same way. */
function expectedOrder(items: AuthorDto[], key: SortKey, dir: 'asc' | 'desc'): string[] {
  const sign = dir === 'asc' ? 1 : -1;
  return [...items]
    .sort((a, b) => {
      const [x, y] = [VALUE[key](a), VALUE[key](b)];
      if (x === null || y === null) {
        if (x !== y) return x === null ? 1 : -1;
      } else if (x !== y) {
        return (x < y ? -1 : 1) * sign;
      }
      return (a.id < b.id ? -1 : 1) * sign;
    })
    .map((a) => a.id);
}

/**
 * Seven authors with ties under every key: equal ratings, equal averages, equal counts, equal
 * timestamps, and nulls for the two nullable keys. Stories go through the stories API.
 */
async function tiedLibrary(ctx: TestContext): Promise<Map<string, string>> {
  const spec: Array<[name: string, rating: number | null, storyRatings: Array<number | null>]> = [
    ['delta', 5, [null]],
    ['Alpha', 3, [4, 5]],
    ['charlie', null, [5, 4]],
    ['Bravo', 3, [3]],
    ['echo', null, []],
    ['Foxtrot', 3, [2, null]],
    ['golf', 1, []],
  ];
  const ids = new Map<string, string>();
  for (const [name, rating, storyRatings] of spec) {
    const created = await createAuthor(ctx, { name });
    ids.set(name, created.id);
    if (rating !== null) await ctx.put(`/api/authors/${created.id}`, { rating });
    for (const storyRating of storyRatings) await createStory(ctx, { authorName: name.toUpperCase(), rating: storyRating });
  }
  const stamp = (group: string[], column: 'createdAt' | 'updatedAt', value: string) =>
    ctx.app.db
      .update(authors)
      .set({ [column]: value })
      .where(inArray(authors.id, group.map((name) => ids.get(name) as string)))
      .run();
  stamp(['Alpha', 'Bravo', 'charlie'], 'createdAt', '2026-01-01T00:00:00.000Z');
  stamp(['delta', 'echo'], 'createdAt', '2026-01-02T00:00:00.000Z');
  stamp(['Foxtrot', 'golf'], 'createdAt', '2026-01-03T00:00:00.000Z');
  stamp(['Alpha', 'Bravo', 'charlie', 'delta', 'echo'], 'updatedAt', '2026-02-01T00:00:00.000Z');
  stamp(['Foxtrot', 'golf'], 'updatedAt', '2026-01-15T00:00:00.000Z');
  return ids;
}

t.test('every sort key, both directions: stable pages, nulls last', async (t) => {
  const ctx = await buildTestApp(t);
  const ids = await tiedLibrary(ctx);
  const all = (await ctx.get('/api/authors?size=100')).json().content as AuthorDto[];
  t.equal(all.length, 7);
  const byName = (names: string[]) => names.map((name) => ids.get(name));
  const nameOf = new Map([...ids].map(([name, id]) => [id, name]));

  const stats = Object.fromEntries(all.map((a) => [a.name, [a.storyCount, a.averageStoryRating, a.authorRating]]));
  t.same(
    stats,
    {
      delta: [1, null, 5],
      Alpha: [2, 4.5, 3],
      charlie: [2, 4.5, null],
      Bravo: [1, 3, 3],
      echo: [0, null, null],
      Foxtrot: [2, 2, 3],
      golf: [0, null, 1],
    },
    'counts and averages from the stories',
  );

  for (const key of AUTHOR_SORT_KEYS) {
    for (const dir of ['asc', 'desc'] as const) {
      const expected = expectedOrder(all, key, dir);
      const full = (await ctx.get(`/api/authors?sortBy=${key}&sortDir=${dir}&size=100`)).json().content as AuthorDto[];
      t.same(
        full.map((a) => nameOf.get(a.id)),
        expected.map((id) => nameOf.get(id)),
        `${key} ${dir}: one page`,
      );
      for (const size of [1, 2, 3]) {
        const paged = (await readAllPages(ctx, `sortBy=${key}&sortDir=${dir.toUpperCase()}`, size)).map((a) => a.id);
        t.same(paged, expected, `${key} ${dir}: pages of ${size} concatenate to the full order`);
        t.equal(new Set(paged).size, 7, `${key} ${dir}: pages of ${size} never repeat`);
      }
    }
  }

  // The documented orders, spelled out (the comparator above could share a mistake).
  const names = async (query: string) => ((await ctx.get(`/api/authors?size=100&${query}`)).json().content as AuthorDto[]).map((a) => a.name);
  t.same(await names(''), ['Alpha', 'Bravo', 'charlie', 'delta', 'echo', 'Foxtrot', 'golf'], 'default: name ascending, case-insensitive');
  t.same(await names('sortDir=desc'), ['golf', 'Foxtrot', 'echo', 'delta', 'charlie', 'Bravo', 'Alpha']);
  const ratingAsc = await names('sortBy=authorRating&sortDir=asc');
  t.same(ratingAsc.slice(0, 5).map((n) => stats[n]?.[2]), [1, 3, 3, 3, 5], 'rating ascending');
  t.same(new Set(ratingAsc.slice(5)), new Set(['charlie', 'echo']), 'unrated authors last when ascending');
  const ratingDesc = await names('sortBy=authorRating&sortDir=desc');
  t.same(ratingDesc.slice(0, 5).map((n) => stats[n]?.[2]), [5, 3, 3, 3, 1], 'rating descending');
  t.same(new Set(ratingDesc.slice(5)), new Set(['charlie', 'echo']), 'unrated authors last when descending');
  const avgAsc = await names('sortBy=averageStoryRating&sortDir=asc');
  t.same(avgAsc.slice(0, 2), ['Foxtrot', 'Bravo']);
  t.same(new Set(avgAsc.slice(2, 4)), new Set(['Alpha', 'charlie']));
  t.same(new Set(avgAsc.slice(4)), new Set(['delta', 'echo', 'golf']), 'no rated story: last when ascending');
  const avgDesc = await names('sortBy=averageStoryRating');
  t.same(new Set(avgDesc.slice(0, 2)), new Set(['Alpha', 'charlie']), 'descending by default for a non-name key');
  t.same(avgDesc.slice(2, 4), ['Bravo', 'Foxtrot']);
  t.same(new Set(avgDesc.slice(4)), new Set(['delta', 'echo', 'golf']), 'no rated story: last when descending');
  const tiedAsc = byName(['Alpha', 'Bravo', 'charlie']).sort();
  const createdAsc = (await ctx.get('/api/authors?size=3&sortBy=createdAt&sortDir=asc')).json().content as AuthorDto[];
  t.same(
    createdAsc.map((a) => a.id),
    tiedAsc,
    'equal createdAt: by id ascending',
  );
  const createdDesc = (await ctx.get('/api/authors?size=100&sortBy=createdAt&sortDir=desc')).json().content as AuthorDto[];
  t.same(
    createdDesc.slice(4).map((a) => a.id),
    [...tiedAsc].reverse(),
    'equal createdAt: by id descending',
  );
});

t.test('paged envelope arithmetic and parameter validation', async (t) => {
  const ctx = await buildTestApp(t);
  const none = (await ctx.get('/api/authors')).json();
  t.same(
    { ...none, pageable: null },
    { content: [], pageable: null, totalElements: 0, totalPages: 0, last: true, first: true, numberOfElements: 0, size: 20, number: 0, sort: { sorted: true, unsorted: false }, empty: true },
    'an empty library',
  );
  for (const name of ['a1', 'a2', 'a3', 'a4', 'a5']) await createAuthor(ctx, { name });

  const first = (await ctx.get('/api/authors?size=2')).json();
  t.same(first.content.map((a: AuthorDto) => a.name), ['a1', 'a2']);
  t.same(first.pageable, { sort: { sorted: true, unsorted: false }, pageNumber: 0, pageSize: 2, offset: 0, paged: true, unpaged: false });
  t.match(first, { totalElements: 5, totalPages: 3, first: true, last: false, numberOfElements: 2, size: 2, number: 0, empty: false });

  const middle = (await ctx.get('/api/authors?size=2&page=1')).json();
  t.same(middle.content.map((a: AuthorDto) => a.name), ['a3', 'a4']);
  t.match(middle, { first: false, last: false, number: 1, pageable: { offset: 2, pageNumber: 1 } });

  const last = (await ctx.get('/api/authors?size=2&page=2')).json();
  t.same(last.content.map((a: AuthorDto) => a.name), ['a5']);
  t.match(last, { first: false, last: true, numberOfElements: 1, totalPages: 3, pageable: { offset: 4 } });

  const past = await ctx.get('/api/authors?size=2&page=7');
  t.equal(past.statusCode, 200, 'a page past the end is not an error');
  t.match(past.json(), { content: [], totalElements: 5, totalPages: 3, first: false, last: true, empty: true, numberOfElements: 0, pageable: { offset: 14 } });

  t.match((await ctx.get('/api/authors?size=5')).json(), { totalPages: 1, first: true, last: true });

  const invalid: Array<[query: string, field: string]> = [
    ['size=0', 'size'],
    ['size=101', 'size'],
    ['size=two', 'size'],
    ['page=-1', 'page'],
    ['page=1.5', 'page'],
    ['sortBy=title', 'sortBy'],
    ['sortDir=up', 'sortDir'],
  ];
  for (const [query, field] of invalid) {
    for (const path of ['/api/authors', '/api/authors/search?query=a&']) {
      const res = await ctx.get(`${path}${path.endsWith('&') ? '' : '?'}${query}`);
      t.equal(res.statusCode, 400, `${path} ${query}`);
      t.type(res.json().details?.[field], 'string', `${path} ${query}: details.${field}`);
    }
  }
  t.equal((await ctx.get('/api/authors?size=100')).statusCode, 200);
});

t.test('search by a case-insensitive substring of the name', async (t) => {
  const ctx = await buildTestApp(t);
  for (const name of ['Joanna Russ', 'Ann Leckie', 'ANNE Rice', 'Bob', '100% Pure', 'under_score', 'Émile Zola', 'back\\slash']) {
    await createAuthor(ctx, { name });
  }
  const search = async (query: string, extra = '') => {
    const res = await ctx.get(`/api/authors/search?query=${encodeURIComponent(query)}${extra}`);
    t.equal(res.statusCode, 200, `search ${query}`);
    return res.json();
  };
  const found = await search('ann');
  t.same(found.content.map((a: AuthorDto) => a.name), ['Ann Leckie', 'ANNE Rice', 'Joanna Russ'], 'substring anywhere, by name');
  t.equal(found.totalElements, 3);
  t.equal(found.content[0].urls.length, 0);

  t.same((await search(' NN ')).content.map((a: AuthorDto) => a.name), ['Ann Leckie', 'ANNE Rice', 'Joanna Russ'], 'trimmed and case-folded');
  t.same((await search('%')).content.map((a: AuthorDto) => a.name), ['100% Pure'], '% is literal');
  t.same((await search('_')).content.map((a: AuthorDto) => a.name), ['under_score'], '_ is literal');
  t.same((await search('\\')).content.map((a: AuthorDto) => a.name), ['back\\slash'], 'backslash is literal');
  t.same((await search('ÉMILE')).content.map((a: AuthorDto) => a.name), ['Émile Zola'], 'non-ASCII case folding');
  t.equal((await search('zzz')).totalElements, 0);

  const paged = await search('ann', '&size=2&page=1');
  t.same(paged.content.map((a: AuthorDto) => a.name), ['Joanna Russ']);
  t.match(paged, { totalElements: 3, totalPages: 2, last: true, first: false });

  const missing = await ctx.get('/api/authors/search');
  t.equal(missing.statusCode, 400);
  t.type(missing.json().details.query, 'string');
  t.equal((await ctx.get('/api/authors/search?query=')).statusCode, 400, 'empty query');
});

t.test('top-rated authors', async (t) => {
  const ctx = await buildTestApp(t);
  const make = async (name: string, rating: number | null, storyRatings: Array<number | null>) => {
    const created = await createAuthor(ctx, { name });
    if (rating !== null) await ctx.put(`/api/authors/${created.id}`, { rating });
    for (const storyRating of storyRatings) await createStory(ctx, { authorName: name, rating: storyRating });
  };
  await make('zed', 5, [3]);
  await make('yara', 5, [4, 5]);
  await make('xavier', 5, []);
  await make('wanda', 4, [5, 5]);
  await make('unrated', null, [5]);
  await make('abel', 5, [5, 4]);
  await make('low', 1, [null]);

  const top = await ctx.get('/api/authors/top-rated');
  t.equal(top.statusCode, 200);
  const names = (top.json() as AuthorDto[]).map((a) => a.name);
  t.same(names, ['abel', 'yara', 'zed', 'xavier', 'wanda', 'low'], 'rating desc, then average desc (nulls last), then name; unrated left out');
  t.same(
    ((await ctx.get('/api/authors/top-rated?limit=2')).json() as AuthorDto[]).map((a) => a.name),
    ['abel', 'yara'],
  );
  t.equal((top.json() as AuthorDto[])[0]?.averageStoryRating, 4.5);

  for (let i = 0; i < 6; i += 1) await make(`extra ${i}`, 2, []);
  t.equal((await ctx.get('/api/authors/top-rated')).json().length, 10, 'default limit 10');
  t.equal((await ctx.get('/api/authors/top-rated?limit=100')).json().length, 12);
  for (const limit of ['0', '101', 'x', '-1']) {
    const res = await ctx.get(`/api/authors/top-rated?limit=${limit}`);
    t.equal(res.statusCode, 400, `limit=${limit}`);
    t.type(res.json().details.limit, 'string');
  }
});

t.test('storyCount and averageStoryRating follow the stories', async (t) => {
  const ctx = await buildTestApp(t);
  const counted = await createAuthor(ctx, { name: 'Counted' });
  const first = await createStory(ctx, { authorName: ' counted ', rating: 4 });
  t.equal(first.authorId, counted.id, 'authorName finds the author case-insensitively');
  t.match(await author(ctx, counted.id), { storyCount: 1, averageStoryRating: 4 });

  const second = await createStory(ctx, { authorId: counted.id });
  t.match(await author(ctx, counted.id), { storyCount: 2, averageStoryRating: 4 }, 'an unrated story counts but does not rate');

  t.equal((await ctx.post(`/api/stories/${second.id}/rating`, { rating: 5 })).statusCode, 200);
  t.match(await author(ctx, counted.id), { storyCount: 2, averageStoryRating: 4.5 }, 're-rated');

  t.equal((await ctx.put(`/api/stories/${first.id}`, { authorName: 'Other' })).statusCode, 200);
  const other = (await ctx.get('/api/authors/search?query=other')).json().content[0] as AuthorDto;
  t.match(await author(ctx, counted.id), { storyCount: 1, averageStoryRating: 5 }, 'moved away');
  t.match(other, { name: 'Other', storyCount: 1, averageStoryRating: 4 }, 'moved in');

  t.equal((await ctx.put(`/api/stories/${second.id}`, { rating: null })).statusCode, 200);
  t.match(await author(ctx, counted.id), { storyCount: 1, averageStoryRating: null }, 'rating removed');

  t.equal((await ctx.del(`/api/stories/${second.id}`)).statusCode, 200);
  t.match(await author(ctx, counted.id), { storyCount: 0, averageStoryRating: null }, 'story deleted');
});

t.test('deleting an author keeps its stories, unlinked', async (t) => {
  const ctx = await buildTestApp(t);
  const doomed = await createAuthor(ctx, { name: 'Doomed', urls: ['https://doomed.example'] });
  const story = await createStory(ctx, { authorId: doomed.id, rating: 3 });
  const bystander = await createStory(ctx, { authorName: 'Bystander' });

  t.equal((await ctx.del(`/api/authors/${doomed.id}`)).statusCode, 200);
  const kept = await ctx.get(`/api/stories/${story.id}`);
  t.equal(kept.statusCode, 200, 'the story is kept');
  t.match(kept.json(), { authorId: null, authorName: null, rating: 3 });
  t.equal((await ctx.get(`/api/stories/${bystander.id}`)).json().authorName, 'Bystander', 'other stories untouched');
  t.equal(ctx.app.db.select().from(authors).where(eq(authors.id, doomed.id)).all().length, 0);
  t.equal((await ctx.del(`/api/authors/${doomed.id}`)).statusCode, 404, 'deleting twice is a 404');
  t.equal((await ctx.post('/api/authors', { name: 'doomed' })).statusCode, 201, 'the name is free again');
});
