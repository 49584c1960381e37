/**
 * The search worker pool (docs/decisions.md, "Search worker pool"): searches answered by the
 * worker threads' read-only connections equal the in-process engine's answers, see a write the
 * moment it is answered, survive a thread's death, refuse work past the queue with 503, and
 * leave no thread behind when the app closes.
 */
import t from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createAuthor, createStory } from '../helpers/factories.js';
import { startFakeTypesense } from '../helpers/fake-typesense/index.js';
import { buildTypesenseApp } from '../helpers/fake-typesense/app.js';
import { EmbeddedSearchEngine } from '../../src/search/embedded/engine.js';
import { authorSearchRequest, storySearchRequest } from '../../src/search/service.js';
import type { StorySearchInput, AuthorSearchInput } from '../../src/search/service.js';

const WORDS = ['harbour', 'lantern', 'meadow', 'copper', 'thistle', 'orchard', 'ember', 'willow'];

/** 40 stories over 4 authors and 5 tags, with words spread so that every query below matches several. */
async function library(ctx: TestContext): Promise<void> {
  for (let i = 0; i < 4; i += 1) await createAuthor(ctx, { name: `Writer ${WORDS[i]} ${i}`, notes: `notes about ${WORDS[(i + 3) % 8]}` });
  for (let i = 0; i < 40; i += 1) {
    const words = WORDS.filter((_, w) => (i + w) % 3 === 0).join(' ');
    await createStory(ctx, {
      title: `Tale ${i} of the ${WORDS[i % 8]}`,
      summary: `A story about ${words}`,
      contentHtml: `<p>${words} ${WORDS[(i * 5) % 8]} and more ${words}</p>`,
      authorName: `Writer ${WORDS[i % 4]} ${i % 4}`,
      tagNames: [`tag${i % 5}`, `tag${(i + 2) % 5}`],
      rating: i % 6 === 0 ? null : (i % 5) + 1,
    });
  }
}

const STORY_QUERIES: StorySearchInput[] = [
  { query: 'harbour' },
  { query: 'lantern meadow' },
  { query: 'cop' },
  { query: '*' },
  { query: '*', sortBy: 'title', sortDir: 'asc', page: 1, size: 7 },
  { query: 'ember', tags: ['tag1'] },
  { query: 'willow', tags: ['TAG2', 'tag4'], minRating: 2 },
  { query: 'orchard', authors: ['writer copper 3', 'Writer harbour 0'], sortBy: 'rating' },
  { query: 'thistle', minRating: 3, maxRating: 4, sortBy: 'createdAt', sortDir: 'asc' },
  { query: 'meadow', sortBy: 'wordCount', page: 2, size: 3 },
  { query: 'harbour', sortBy: 'authorName', sortDir: 'asc', size: 5 },
  { query: 'nothing-matches-this' },
  { query: 'tag9-missing', tags: ['no such tag'] },
  { query: '"a-ha" c++ OR (' },
];

const AUTHOR_QUERIES: AuthorSearchInput[] = [
  { query: 'writer' },
  { query: 'orch' },
  { query: '*', sortBy: 'storyCount', sortDir: 'desc' },
  { query: 'notes', page: 1, size: 2 },
];

const SUGGESTIONS = ['t', 'ta', 'tale 1', 'wri', 'tag', 'zzz'];

function poolOf(ctx: TestContext) {
  const engine = ctx.app.searchEngine as EmbeddedSearchEngine;
  if (engine.pool === undefined) throw new Error('the test app should search on the pool');
  return engine.pool;
}

t.test('the pool answers every query exactly as the engine does in process', async (t) => {
  const ctx = await buildTestApp(t, { SEARCH_WORKERS: '2' });
  await library(ctx);
  const pooled = ctx.app.searchEngine;
  const inProcess = new EmbeddedSearchEngine(ctx.app.db);
  const stories = STORY_QUERIES.map(storySearchRequest);
  const authors = AUTHOR_QUERIES.map(authorSearchRequest);
  // All at once on the pool, so both threads answer some.
  const [pooledStories, pooledAuthors, pooledSuggestions] = await Promise.all([
    Promise.all(stories.map((request) => pooled.searchStories(request))),
    Promise.all(authors.map((request) => pooled.searchAuthors(request))),
    Promise.all(SUGGESTIONS.map((text) => pooled.suggest(text, 8))),
  ]);
  for (const [i, request] of stories.entries()) t.same(pooledStories[i], await inProcess.searchStories(request), `stories: ${JSON.stringify(STORY_QUERIES[i])}`);
  t.ok((await inProcess.searchStories(storySearchRequest({ query: 'harbour' }))).totalHits > 5, 'the queries match something');
  for (const [i, request] of authors.entries()) t.same(pooledAuthors[i], await inProcess.searchAuthors(request), `authors: ${JSON.stringify(AUTHOR_QUERIES[i])}`);
  for (const [i, text] of SUGGESTIONS.entries()) t.same(pooledSuggestions[i], await inProcess.suggest(text, 8), `suggestions: ${text}`);
  t.equal(poolOf(ctx).stats().threads, 2, 'both threads took part');

  const res = await ctx.get('/api/stories/search?query=harbour&tags=tag1&sortBy=title&sortDir=asc');
  t.equal(res.statusCode, 200);
  const { searchTimeMs: _ms, ...page } = res.json();
  t.same(page, { ...(await inProcess.searchStories(storySearchRequest({ query: 'harbour', tags: ['tag1'], sortBy: 'title', sortDir: 'asc' }))), query: 'harbour' }, 'and over HTTP');
});

