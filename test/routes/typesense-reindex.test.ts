/**
 * `POST /api/search/reindex` with Typesense (docs/decisions.md, "Search"): the embedded index is
 * rebuilt, fresh versioned collections are filled and the aliases swapped, so searches keep
 * answering throughout; the old collections go. Collections created on first use, a collection
 * dropped by hand, and a reindex asked for while Typesense is away are covered too.
 */
import t from 'tap';
import { createAuthor, createStory } from '../helpers/factories.js';
import { startFakeTypesense } from '../helpers/fake-typesense/index.js';
import { assertInStep, AUTHORS, buildTypesenseApp, drained, STORIES, waitFor } from '../helpers/fake-typesense/app.js';

interface Reindex {
  message: string;
  storiesCount: number;
}

t.test('reindex fills fresh collections, swaps the aliases and drops the old ones while searches keep answering', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake);
  for (let i = 0; i < 12; i += 1) await createStory(ctx, { title: `Lantern ${i}`, authorName: `Keeper ${i % 3}` });
  await createAuthor(ctx, { notes: 'no stories yet' });
  await drained(ctx);
  const oldStories = fake.aliasTarget(STORIES) as string;
  const oldAuthors = fake.aliasTarget(AUTHORS) as string;
  fake.store.createCollection({ name: `${STORIES}_1`, fields: [{ name: 'title', type: 'string' }] });

  // Only the rebuild's imports (into the versioned collections) are slow; the worker's go through the alias.
  fake.slow(400, (request) => /_\d+\/documents\/import$/.test(request.path));
  let finished = false;
  const reindex = ctx.post('/api/search/reindex').finally(() => {
    finished = true;
  });
  let searches = 0;
  let late: string | undefined;
  while (!finished) {
    const res = await ctx.get('/api/stories/search?query=lantern&size=50');
    t.equal(res.statusCode, 200, 'a search during the rebuild answers');
    t.equal((res.json() as { totalHits: number }).totalHits, late === undefined ? 12 : 13, 'with every story');
    searches += 1;
    if (late === undefined) {
      const id = (await createStory(ctx, { title: 'Lantern written mid-rebuild' })).id;
      late = id;
      await waitFor(() => fake.document(STORIES, id) !== undefined, 'the worker to keep delivering to the old collection');
      t.notOk(finished, 'the story reached the old collection while the rebuild was still running');
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  t.ok(searches >= 3, `${searches} searches ran during the rebuild`);

  const res = await reindex;
  t.equal(res.statusCode, 200);
  const body = res.json() as Reindex;
  t.ok(body.storiesCount >= 12, `storiesCount is the number of stories indexed (${body.storiesCount})`);
  t.match(body.message, /rebuilt/);
  fake.slow(0);

  const newStories = fake.aliasTarget(STORIES) as string;
  t.not(newStories, oldStories, 'the stories alias points at a fresh collection');
  t.not(fake.aliasTarget(AUTHORS), oldAuthors, 'so does the authors alias');
  t.match(newStories, new RegExp(`^${STORIES}_\\d+$`), 'named <prefix>_stories_<version>');
  t.notOk(fake.collectionNames().includes(oldStories), 'the old stories collection was dropped');
  t.notOk(fake.collectionNames().includes(oldAuthors), 'the old authors collection was dropped');
  t.notOk(fake.collectionNames().includes(`${STORIES}_1`), 'a leftover of an interrupted rebuild was dropped');
  await assertInStep(t, ctx, 'after the reindex');
  t.equal(fake.document(STORIES, late as string)?.title, 'Lantern written mid-rebuild', 'a story written during the rebuild is in the new collection');
});

t.test('a document refused during the rebuild is queued and retried', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake);
  await createStory(ctx, { title: 'Plain' });
  const odd = await createStory(ctx, { title: 'Odd one' });
  await drained(ctx);
  fake.failImports({ when: (doc) => doc.title === 'Odd one', times: 1 });
  const res = await ctx.post('/api/search/reindex');
  t.equal(res.statusCode, 200);
  t.equal((res.json() as Reindex).storiesCount, 1, 'the refused story is not counted as indexed');
  await drained(ctx, 20_000);
  t.equal(fake.document(STORIES, odd.id)?.title, 'Odd one', 'it arrives through the outbox');
});

t.test('reindex while Typesense is away rebuilds the embedded index now and Typesense when it is back', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake);
  await createStory(ctx, { title: 'Patience' });
  await drained(ctx);
  const before = fake.aliasTarget(STORIES);
  await fake.down('refused');
  await ctx.get('/api/search/health');
  const res = await ctx.post('/api/search/reindex');
  t.equal(res.statusCode, 200);
  t.match(res.json(), { storiesCount: 1, message: /unreachable/ });
  const search = await ctx.get('/api/stories/search?query=patience');
  t.equal((search.json() as { totalHits: number }).totalHits, 1, 'the embedded engine answers');

  await fake.up();
  await ctx.get('/api/search/health');
  await waitFor(() => fake.aliasTarget(STORIES) !== before && fake.aliasTarget(STORIES) !== undefined, 'the deferred rebuild');
  await assertInStep(t, ctx, 'after the deferred rebuild');
});

t.test('collections are created on first use and rebuilt when dropped by hand', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake);
  t.same(fake.collectionNames().length, 2, 'two collections on first start');
  const story = await createStory(ctx, { title: 'Resilient' });
  await drained(ctx);

  fake.store.dropCollection(fake.aliasTarget(STORIES) as string);
  const res = await ctx.get('/api/stories/search?query=resilient');
  t.equal(res.statusCode, 200, 'the search still answers');
  t.equal((res.json() as { totalHits: number }).totalHits, 1);
  await waitFor(() => fake.document(STORIES, story.id) !== undefined, 'the collections to be rebuilt');
  await assertInStep(t, ctx, 'after the rebuild');
});

t.test('a second start finds the collections and does not rebuild them', async (t) => {
  const fake = await startFakeTypesense(t);
  const first = await buildTypesenseApp(t, fake);
  await createStory(first, { title: 'Persisted' });
  await drained(first);
  const target = fake.aliasTarget(STORIES);
  await first.app.close();
  const second = await buildTypesenseApp(t, fake, { DATA_DIR: first.dataDir });
  t.equal(fake.aliasTarget(STORIES), target, 'the same collection serves');
  const res = await second.get('/api/stories/search?query=persisted');
  t.equal((res.json() as { totalHits: number }).totalHits, 1);
});
