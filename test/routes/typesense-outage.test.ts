/**
 * Typesense going away never loses a change and never fails a search (docs/typesense.md): an outage
 * queues every change and drains it in order when Typesense is back; refused import lines are
 * retried; a restart resumes a non-empty outbox; shutdown flushes what it can; the health
 * endpoint tells each state.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { createAuthor, createStory } from '../helpers/factories.js';
import { startFakeTypesense } from '../helpers/fake-typesense/index.js';
import { assertInStep, AUTHORS, buildTypesenseApp, drained, outboxRows, STORIES, waitFor, type TypesenseContext } from '../helpers/fake-typesense/app.js';

interface Health {
  status: string;
  message: string;
  engine: string;
  error?: string;
  pendingChanges?: number;
}

async function health(ctx: TypesenseContext): Promise<{ statusCode: number; body: Health }> {
  const res = await ctx.get('/api/search/health');
  return { statusCode: res.statusCode, body: res.json() as Health };
}

async function searchTitles(ctx: TypesenseContext, query: string): Promise<string[]> {
  const res = await ctx.get(`/api/stories/search?query=${encodeURIComponent(query)}&sortBy=title&sortDir=asc`);
  if (res.statusCode !== 200) throw new Error(`search failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { results: { title: string }[] }).results.map((hit) => hit.title);
}

/** The ids of the documents in the import bodies sent since `from`, in the order sent. */
function importedIds(ctx: TypesenseContext, from: number): string[] {
  return ctx.fake.requests
    .slice(from)
    .filter((request) => request.path.endsWith('/documents/import'))
    .flatMap((request) => request.body.split('\n').map((line) => (JSON.parse(line) as { id: string }).id));
}

t.test('an outage queues every change and drains it in order once Typesense is back', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake);
  const kept = await createStory(ctx, { title: 'Before the storm' });
  const doomed = await createStory(ctx, { title: 'Doomed' });
  await drained(ctx);
  let healthy = await health(ctx);
  t.equal(healthy.statusCode, 200);
  t.match(healthy.body, { status: 'healthy', engine: 'typesense', pendingChanges: 0 });

  await fake.down('refused');
  const during: string[] = [];
  for (const title of ['Storm one', 'Storm two', 'Storm three']) during.push((await createStory(ctx, { title, authorName: 'Wet Writer' })).id);
  t.equal((await ctx.put(`/api/stories/${kept.id}`, { summary: 'changed while Typesense was away' })).statusCode, 200);
  t.equal((await ctx.del(`/api/stories/${doomed.id}`)).statusCode, 200);
  const author = await createAuthor(ctx, { notes: 'joined during the outage' });

  const down = await health(ctx);
  t.equal(down.statusCode, 503, 'health is 503 while Typesense is away');
  t.match(down.body, { status: 'unhealthy', engine: 'typesense', error: String });
  t.ok((down.body.pendingChanges ?? 0) > 0, `pendingChanges counts the queue (${down.body.pendingChanges})`);
  t.same(await searchTitles(ctx, 'storm'), ['Before the storm', 'Storm one', 'Storm three', 'Storm two'], 'searches still answer, from the embedded engine');
  t.equal(fake.document(STORIES, during[0] as string), undefined, 'nothing reached Typesense meanwhile');

  const sentBefore = fake.requests.length;
  await fake.up();
  healthy = await health(ctx);
  t.equal(healthy.statusCode, 200, 'health is 200 again');
  await drained(ctx);
  t.equal(outboxRows(ctx), 0, 'the outbox drained to 0');
  await assertInStep(t, ctx, 'after the outage');
  t.equal(fake.document(STORIES, doomed.id), undefined, 'the story deleted during the outage is gone');
  t.equal(fake.document(AUTHORS, author.id)?.notes, 'joined during the outage');
  const order = importedIds(ctx, sentBefore).filter((id) => [...during, kept.id].includes(id));
  t.same(order, [...during, kept.id], 'queued stories were delivered oldest change first');
  t.equal((await health(ctx)).body.pendingChanges, 0);
});

t.test('a node answering 503 counts as an outage too', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake);
  await fake.down('unavailable');
  const story = await createStory(ctx, { title: 'Queued behind a 503' });
  const down = await health(ctx);
  t.equal(down.statusCode, 503);
  t.match(down.body, { status: 'unhealthy', pendingChanges: 1 });
  t.same(await searchTitles(ctx, 'queued'), ['Queued behind a 503']);
  await fake.up();
  t.equal((await health(ctx)).statusCode, 200);
  await drained(ctx);
  t.equal(fake.document(STORIES, story.id)?.title, 'Queued behind a 503');
});

