import t from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory, type CreatedStory } from '../helpers/factories.js';
import { StorySearchResult } from '../../src/schemas/search.js';
import { assertMatches, matchesSchema } from '../helpers/schema.js';
import { HOSTILE_QUERIES } from '../fixtures/hostile-queries.js';

interface Hit {
  id: string;
  title: string;
  snippet: string | null;
  rating: number | null;
  authorName: string | null;
  tagNames: string[];
  [field: string]: unknown;
}

interface Result {
  results: Hit[];
  totalHits: number;
  page: number;
  perPage: number;
  query: string;
  searchTimeMs: number;
}

async function search(ctx: TestContext, params: Record<string, string | number | readonly string[]>): Promise<Result> {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) query.append(key, String(item));
  }
  const res = await ctx.get(`/api/stories/search?${query.toString()}`);
  if (res.statusCode !== 200) throw new Error(`search failed: ${res.statusCode} ${res.body}`);
  const body = res.json() as Result;
  if (!matchesSchema(StorySearchResult, body)) throw new Error(`search result does not match its schema: ${res.body.slice(0, 300)}`);
  return body;
}

const titles = (result: Result) => result.results.map((hit) => hit.title);

/** Stories that never match the test words, so each test word is in under half the corpus (bm25 idf). */
async function filler(ctx: TestContext, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) await createStory(ctx, { title: `Filler ${i}`, contentHtml: `<p>Plain ordinary text number ${i}.</p>` });
}

t.test('ranking: a title hit beats a name hit, which beats a summary hit, which beats a body hit', async (t) => {
  const ctx = await buildTestApp(t);
  await filler(ctx, 6);
  await createStory(ctx, { title: 'Body Story', contentHtml: '<p>The moonlight fell on the quiet lake tonight.</p>' });
  await createStory(ctx, { title: 'Summary Story', summary: 'Under the moonlight', contentHtml: '<p>The lake was quiet tonight.</p>' });
  await createStory(ctx, { title: 'Tagged Story', tagNames: ['moonlight'], contentHtml: '<p>The lake was quiet tonight.</p>' });
  await createStory(ctx, { title: 'Moonlight Sonata', contentHtml: '<p>The lake was quiet tonight.</p>' });

  const result = await search(ctx, { query: 'moonlight' });
  t.same(titles(result), ['Moonlight Sonata', 'Tagged Story', 'Summary Story', 'Body Story']);
  t.equal(result.totalHits, 4);
  t.equal(result.query, 'moonlight');
  t.equal(result.page, 0);
  t.equal(result.perPage, 20);
  t.type(result.searchTimeMs, 'number');

  const worst = await search(ctx, { query: 'moonlight', sortBy: 'relevance', sortDir: 'asc' });
  t.same(titles(worst), ['Body Story', 'Summary Story', 'Tagged Story', 'Moonlight Sonata'], 'relevance asc: worst first');

  const author = await createStory(ctx, { title: 'By Name', authorName: 'Ada Moonlight', contentHtml: '<p>Quiet.</p>' });
  t.ok(titles(await search(ctx, { query: 'moonlight' })).includes(author.title), 'author names are searched');
  const series = await createStory(ctx, { title: 'In Series', seriesName: 'Moonlight Saga', contentHtml: '<p>Quiet.</p>' });
  t.ok(titles(await search(ctx, { query: 'moonlight' })).includes(series.title), 'series names are searched');
  const described = await createStory(ctx, { title: 'Described', description: 'moonlight notes', contentHtml: '<p>Quiet.</p>' });
  t.ok(titles(await search(ctx, { query: 'moonlight' })).includes(described.title), 'descriptions are searched');
});

