/**
 * Searches never fail because of Typesense (docs/typesense.md): when it stops answering, or answers
 * too slowly, the embedded engine answers; when it is back, searches go to it again; each change of
 * state is logged once, not once per request. A cluster (comma-separated TYPESENSE_URL) keeps
 * working while one node is away.
 */
import t from 'tap';
import { createAuthor, createStory } from '../helpers/factories.js';
import { startFakeTypesense } from '../helpers/fake-typesense/index.js';
import { buildLoggedTypesenseApp, buildTypesenseApp, drained, STORIES, type LogLine, type TypesenseContext } from '../helpers/fake-typesense/app.js';

const searchesSent = (ctx: TypesenseContext) => ctx.fake.requests.filter((request) => request.path.endsWith('/documents/search')).length;
const logged = (logs: LogLine[], text: RegExp) => logs.filter((line) => text.test(line.msg));

async function titles(ctx: TypesenseContext, text: string): Promise<string[]> {
  const res = await ctx.get(`/api/stories/search?query=${encodeURIComponent(text)}&sortBy=title&sortDir=asc`);
  if (res.statusCode !== 200) throw new Error(`search failed: ${res.statusCode}`);
  return (res.json() as { results: { title: string }[] }).results.map((hit) => hit.title);
}

t.test('fallback to the embedded engine and back, logged once per change of state', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildLoggedTypesenseApp(t, fake);
  await createStory(ctx, { title: 'Harbour lights', authorName: 'Mara Quay' });
  await drained(ctx);

  let sent = searchesSent(ctx);
  t.same(await titles(ctx, 'harbour'), ['Harbour lights']);
  t.equal(searchesSent(ctx), sent + 1, 'a healthy Typesense answers the search');

  await fake.down('refused');
  for (let i = 0; i < 5; i += 1) t.same(await titles(ctx, 'harbour'), ['Harbour lights'], `search ${i + 1} during the outage answers`);
  const suggestions = await ctx.get('/api/stories/search/suggestions?query=harb');
  t.same(suggestions.json(), ['Harbour lights'], 'suggestions too');
  const authors = await ctx.get('/api/authors/search-typesense?q=mara');
  t.equal((authors.json() as { totalHits: number }).totalHits, 1, 'and author search');
  await createStory(ctx, { title: 'Harbour fog' });
  t.same(await titles(ctx, 'harbour'), ['Harbour fog', 'Harbour lights'], 'a story written during the outage is found at once');
  t.equal(logged(ctx.logs, /unreachable/).length, 1, 'the outage is logged once');
  t.equal(logged(ctx.logs, /unreachable/)[0]?.level, 40, 'as a warning');

  await fake.up();
  t.equal((await ctx.get('/api/search/health')).statusCode, 200);
  await drained(ctx);
  t.equal(logged(ctx.logs, /reachable again/).length, 1, 'the recovery is logged once');
  sent = searchesSent(ctx);
  t.same(await titles(ctx, 'harbour'), ['Harbour fog', 'Harbour lights']);
  t.same(await titles(ctx, 'lights'), ['Harbour lights']);
  t.equal(searchesSent(ctx), sent + 2, 'searches go to Typesense again');
  t.equal(logged(ctx.logs, /unreachable/).length, 1, 'no more outage lines');
});

t.test('Typesense recovers on its own: the probe notices and the outbox drains', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake);
  await fake.down('refused');
  const story = await createStory(ctx, { title: 'Patient' });
  await titles(ctx, 'patient');
  await fake.up();
  // No health call, no search: the background probe (1 s, doubling) finds Typesense again.
  await drained(ctx, 20_000);
  t.equal(fake.document(STORIES, story.id)?.title, 'Patient');
});

t.test('a query slower than the budget is answered by the embedded engine', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake);
  await createStory(ctx, { title: 'Slowpoke' });
  await drained(ctx);
  fake.slow(5000, (request) => request.path.endsWith('/documents/search'));
  const started = Date.now();
  t.same(await titles(ctx, 'slowpoke'), ['Slowpoke']);
  const took = Date.now() - started;
  t.ok(took < 4500, `answered in ${took} ms, within the query budget`);
  fake.slow(0);
});

t.test('a cluster keeps answering while one of its nodes is away', async (t) => {
  // The second node of the cluster refuses connections; the client's multi-node support goes to the first.
  const first = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, first, { TYPESENSE_URL: `${first.url},http://127.0.0.1:9` });
  await createAuthor(ctx, { name: 'Node Walker' });
  await drained(ctx);
  const res = await ctx.get('/api/authors/search-typesense?q=walker');
  t.equal((res.json() as { totalHits: number }).totalHits, 1, 'answered although the second node refuses connections');
  const health = await ctx.get('/api/search/health');
  t.equal(health.statusCode, 200);
  t.match(health.json(), { message: /2 nodes/ });
});
