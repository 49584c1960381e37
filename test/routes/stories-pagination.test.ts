import t from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import { StoryPage } from '../../src/schemas/story.js';
import { assertMatches } from '../helpers/schema.js';

async function page(ctx: TestContext, query: string) {
  const res = await ctx.get(`/api/stories${query}`);
  if (res.statusCode !== 200) throw new Error(`${query}: ${res.statusCode} ${res.body}`);
  return res.json();
}

t.test('envelope arithmetic of docs/decisions.md, "Lists and pagination"', async (t) => {
  const ctx = await buildTestApp(t);
  for (let i = 0; i < 5; i += 1) await createStory(ctx, { tagNames: [`t${i % 2}`], authorName: 'Paged Author' });

  const first = await page(ctx, '?size=2');
  assertMatches(t, StoryPage, first, `matches the StoryPage schema`);
  t.match(first, {
    totalElements: 5,
    totalPages: 3,
    first: true,
    last: false,
    numberOfElements: 2,
    size: 2,
    number: 0,
    empty: false,
    sort: { sorted: true, unsorted: false },
    pageable: { sort: { sorted: true, unsorted: false }, pageNumber: 0, pageSize: 2, offset: 0, paged: true, unpaged: false },
  });
  t.equal(first.content.length, 2);
  t.ok(first.content.every((s: { tags: unknown[] }) => s.tags.length === 1), 'list items are full stories with their tags');
  t.ok(first.content.every((s: { authorName: string }) => s.authorName === 'Paged Author'));

  const middle = await page(ctx, '?size=2&page=1');
  t.match(middle, { first: false, last: false, number: 1, numberOfElements: 2, pageable: { offset: 2, pageNumber: 1 } });

  const lastPage = await page(ctx, '?size=2&page=2');
  t.match(lastPage, { first: false, last: true, number: 2, numberOfElements: 1, empty: false, pageable: { offset: 4 } });

  const past = await page(ctx, '?size=2&page=3');
  t.same(past.content, [], 'a page past the end is empty, not an error');
  t.match(past, { totalElements: 5, totalPages: 3, first: false, last: true, empty: true, numberOfElements: 0, number: 3, pageable: { offset: 6 } });

  const farPast = await page(ctx, '?page=1000000');
  t.match(farPast, { empty: true, totalElements: 5, pageable: { offset: 20000000 } });

  const exact = await page(ctx, '?size=5');
  t.match(exact, { totalPages: 1, first: true, last: true, numberOfElements: 5 });

  const defaults = await page(ctx, '');
  t.match(defaults, { size: 20, number: 0, totalPages: 1, numberOfElements: 5, pageable: { pageSize: 20 } });

  const all = [...first.content, ...middle.content, ...lastPage.content].map((s: { id: string }) => s.id);
  t.equal(new Set(all).size, 5, 'the three pages hold all five stories once');
});

t.test('an empty library', async (t) => {
  const ctx = await buildTestApp(t);
  const empty = await page(ctx, '');
  assertMatches(t, StoryPage, empty);
  t.match(empty, { content: [], totalElements: 0, totalPages: 0, first: true, last: true, empty: true, numberOfElements: 0 });
  t.same(await page(ctx, '?sortBy=seriesName&sortDir=asc&page=2'), { ...empty, number: 2, first: false, pageable: { ...empty.pageable, pageNumber: 2, offset: 40 } });
});

t.test('page, size, sortBy and sortDir are validated, never clamped', async (t) => {
  const ctx = await buildTestApp(t);
  const cases: Array<[string, string]> = [
    ['?page=-1', 'page'],
    ['?page=1.5', 'page'],
    ['?page=abc', 'page'],
    ['?size=0', 'size'],
    ['?size=101', 'size'],
    ['?size=-5', 'size'],
    ['?size=ten', 'size'],
    ['?sortBy=bogus', 'sortBy'],
    ['?sortBy=CREATEDAT', 'sortBy'],
    ['?sortBy=name', 'sortBy'],
    ['?sortDir=up', 'sortDir'],
    ['?sortDir=', 'sortDir'],
  ];
  for (const [query, field] of cases) {
    const res = await ctx.get(`/api/stories${query}`);
    t.equal(res.statusCode, 400, `${query} is 400`);
    t.type(res.json().details?.[field], 'string', `${query}: details.${field}`);
  }
  t.equal((await ctx.get('/api/stories?size=100&page=0')).statusCode, 200, 'size 100 is allowed');
  t.equal((await ctx.get('/api/stories?size=1')).statusCode, 200);
  for (const dir of ['asc', 'DESC', 'Asc', 'dEsC']) t.equal((await ctx.get(`/api/stories?sortDir=${dir}`)).statusCode, 200, `sortDir=${dir}`);

  const author = await createStory(ctx, { authorName: 'Validated' });
  t.equal((await ctx.get(`/api/stories/author/${author.authorId as string}?size=0`)).statusCode, 400, 'scoped lists validate too');
  t.equal((await ctx.get('/api/stories/tags/any?sortBy=bogus')).statusCode, 400);
});

t.test('the list loads each page with a fixed number of queries (no query per story)', async (t) => {
  const ctx = await buildTestApp(t);
  for (let i = 0; i < 12; i += 1) await createStory(ctx, { tagNames: [`a${i}`, `b${i}`], authorName: `Author ${i}`, seriesName: `Series ${i % 3}` });
  // Count every statement execution (prepared or not) through better-sqlite3's Statement prototype.
  const proto = Object.getPrototypeOf(ctx.app.db.$client.prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>;
  const count = async (query: string) => {
    const runs: string[] = [];
    const originals = new Map<string, (...args: unknown[]) => unknown>();
    for (const method of ['all', 'get', 'run', 'iterate']) {
      const original = proto[method] as (...args: unknown[]) => unknown;
      originals.set(method, original);
      proto[method] = function (this: { source: string }, ...args: unknown[]) {
        runs.push(this.source.slice(0, 50));
        return original.apply(this, args);
      };
    }
    try {
      await page(ctx, query);
    } finally {
      for (const [method, original] of originals) proto[method] = original;
    }
    return runs;
  };
  const small = await count('?size=3&sortBy=title&sortDir=asc');
  const large = await count('?size=12&sortBy=title&sortDir=desc');
  t.ok(small.length > 0, `statements were observed (${small.length})`);
  t.equal(large.length, small.length, `12 stories need no more queries than 3: ${large.join(' | ')}`);
});