t.test('matching is case- and diacritic-insensitive; the last word matches as a prefix', async (t) => {
  const ctx = await buildTestApp(t);
  await createStory(ctx, { title: 'Le Café', contentHtml: '<p>Un crème brûlée.</p>' });
  await createStory(ctx, { title: 'The Cafe', contentHtml: '<p>A DRAGONFLY over the pond.</p>' });
  await createStory(ctx, { title: 'Other', contentHtml: '<p>Nothing to see.</p>' });

  t.same(titles(await search(ctx, { query: 'cafe' })).sort(), ['Le Café', 'The Cafe']);
  t.same(titles(await search(ctx, { query: 'CAFÉ' })).sort(), ['Le Café', 'The Cafe']);
  t.same(titles(await search(ctx, { query: 'creme brulee' })), ['Le Café']);
  t.same(titles(await search(ctx, { query: 'Dragonfly' })), ['The Cafe']);
  t.same(titles(await search(ctx, { query: 'drag' })), ['The Cafe'], 'prefix of the last word');
  t.same(titles(await search(ctx, { query: 'drag pond' })), [], 'only the last word is a prefix');
  t.same(titles(await search(ctx, { query: 'dragonfly pon' })), ['The Cafe']);
  t.same(titles(await search(ctx, { query: 'dragonfly po' })), [], 'a last word under 3 characters must match whole');
  t.same(titles(await search(ctx, { query: 'dragonflies' })), [], 'a longer word is not a prefix match');
  t.same(titles(await search(ctx, { query: 'cafe nothing' })), [], 'words are AND-ed');
});

t.test('"*" and blank match everything, newest first, without snippets', async (t) => {
  const ctx = await buildTestApp(t);
  const first = await createStory(ctx, { title: 'First' });
  const second = await createStory(ctx, { title: 'Second' });
  for (const query of ['*', '', '   ']) {
    const result = await search(ctx, { query });
    t.equal(result.totalHits, 2, JSON.stringify(query));
    t.same(
      result.results.map((hit) => hit.id),
      [first, second].sort((a, b) => (b.createdAt as string).localeCompare(a.createdAt as string) || b.id.localeCompare(a.id)).map((story) => story.id),
    );
    t.ok(result.results.every((hit) => hit.snippet === null));
  }
  const oldest = await search(ctx, { query: '*', sortDir: 'asc' });
  t.equal(oldest.results.length, 2);
});

t.test('results carry every StorySearchDto field', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, {
    title: 'Complete',
    summary: 'All the fields',
    authorName: 'Jo Writer',
    seriesName: 'Saga',
    volume: 2,
    rating: 4,
    sourceUrl: 'https://example.com/complete',
    tagNames: ['zeta', 'alpha'],
    contentHtml: '<p>One two three.</p>',
  });
  const [hit] = (await search(ctx, { query: 'complete' })).results;
  t.same(hit, {
    id: story.id,
    title: 'Complete',
    summary: 'All the fields',
    authorId: story.authorId,
    authorName: 'Jo Writer',
    seriesId: story.seriesId,
    seriesName: 'Saga',
    volume: 2,
    rating: 4,
    wordCount: 3,
    coverPath: null,
    sourceUrl: 'https://example.com/complete',
    tagNames: ['alpha', 'zeta'],
    createdAt: story.createdAt,
    updatedAt: story.updatedAt,
    readingStatus: null,
    finishedAt: null,
    readCount: 0,
    favourite: false,
    snippet: '<mark>Complete</mark>',
    chapter: null,
  });
});

t.test('snippets: matches in <mark>, everything else escaped', async (t) => {
  const ctx = await buildTestApp(t);
  await createStory(ctx, {
    title: 'Escaping',
    contentHtml: '<p>Write &lt;script&gt;alert(1)&lt;/script&gt; &amp; "quotes" to see the script tag.</p><script>alert(2)</script>',
  });
  const [hit] = (await search(ctx, { query: 'script' })).results;
  t.ok(hit);
  t.match(hit?.snippet, '&lt;<mark>script</mark>&gt;alert(1)&lt;/<mark>script</mark>&gt; &amp; &quot;quotes&quot;');
  t.notMatch(hit?.snippet, /<(?!\/?mark>)/, 'no markup but <mark>');
  t.notMatch(hit?.snippet, 'alert(2)', 'sanitized content never reaches a snippet');
});