t.test('a search right after a write finds it, every time', async (t) => {
  const ctx = await buildTestApp(t, { SEARCH_WORKERS: '2' });
  await createStory(ctx, { title: 'warm-up' });
  for (let i = 0; i < 40; i += 1) {
    const word = `fresh${i}word`;
    const story = await createStory(ctx, { title: `Story ${word}` });
    const found = await ctx.get(`/api/stories/search?query=${word}`);
    t.same(found.json().results.map((hit: { id: string }) => hit.id), [story.id], `found right after the create (${i})`);
    const renamed = await ctx.put(`/api/stories/${story.id}`, { title: `Story renamed${i}` });
    t.equal(renamed.statusCode, 200);
    t.equal((await ctx.get(`/api/stories/search?query=${word}`)).json().totalHits, 0, `the old title is gone right after the update (${i})`);
    t.same(await ctx.app.searchEngine.suggest(`renamed${i}`, 1), [`Story renamed${i}`], `suggested right after the update (${i})`);
  }
});

t.test('a search thread that dies fails only its own search (503); the next search gets a new thread', async (t) => {
  const ctx = await buildTestApp(t, { SEARCH_WORKERS: '1' });
  await library(ctx);
  t.equal((await ctx.get('/api/stories/search?query=harbour')).statusCode, 200);
  const pool = poolOf(ctx);
  const [first] = pool.workers();
  const inFlight = ctx.get('/api/stories/search?query=meadow');
  await first?.terminate();
  const interrupted = await inFlight;
  t.ok([200, 503].includes(interrupted.statusCode), 'the search running then is answered 200 or 503, never 500');
  if (interrupted.statusCode === 503) t.match(interrupted.json(), { error: 'The search was interrupted; try again' });
  const after = await ctx.get('/api/stories/search?query=harbour');
  t.equal(after.statusCode, 200, 'the next search is answered');
  t.ok(after.json().totalHits > 0);
  t.equal(pool.stats().threads, 1);
  t.not(pool.workers()[0], first, 'by a new thread');
});

t.test('past the queue, a search is answered 503 at once; the rest are answered', async (t) => {
  const ctx = await buildTestApp(t, { SEARCH_WORKERS: '1', SEARCH_QUEUE_MAX: '2' });
  await library(ctx);
  await ctx.get('/api/stories/search?query=harbour');
  const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => ctx.get(`/api/stories/search?query=${WORDS[i % 8]}&size=50`)));
  const statuses = responses.map((res) => res.statusCode);
  t.ok(statuses.every((status) => status === 200 || status === 503), `only 200s and 503s: ${statuses.join(' ')}`);
  t.ok(statuses.filter((status) => status === 200).length >= 3, 'the running and the queued searches are answered');
  const refused = responses.find((res) => res.statusCode === 503);
  t.ok(refused !== undefined, 'some are refused');
  t.same(refused?.json(), { error: 'Too many searches at once; try again shortly' });
  t.equal((await ctx.get('/api/stories/search?query=harbour')).statusCode, 200, 'and searching works again after');
});

t.test('closing the app ends the search threads', async (t) => {
  const ctx = await buildTestApp(t, { SEARCH_WORKERS: '2' });
  await library(ctx);
  await Promise.all([ctx.get('/api/stories/search?query=harbour'), ctx.get('/api/authors/search-typesense?q=writer')]);
  const pool = poolOf(ctx);
  const workers = pool.workers();
  t.equal(workers.length, 2);
  const exits = workers.map((worker) => new Promise((resolve) => worker.once('exit', resolve)));
  await ctx.app.close();
  await Promise.all(exits);
  t.same(pool.stats(), { threads: 0, running: 0, queued: 0 });
});

t.test('SEARCH_WORKERS=0 searches in process', async (t) => {
  const ctx = await buildTestApp(t, { SEARCH_WORKERS: '0' });
  await createStory(ctx, { title: 'Inline lantern' });
  t.equal((ctx.app.searchEngine as EmbeddedSearchEngine).pool, undefined);
  t.equal((await ctx.get('/api/stories/search?query=lantern')).json().totalHits, 1);
});

t.test('with Typesense configured, its fallback searches on the pool, and closing the app ends the threads', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake, { SEARCH_WORKERS: '1' });
  await createStory(ctx, { title: 'Harbour lights' });
  await fake.down('refused');
  const res = await ctx.get('/api/stories/search?query=harbour');
  t.equal(res.json().totalHits, 1, 'the embedded engine answers during the outage');
  const pool = (ctx.engine as unknown as { embedded: EmbeddedSearchEngine }).embedded.pool;
  t.equal(pool?.stats().threads, 1, 'on its search thread');
  await ctx.app.close();
  t.equal(pool?.stats().threads, 0, 'which the app closed');
});