t.test('import lines Typesense refuses are retried with backoff; the others are done at once', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake);
  fake.failImports({ when: (doc) => doc.title === 'Troublesome', times: 2, error: 'Injected: disk hiccup' });
  const fine = await createStory(ctx, { title: 'Fine' });
  const trouble = await createStory(ctx, { title: 'Troublesome' });
  await waitFor(() => fake.document(STORIES, fine.id) !== undefined, 'the fine story to arrive');
  await ctx.engine.idle();
  const row = ctx.app.db.$client.prepare('SELECT attempts, last_error AS lastError FROM search_outbox WHERE entity_id = ?').get(trouble.id) as
    | { attempts: number; lastError: string }
    | undefined;
  t.ok(row !== undefined && row.attempts >= 1, 'the refused story stays queued, its attempt counted');
  t.equal(row?.lastError, 'Injected: disk hiccup', 'with the reason Typesense gave');
  t.equal(
    ctx.app.db.$client.prepare('SELECT count(*) FROM search_outbox WHERE entity_id = ?').pluck().get(fine.id),
    0,
    'the accepted line of the same 200 answer was removed',
  );
  await drained(ctx, 20_000);
  t.equal(fake.document(STORIES, trouble.id)?.title, 'Troublesome', 'delivered once Typesense accepts it');
  const sends = importedIds(ctx, 0).filter((id) => id === trouble.id).length;
  t.ok(sends >= 3, `sent until accepted (${sends} times)`);
});

t.test('a restart resumes a non-empty outbox', async (t) => {
  const fake = await startFakeTypesense(t);
  const first = await buildTypesenseApp(t, fake);
  await fake.down('refused');
  const story = await createStory(first, { title: 'Written before the restart' });
  const author = await createAuthor(first, { notes: 'also queued' });
  t.equal(outboxRows(first), 2);
  await first.app.close();

  await fake.up();
  const second = await buildTypesenseApp(t, fake, { DATA_DIR: first.dataDir });
  await drained(second);
  t.equal(fake.document(STORIES, story.id)?.title, 'Written before the restart');
  t.equal(fake.document(AUTHORS, author.id)?.notes, 'also queued');
  await assertInStep(t, second, 'after the restart');
});

t.test('shutdown flushes the outbox when Typesense answers', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake);
  fake.slow(150, (request) => request.path.endsWith('/import'));
  const titles = ['Last words', 'Final chapter', 'Epilogue'];
  const ids: string[] = [];
  for (const title of titles) ids.push((await createStory(ctx, { title })).id);
  await ctx.app.close();
  const db = new Database(path.join(ctx.dataDir, 'library.db'), { readonly: true });
  t.teardown(() => db.close());
  t.equal(db.prepare('SELECT count(*) FROM search_outbox').pluck().get(), 0, 'nothing is left queued');
  t.same(ids.map((id) => fake.document(STORIES, id)?.title), titles, 'everything reached Typesense before the close finished');
});

t.test('shutdown does not wait for a Typesense that is away', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake);
  await fake.down('refused');
  await createStory(ctx, { title: 'Stays queued' });
  await health(ctx);
  const started = Date.now();
  await ctx.app.close();
  t.ok(Date.now() - started < 2000, `closed in ${Date.now() - started} ms`);
  const db = new Database(path.join(ctx.dataDir, 'library.db'), { readonly: true });
  t.teardown(() => db.close());
  t.equal(db.prepare('SELECT count(*) FROM search_outbox').pluck().get(), 1, 'the change waits for the next start');
});

t.test('a wrong API key is reported as unhealthy and nothing is lost', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTestApp(t, { TYPESENSE_URL: fake.url, TYPESENSE_API_KEY: 'not-the-key' });
  await createStory(ctx, { title: 'Kept locally' });
  const res = await ctx.get('/api/search/health');
  t.equal(res.statusCode, 503, '/health alone needs no key, so the check also makes an authenticated call');
  t.match(res.json(), { status: 'unhealthy', error: /401/ });
  const search = await ctx.get('/api/stories/search?query=kept');
  t.equal(search.statusCode, 200);
  t.equal((search.json() as { totalHits: number }).totalHits, 1, 'the embedded engine answers');
  t.equal(outboxRows(ctx), 1, 'the change stays queued');
  t.same(fake.collectionNames(), [], 'nothing was created with the wrong key');
});