t.test('filters: authors (any), tags (all), rating range (inclusive, unrated excluded), combined', async (t) => {
  const ctx = await buildTestApp(t);
  const make = (title: string, body: Record<string, unknown>) => createStory(ctx, { title, contentHtml: '<p>common word here</p>', ...body });
  await make('A1', { authorName: 'Alice', tagNames: ['red', 'blue'], rating: 5 });
  await make('A2', { authorName: 'Alice', tagNames: ['red'], rating: 2 });
  await make('A3', { authorName: 'Alice', tagNames: ['blue'] });
  await make('B1', { authorName: 'Bob', tagNames: ['red', 'blue', 'green'], rating: 3 });
  await make('B2', { authorName: 'Bob', rating: 1 });
  await make('C1', { authorName: 'Carol', tagNames: ['red'], rating: 4 });
  await make('N1', { tagNames: ['blue'], rating: 3 });

  const sorted = async (params: Record<string, string | number | readonly string[]>) => {
    const all = await search(ctx, { sortBy: 'title', sortDir: 'asc', size: 100, ...params });
    t.equal(all.totalHits, all.results.length, 'totalHits counts the filtered stories');
    return titles(all);
  };
  for (const query of ['common', '*']) {
    t.same(await sorted({ query, authors: 'alice' }), ['A1', 'A2', 'A3'], `${query}: one author, case-insensitive`);
    t.same(await sorted({ query, authors: ['Alice', 'CAROL'] }), ['A1', 'A2', 'A3', 'C1'], `${query}: any of repeated authors`);
    t.same(await sorted({ query, authors: 'Bob,Carol' }), ['B1', 'B2', 'C1'], `${query}: comma-separated authors`);
    t.same(await sorted({ query, authors: 'Nobody' }), [], `${query}: an unknown author matches nothing`);
    t.same(await sorted({ query, authors: ['Nobody', 'bob'] }), ['B1', 'B2'], `${query}: unknown names among known ones are ignored`);
    t.same(await sorted({ query, tags: 'RED' }), ['A1', 'A2', 'B1', 'C1'], `${query}: one tag`);
    t.same(await sorted({ query, tags: ['red', 'blue'] }), ['A1', 'B1'], `${query}: all of repeated tags`);
    t.same(await sorted({ query, tags: 'red,blue,green' }), ['B1'], `${query}: all of comma-separated tags`);
    t.same(await sorted({ query, tags: 'red,unknown' }), [], `${query}: an unknown tag matches nothing`);
    t.same(await sorted({ query, minRating: 3 }), ['A1', 'B1', 'C1', 'N1'], `${query}: minRating inclusive, unrated excluded`);
    t.same(await sorted({ query, maxRating: 2 }), ['A2', 'B2'], `${query}: maxRating inclusive, unrated excluded`);
    t.same(await sorted({ query, minRating: 3, maxRating: 3 }), ['B1', 'N1'], `${query}: a one-value range`);
    t.same(await sorted({ query, authors: 'alice,bob', tags: 'blue', minRating: 3 }), ['A1', 'B1'], `${query}: all filters together`);
    t.same(await sorted({ query, authors: 'alice', tags: 'red', maxRating: 2 }), ['A2'], `${query}: author + tag + maxRating`);
    t.same(await sorted({ query, tags: ',, ,' }), ['A1', 'A2', 'A3', 'B1', 'B2', 'C1', 'N1'], `${query}: blank names filter nothing`);
  }
  t.same(await sorted({ query: 'here', tags: 'red', authors: 'carol' }), ['C1'], 'text + filters');
  t.same(await sorted({ query: 'absent', tags: 'red' }), [], 'filters never add matches');
});

