import t from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createAuthor, createStory } from '../helpers/factories.js';
import { AuthorSearchResult } from '../../src/schemas/search.js';
import { matchesSchema } from '../helpers/schema.js';

interface Author {
  id: string;
  name: string;
  storyCount: number;
  authorRating: number | null;
  averageStoryRating: number | null;
  createdAt: string;
  urls: string[];
}

async function search(ctx: TestContext, params: string): Promise<{ results: Author[]; totalHits: number; page: number; perPage: number; query: string }> {
  const res = await ctx.get(`/api/authors/search-typesense${params}`);
  if (res.statusCode !== 200) throw new Error(`author search failed: ${res.statusCode} ${res.body}`);
  if (!matchesSchema(AuthorSearchResult, res.json())) throw new Error(`author search result does not match its schema: ${res.body.slice(0, 300)}`);
  return res.json();
}

const names = (result: { results: Author[] }) => result.results.map((author) => author.name);

async function library(ctx: TestContext): Promise<void> {
  await createAuthor(ctx, { name: 'Zoë Ashford', notes: 'Writes about lighthouses', urls: ['https://example.org/zoe'] });
  await createAuthor(ctx, { name: 'adam brook', notes: null });
  await createAuthor(ctx, { name: 'Mira Lighthouse', urls: ['https://mira.example.net/blog'] });
  await createAuthor(ctx, { name: 'Carl Dune', notes: 'sea stories' });
  await createStory(ctx, { authorName: 'Carl Dune', rating: 2 });
  await createStory(ctx, { authorName: 'Carl Dune', rating: 4 });
  await createStory(ctx, { authorName: 'Carl Dune' });
  await createStory(ctx, { authorName: 'Mira Lighthouse', rating: 5 });
  await createStory(ctx, { authorName: 'adam brook' });
  const mira = (await search(ctx, '?q=mira')).results[0] as Author;
  await ctx.put(`/api/authors/${mira.id}`, { rating: 3 });
  const zoe = (await search(ctx, '?q=zoe')).results[0] as Author;
  await ctx.put(`/api/authors/${zoe.id}`, { rating: 5 });
}

t.test('author full-text search over name, notes and URLs', async (t) => {
  const ctx = await buildTestApp(t);
  await library(ctx);
  t.same(names(await search(ctx, '?q=lighthouse')), ['Mira Lighthouse', 'Zoë Ashford'], 'name and notes, by name');
  t.same(names(await search(ctx, '?q=ZOE')), ['Zoë Ashford'], 'case- and diacritic-insensitive');
  t.same(names(await search(ctx, '?q=example.net')), ['Mira Lighthouse'], 'URLs');
  t.same(names(await search(ctx, '?q=blog')), ['Mira Lighthouse']);
  t.same(names(await search(ctx, '?q=sea%20sto')), ['Carl Dune'], 'the last word as a prefix');
  t.same(names(await search(ctx, '?q=ada')), ['adam brook']);
  t.same(names(await search(ctx, '?q=nobody')), []);
  for (const hostile of ['"', 'NOT', '(', '*lighthouse', 'name:zoe', '\u0000']) {
    const res = await ctx.get(`/api/authors/search-typesense?q=${encodeURIComponent(hostile)}`);
    t.equal(res.statusCode, 200, JSON.stringify(hostile));
  }

  const all = await search(ctx, '');
  t.equal(all.query, '*', 'q defaults to *');
  t.same(names(all), ['adam brook', 'Carl Dune', 'Mira Lighthouse', 'Zoë Ashford'], 'every author, by name (case-insensitive) ascending');
  const carl = all.results.find((author) => author.name === 'Carl Dune') as Author;
  t.equal(carl.storyCount, 3);
  t.equal(carl.averageStoryRating, 3);
  t.same(all.results.find((author) => author.name === 'Mira Lighthouse')?.urls, ['https://mira.example.net/blog'], 'AuthorDto items');
});

t.test('author search sorts and pages', async (t) => {
  const ctx = await buildTestApp(t);
  await library(ctx);
  t.same(names(await search(ctx, '?q=*&sortOrder=desc')), ['Zoë Ashford', 'Mira Lighthouse', 'Carl Dune', 'adam brook']);
  t.same(names(await search(ctx, '?sortBy=storyCount&sortOrder=desc')).slice(0, 1), ['Carl Dune']);
  t.same(names(await search(ctx, '?sortBy=storyCount')).slice(-1), ['Carl Dune']);
  t.same(names(await search(ctx, '?sortBy=authorRating&sortOrder=desc')).slice(0, 2), ['Zoë Ashford', 'Mira Lighthouse'], 'unrated last');
  t.same(names(await search(ctx, '?sortBy=authorRating&sortOrder=ASC')).slice(0, 2), ['Mira Lighthouse', 'Zoë Ashford'], 'unrated last ascending too');
  t.same(names(await search(ctx, '?sortBy=averageStoryRating&sortOrder=desc')).slice(0, 2), ['Mira Lighthouse', 'Carl Dune']);
  t.same(names(await search(ctx, '?sortBy=averageStoryRating')).slice(0, 2), ['Carl Dune', 'Mira Lighthouse']);
  t.same(names(await search(ctx, '?sortBy=createdAt')), ['Zoë Ashford', 'adam brook', 'Mira Lighthouse', 'Carl Dune'], 'creation order');

  const first = await search(ctx, '?size=3');
  const second = await search(ctx, '?size=3&page=1');
  t.equal(first.totalHits, 4);
  t.equal(second.totalHits, 4);
  t.equal(second.page, 1);
  t.equal(second.perPage, 3);
  t.same([...names(first), ...names(second)], ['adam brook', 'Carl Dune', 'Mira Lighthouse', 'Zoë Ashford']);
  t.same(names(await search(ctx, '?page=5')), []);

  for (const [query, field] of [
    ['?sortBy=name2', 'sortBy'],
    ['?sortBy=updatedAt', 'sortBy'],
    ['?sortOrder=up', 'sortOrder'],
    ['?page=-1', 'page'],
    ['?size=101', 'size'],
  ] as const) {
    const res = await ctx.get(`/api/authors/search-typesense${query}`);
    t.equal(res.statusCode, 400, query);
    t.type(res.json().details?.[field], 'string');
  }
});