t.test('every sortBy, both directions, ties by id, nulls last', async (t) => {
  const ctx = await buildTestApp(t);
  const stories: CreatedStory[] = [];
  const specs = [
    { title: 'delta', authorName: 'Zed', rating: 3, contentHtml: '<p>shared one two three four</p>' },
    { title: 'Alpha', authorName: 'amy', rating: 5, contentHtml: '<p>shared one</p>' },
    { title: 'charlie', rating: null, contentHtml: '<p>shared one two</p>' },
    { title: 'Bravo', authorName: 'Zed', rating: 3, contentHtml: '<p>shared one two three four five six</p>' },
    { title: 'echo', authorName: 'Mia', rating: 1, contentHtml: '<p>shared</p>' },
  ];
  for (const spec of specs) stories.push(await createStory(ctx, spec));
  // Touch one story so updatedAt differs from createdAt order.
  await new Promise((resolve) => setTimeout(resolve, 5));
  const touched = await ctx.put(`/api/stories/${stories[1]?.id}`, { summary: 'touched' });
  t.equal(touched.statusCode, 200);
  const updated = touched.json() as CreatedStory;
  const byId = new Map(stories.map((story) => [story.id, story]));
  byId.set(updated.id, updated);

  type Key = 'createdAt' | 'updatedAt' | 'title' | 'rating' | 'wordCount' | 'authorName';
  const value = (story: CreatedStory, key: Key): string | number | null => {
    if (key === 'title') return (story.title as string).toLowerCase();
    if (key === 'authorName') return story.authorName === null ? null : (story.authorName as string).toLowerCase();
    return story[key] as string | number | null;
  };
  const expected = (key: Key, dir: 'asc' | 'desc') =>
    [...byId.values()]
      .sort((a, b) => {
        const va = value(a, key);
        const vb = value(b, key);
        if (va === null && vb !== null) return 1;
        if (vb === null && va !== null) return -1;
        const sign = dir === 'asc' ? 1 : -1;
        if (va !== null && vb !== null && va !== vb) return (va < vb ? -1 : 1) * sign;
        return a.id.localeCompare(b.id) * sign;
      })
      .map((story) => story.id);

  for (const key of ['createdAt', 'updatedAt', 'title', 'rating', 'wordCount', 'authorName'] as const) {
    for (const dir of ['asc', 'desc'] as const) {
      for (const query of ['shared', '*']) {
        const result = await search(ctx, { query, sortBy: key, sortDir: dir.toUpperCase() });
        t.same(
          result.results.map((hit) => hit.id),
          expected(key, dir),
          `${query} sorted by ${key} ${dir}`,
        );
      }
    }
  }
  const defaultDir = await search(ctx, { query: 'shared', sortBy: 'wordCount' });
  t.same(defaultDir.results.map((hit) => hit.id), expected('wordCount', 'desc'), 'sortDir defaults to desc');
});

t.test('pages: 0-based, totals match the filter, no row repeated or skipped', async (t) => {
  const ctx = await buildTestApp(t);
  for (let i = 0; i < 23; i += 1) {
    await createStory(ctx, { title: `Paged ${i}`, contentHtml: `<p>pagination ${'word '.repeat(i)}</p>`, rating: (i % 5) + 1 });
  }
  await createStory(ctx, { title: 'Unrelated', contentHtml: '<p>nothing</p>' });
  const cases: Record<string, string | number>[] = [
    { query: 'pagination' },
    { query: 'pagination', minRating: 4 },
    { query: '*', sortBy: 'title' },
    { query: 'pagination', sortBy: 'rating' },
  ];
  for (const params of cases) {
    const whole = await search(ctx, { ...params, size: 100 });
    const seen: string[] = [];
    for (let page = 0; page < 5; page += 1) {
      const result = await search(ctx, { ...params, page, size: 7 });
      t.equal(result.totalHits, whole.totalHits, 'the same total on every page');
      t.equal(result.page, page);
      t.equal(result.perPage, 7);
      seen.push(...result.results.map((hit) => hit.id));
    }
    t.same(seen, whole.results.map((hit) => hit.id), `pages concatenate to the whole list: ${JSON.stringify(params)}`);
  }
  t.equal((await search(ctx, { query: 'pagination' })).totalHits, 23);
  t.equal((await search(ctx, { query: 'pagination', minRating: 4 })).totalHits, 8);
  const past = await search(ctx, { query: 'pagination', page: 9, size: 10 });
  t.same(past.results, []);
  t.equal(past.totalHits, 23, 'a page past the end still reports the total');
});

t.test('hostile query strings are answered with 200, never a 500', async (t) => {
  const ctx = await buildTestApp(t);
  await createStory(ctx, { title: 'The Dragon', contentHtml: '<p>An e-mail about the café and a dragon.</p>' });
  for (const query of HOSTILE_QUERIES) {
    const res = await ctx.get(`/api/stories/search?query=${encodeURIComponent(query)}`);
    t.equal(res.statusCode, 200, JSON.stringify(query.slice(0, 40)));
    assertMatches(t, StorySearchResult, res.json(), 'a valid result body');
  }
  t.same(titles(await search(ctx, { query: '"dragon' })), ['The Dragon'], 'quotes are just separators');
  t.same(titles(await search(ctx, { query: 'dragon -cafe' })), ['The Dragon'], '"-" is not negation');
  t.same(titles(await search(ctx, { query: 'title:dragon' })), [], '":" is not a column filter: "title" is a word too');
  t.same(titles(await search(ctx, { query: 'e-mail' })), ['The Dragon']);
  t.same(titles(await search(ctx, { query: '(dragon)' })), ['The Dragon']);
  t.equal(ctx.app.db.$client.prepare('SELECT count(*) FROM stories').pluck().get(), 1, 'still there');
});

t.test('invalid parameters are 400 with details', async (t) => {
  const ctx = await buildTestApp(t);
  const cases: [string, string][] = [
    ['', 'query'],
    ['?page=0', 'query'],
    ['?query=x&page=-1', 'page'],
    ['?query=x&page=one', 'page'],
    ['?query=x&size=0', 'size'],
    ['?query=x&size=101', 'size'],
    ['?query=x&sortBy=score', 'sortBy'],
    ['?query=x&sortBy=seriesName', 'sortBy'],
    ['?query=x&sortDir=up', 'sortDir'],
    ['?query=x&minRating=0', 'minRating'],
    ['?query=x&maxRating=6', 'maxRating'],
    ['?query=x&minRating=2.5', 'minRating'],
    ['?query=x&minRating=4&maxRating=2', 'minRating'],
  ];
  for (const [query, field] of cases) {
    const res = await ctx.get(`/api/stories/search${query}`);
    t.equal(res.statusCode, 400, query);
    t.type(res.json().details?.[field], 'string', `details.${field} for ${query}`);
  }
  const unauthenticated = await ctx.app.inject({ method: 'GET', url: '/api/stories/search?query=x' });
  t.equal(unauthenticated.statusCode, 401);
});

t.test('words on either side of a table cell or block boundary are found and counted', async (t) => {
  const ctx = await buildTestApp(t);
  await filler(ctx, 4);
  const story = await createStory(ctx, {
    title: 'Harbour log',
    contentHtml: '<table><tr><td>Tide</td><td>Highwater</td></tr></table><section>Seafoam</section><section>Driftwood</section>',
  });
  t.equal(story.wordCount, 4);
  t.equal(story.contentPlain, 'Tide Highwater\n\nSeafoam\n\nDriftwood');
  for (const query of ['highwater', 'tide', 'seafoam', 'driftwood']) t.same(titles(await search(ctx, { query })), ['Harbour log'], query);
});
