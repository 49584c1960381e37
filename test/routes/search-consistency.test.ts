/**
 * The index is provably in step with the tables (docs/decisions.md, "Search › Engines"): after
 * every kind of change, direct or indirect, the terms FTS5 holds for each story and author are
 * exactly the terms of the document rebuilt from the tables, and no stale suggestion remains.
 */
import t, { type Test } from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory, createTag, type CreatedStory } from '../helpers/factories.js';
import { foldedWords } from '../../src/search/text/words.js';
import { foldSuggestion } from '../../src/search/embedded/suggestions.js';
import { rebuildSearchIndex, RebuildInterrupted } from '../../src/search/embedded/rebuild.js';

type Rows = { doc: number; col: string; term: string }[];

/** What the FTS tables hold, read back through fts5vocab ("doc col term" triples). */
function indexed(ctx: TestContext, table: 'stories_fts' | 'authors_fts'): string[] {
  const client = ctx.app.db.$client;
  client.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${table}_terms USING fts5vocab(main, ${table}, instance)`);
  const rows = client.prepare(`SELECT DISTINCT doc, col, term FROM temp.${table}_terms`).all() as Rows;
  return rows.map((row) => `${row.doc} ${row.col} ${row.term}`).sort();
}

function triples(doc: number, columns: Record<string, (string | null)[]>): string[] {
  const out = new Set<string>();
  for (const [col, texts] of Object.entries(columns)) {
    for (const text of texts) for (const word of foldedWords(text ?? '')) out.add(`${doc} ${col} ${word}`);
  }
  return [...out];
}

/** The same triples, computed from the tables as the documents should be. */
function expected(ctx: TestContext, table: 'stories_fts' | 'authors_fts'): string[] {
  const client = ctx.app.db.$client;
  if (table === 'authors_fts') {
    const authors = client.prepare('SELECT seq, id, name, notes FROM authors').all() as { seq: number; id: string; name: string; notes: string | null }[];
    const urls = client.prepare('SELECT url FROM author_urls WHERE author_id = ?').pluck();
    return authors.flatMap((a) => triples(a.seq, { name: [a.name], notes: [a.notes], urls: urls.all(a.id) as string[] })).sort();
  }
  const stories = client
    .prepare(
      `SELECT s.seq, s.id, s.title, s.summary, s.description, s.content_plain AS body, a.name AS author, se.name AS series
       FROM stories s LEFT JOIN authors a ON a.id = s.author_id LEFT JOIN series se ON se.id = s.series_id`,
    )
    .all() as { seq: number; id: string; title: string; summary: string | null; description: string | null; body: string | null; author: string | null; series: string | null }[];
  const tagNames = client.prepare('SELECT t.name FROM story_tags st JOIN tags t ON t.id = st.tag_id WHERE st.story_id = ?').pluck();
  return stories
    .flatMap((s) =>
      triples(s.seq, {
        title: [s.title],
        names: [s.author, s.series, ...(tagNames.all(s.id) as string[])],
        meta: [s.summary, s.description],
        body: [s.body],
      }),
    )
    .sort();
}

/** Suggestions held vs. the titles and used names in the tables. */
function suggestionState(ctx: TestContext): { held: string[]; wanted: string[] } {
  const client = ctx.app.db.$client;
  const held = (client.prepare('SELECT kind, folded, weight FROM search_suggestions').all() as { kind: string; folded: string; weight: number }[])
    .map((row) => `${row.kind} ${row.folded} ${row.weight}`)
    .sort();
  const wanted = [
    ...(client.prepare('SELECT title FROM stories').pluck().all() as string[]).map((title) => `title ${foldSuggestion(title)} 1`),
    ...(['authors:author', 'series:series', 'tags:tag'] as const).flatMap((spec) => {
      const [table, kind] = spec.split(':') as [string, string];
      return (client.prepare(`SELECT name, story_count AS n FROM ${table} WHERE story_count > 0`).all() as { name: string; n: number }[]).map(
        (row) => `${kind} ${foldSuggestion(row.name)} ${row.n}`,
      );
    }),
  ]
    .filter((line) => line.split(' ')[1] !== '')
    .sort();
  const keysWithoutOwner = client
    .prepare('SELECT count(*) FROM search_suggestion_keys k WHERE NOT EXISTS (SELECT 1 FROM search_suggestions s WHERE s.id = k.suggestion_id)')
    .pluck()
    .get() as number;
  if (keysWithoutOwner !== 0) held.push(`${keysWithoutOwner} orphan keys`);
  return { held, wanted };
}

function assertInStep(t: Test, ctx: TestContext, when: string): void {
  t.same(indexed(ctx, 'stories_fts'), expected(ctx, 'stories_fts'), `story index in step ${when}`);
  t.same(indexed(ctx, 'authors_fts'), expected(ctx, 'authors_fts'), `author index in step ${when}`);
  const { held, wanted } = suggestionState(ctx);
  t.same(held, wanted, `suggestions in step ${when}`);
  t.equal(ctx.app.db.$client.prepare('SELECT count(*) FROM search_dirty').pluck().get(), 0, `nothing left queued ${when}`);
}

async function ok(t: Test, response: Promise<{ statusCode: number; body: string }>, status = 200): Promise<void> {
  const res = await response;
  t.equal(res.statusCode, status, res.statusCode === status ? 'request succeeded' : res.body);
}

/** Titles of the exact hits: an answer read with typos corrected (a removed word's neighbour) counts as none. */
async function hits(ctx: TestContext, query: string): Promise<string[]> {
  const res = await ctx.get(`/api/stories/search?query=${encodeURIComponent(query)}&sortBy=title&sortDir=asc`);
  const body = res.json() as { results: { title: string }[]; correctedQuery?: string };
  return body.correctedQuery === undefined ? body.results.map((hit) => hit.title) : [];
}

t.test('every direct and indirect change keeps the index in step', async (t) => {
  const ctx = await buildTestApp(t);
  assertInStep(t, ctx, 'on an empty library');

  const one = await createStory(ctx, {
    title: 'First Light',
    summary: 'Dawn over hills',
    description: 'A quiet opening',
    contentHtml: '<p>The kestrel circled.</p>',
    authorName: 'Ursula Quill',
    seriesName: 'Skyward',
    tagNames: ['birds', 'morning', 'calm', 'sky', 'nature'],
    rating: 4,
  });
  const two = await createStory(ctx, { title: 'Second Wind', contentHtml: '<p>A gale.</p>', authorName: 'Ursula Quill', tagNames: ['birds'] });
  assertInStep(t, ctx, 'after creating stories with five tags');
  t.same(await hits(ctx, 'quill'), ['First Light', 'Second Wind']);

  const authorId = one.authorId as string;
  await ok(t, ctx.put(`/api/authors/${authorId}`, { name: 'Ursula Feather', notes: 'Writes about birds' }));
  assertInStep(t, ctx, 'after an author rename');
  t.same(await hits(ctx, 'quill'), [], 'the old author name is gone from every story');
  t.same(await hits(ctx, 'feather'), ['First Light', 'Second Wind'], 'the new author name is on every story');

  await ok(t, ctx.post(`/api/authors/${authorId}/urls`, { url: 'https://example.org/feather' }));
  assertInStep(t, ctx, 'after adding an author URL');
  await ok(t, ctx.del(`/api/authors/${authorId}/urls`, { url: 'https://example.org/feather' }));
  assertInStep(t, ctx, 'after removing an author URL');

  const seriesId = one.seriesId as string;
  await ok(t, ctx.put(`/api/series/${seriesId}`, { name: 'Earthbound' }));
  assertInStep(t, ctx, 'after a series rename');
  t.same(await hits(ctx, 'skyward'), []);
  t.same(await hits(ctx, 'earthbound'), ['First Light']);

  const tags = one.tags as { id: string; name: string }[];
  const birds = tags.find((tag) => tag.name === 'birds') as { id: string };
  await ok(t, ctx.put(`/api/tags/${birds.id}`, { name: 'raptors' }));
  assertInStep(t, ctx, 'after a tag rename');
  t.same(await hits(ctx, 'birds'), [], 'the old tag name is gone from every story (author notes are not story text)');
  t.same(await hits(ctx, 'raptors'), ['First Light', 'Second Wind']);

  const extra = await createTag(ctx, 'windy');
  await ok(t, ctx.post(`/api/stories/${two.id}/tags/${extra.id}`));
  assertInStep(t, ctx, 'after adding a tag to a story');
  t.same(await hits(ctx, 'windy'), ['Second Wind']);
  await ok(t, ctx.del(`/api/stories/${two.id}/tags/${extra.id}`));
  assertInStep(t, ctx, 'after removing a tag from a story');
  t.same(await hits(ctx, 'windy'), []);

  const calm = tags.find((tag) => tag.name === 'calm') as { id: string };
  await ok(t, ctx.del(`/api/tags/${calm.id}`));
  assertInStep(t, ctx, 'after a tag delete');
  t.same(await hits(ctx, 'calm'), []);

  await ok(t, ctx.put(`/api/stories/${one.id}`, { title: 'Last Light', contentHtml: '<p>The owl landed.</p>', tagNames: ['night'] }));
  assertInStep(t, ctx, 'after a story update');
  t.same(await hits(ctx, 'kestrel'), []);
  t.same(await hits(ctx, 'owl'), ['Last Light']);
  t.same(await hits(ctx, 'morning'), [], 'replaced tags are gone');

  await ok(t, ctx.put(`/api/stories/${one.id}`, { summary: null, description: null, authorId: null, seriesId: null }));
  assertInStep(t, ctx, 'after clearing a story\'s fields and links');

  await ok(t, ctx.put(`/api/stories/${one.id}`, { seriesName: 'Nocturne', authorName: 'Ursula Feather' }));
  await ok(t, ctx.del(`/api/series/${(await ctx.get(`/api/stories/${one.id}`)).json().seriesId}`));
  assertInStep(t, ctx, 'after a series delete');
  t.same(await hits(ctx, 'nocturne'), []);

  await ok(t, ctx.del(`/api/authors/${authorId}`));
  assertInStep(t, ctx, 'after an author delete');
  t.same(await hits(ctx, 'feather'), [], 'the deleted author is gone from every story');
  t.same(await hits(ctx, 'owl'), ['Last Light'], 'the stories themselves are kept');

  await ok(t, ctx.del(`/api/stories/${two.id}`));
  assertInStep(t, ctx, 'after a story delete');
  t.same(await hits(ctx, 'gale'), []);
  t.same(await hits(ctx, '*'), ['Last Light']);
});

t.test('a write that fails leaves no trace in the index', async (t) => {
  const ctx = await buildTestApp(t);
  await createStory(ctx, { title: 'Kept', tagNames: ['one'] });
  const before = indexed(ctx, 'stories_fts');
  const clash = await ctx.post('/api/stories', { title: 'Rejected', authorId: '00000000-0000-4000-8000-000000000000' });
  t.equal(clash.statusCode, 400);
  t.same(indexed(ctx, 'stories_fts'), before);
  assertInStep(t, ctx, 'after a rejected write');
});

t.test('reindex rebuilds everything from the tables', async (t) => {
  const ctx = await buildTestApp(t);
  const empty = await ctx.post('/api/search/reindex');
  t.equal(empty.statusCode, 200);
  t.same(empty.json(), { message: 'Search index rebuilt: 0 stories indexed', storiesCount: 0 });
  assertInStep(t, ctx, 'after reindexing an empty library');

  for (let i = 0; i < 5; i += 1) {
    await createStory(ctx, { title: `Story ${i}`, contentHtml: `<p>body ${i} lantern</p>`, authorName: `Author ${i % 2}`, tagNames: [`tag${i}`] });
  }
  // Damage the index behind the app's back, as a crash of an older version might have.
  const client = ctx.app.db.$client;
  client.exec(`INSERT INTO stories_fts (stories_fts) VALUES ('delete-all'); DELETE FROM search_suggestion_keys WHERE key LIKE 'a%';`);
  client.exec(`INSERT INTO stories_fts (rowid, title, names, meta, body) VALUES (999, 'ghost', '', '', 'lantern')`);
  t.same(await hits(ctx, 'lantern'), [], 'the damaged index misses the stories');

  const res = await ctx.post('/api/search/reindex');
  t.equal(res.statusCode, 200);
  t.equal(res.json().storiesCount, 5);
  t.match(res.json().message, /5 stories/);
  assertInStep(t, ctx, 'after a reindex');
  t.same(await hits(ctx, 'lantern'), ['Story 0', 'Story 1', 'Story 2', 'Story 3', 'Story 4']);
  t.same((await ctx.get('/api/stories/search/suggestions?query=auth')).json(), ['Author 0', 'Author 1']);
});

t.test('rows written outside a write transaction are indexed at the next start', async (t) => {
  const first = await buildTestApp(t);
  await createStory(first, { title: 'Through the API' });
  first.app.db.$client
    .prepare(`INSERT INTO stories (id, title, created_at, updated_at) VALUES ('6f0c8a3e-9c1b-4d5e-8f00-000000000001', 'Raw Insert', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`)
    .run();
  await first.app.close();
  const second = await buildTestApp(t, { DATA_DIR: first.dataDir });
  t.same(await hits(second, 'raw'), ['Raw Insert']);
  assertInStep(t, second, 'after a restart');
});

/**
 * drizzle/0006: a story added to an author changes only the author's story count, which is not
 * in its FTS document: the document must not be rewritten (the FTS5 structure record, which
 * every write to the index changes, stays the same), while the suggestion weight and a rename
 * still go through.
 */
t.test("an author's story count changes its suggestion rank, not its search document", async (t) => {
  const ctx = await buildTestApp(t);
  const client = ctx.app.db.$client;
  const structure = () => client.prepare('SELECT block FROM authors_fts_data WHERE id = 10').pluck().get() as Buffer;
  const first = await createStory(ctx, { title: 'Opening', authorName: 'Wren Abernathy' });
  await createStory(ctx, { title: 'Solo', authorName: 'Wrenna Solo' });
  await createStory(ctx, { title: 'Other', authorName: 'Wrenna Solo' });
  const suggestions = async () => (await ctx.get('/api/stories/search/suggestions?query=wren')).json() as string[];
  t.same(await suggestions(), ['Wrenna Solo', 'Wren Abernathy'], 'two stories before one');

  const before = structure();
  await createStory(ctx, { title: 'Second', authorName: 'Wren Abernathy' });
  await createStory(ctx, { title: 'Third', authorName: 'Wren Abernathy' });
  t.same(structure(), before, 'adding stories to the author left its FTS document alone');
  t.same(await suggestions(), ['Wren Abernathy', 'Wrenna Solo'], 'three stories now rank first');
  const found = (await ctx.get('/api/authors/search-typesense?q=abernathy')).json() as { results: Array<{ name: string; storyCount: number }> };
  t.same(found.results.map((author) => [author.name, author.storyCount]), [['Wren Abernathy', 3]], 'the author search finds it with its new count');

  await ctx.put(`/api/authors/${first.authorId}`, { name: 'Wren Castellan' });
  t.not(structure(), before, 'a rename does rewrite it');
  t.equal(((await ctx.get('/api/authors/search-typesense?q=castellan')).json() as { totalHits: number }).totalHits, 1);
});

/**
 * src/search/embedded/rebuild.ts: a reindex runs in short transactions and gives other requests their
 * turn between them, so writes can land in the middle of it; the index must still end in step.
 */
t.test('reindex runs in batches: other requests are answered meanwhile, and writes between batches are kept', async (t) => {
  const ctx = await buildTestApp(t);
  const stories: CreatedStory[] = [];
  for (let i = 0; i < 12; i += 1) {
    stories.push(await createStory(ctx, { title: `Batch ${i}`, contentHtml: `<p>ember ${i}</p>`, authorName: `Writer ${i % 3}`, tagNames: [`t${i % 4}`] }));
  }
  const order: string[] = [];
  const reindex = ctx.post('/api/search/reindex').then((res) => {
    order.push('reindex');
    return res;
  });
  const read = ctx.get('/api/stories?page=0&size=5').then((res) => {
    order.push('read');
    return res;
  });
  t.equal((await read).statusCode, 200);
  t.equal((await reindex).statusCode, 200);
  t.same(order, ['read', 'reindex'], 'a read sent after the reindex was answered before it finished');

  // Batches of 2 stories, with a write after every step of the rebuild.
  const writes = [
    () => ctx.put(`/api/stories/${stories[0]!.id}`, { title: 'Renamed while rebuilding', contentHtml: '<p>cinder</p>' }),
    () => ctx.del(`/api/stories/${stories[5]!.id}`),
    () => createStory(ctx, { title: 'Born while rebuilding', contentHtml: '<p>ember late</p>', authorName: 'Writer 9', tagNames: ['t9'] }),
    () => ctx.put(`/api/authors/${stories[1]!.authorId}`, { name: 'Writer Renamed' }),
    () => ctx.del(`/api/stories/${stories[11]!.id}`),
  ];
  let stepsSeen = 0;
  const rebuild = rebuildSearchIndex(ctx.app.db, {
    batchSize: 2,
    stopped: () => {
      stepsSeen += 1;
      return false;
    },
  });
  for (const write of writes) {
    await write();
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.equal(await rebuild, 11, 'the stories there at the end');
  t.ok(stepsSeen > writes.length, `the rebuild took ${stepsSeen} steps`);
  assertInStep(t, ctx, 'after a reindex with writes between its batches');
  t.same(await hits(ctx, 'ember'), ['Batch 1', 'Batch 10', 'Batch 2', 'Batch 3', 'Batch 4', 'Batch 6', 'Batch 7', 'Batch 8', 'Batch 9', 'Born while rebuilding']);
  t.same(await hits(ctx, 'cinder'), ['Renamed while rebuilding']);
});

t.test('a reindex stopped by a shutdown keeps the batches it finished and says so', async (t) => {
  const ctx = await buildTestApp(t);
  for (let i = 0; i < 6; i += 1) await createStory(ctx, { title: `Halt ${i}`, contentHtml: '<p>ash</p>' });
  let steps = 0;
  // Step 1 empties the index, step 2 indexes the first two stories, step 3 is stopped.
  const rebuild = rebuildSearchIndex(ctx.app.db, { batchSize: 2, stopped: () => (steps += 1) > 2 });
  await t.rejects(rebuild, RebuildInterrupted);
  t.same(await hits(ctx, 'ash'), ['Halt 0', 'Halt 1'], 'the finished batch is searchable; asking again rebuilds the rest');
  await ctx.post('/api/search/reindex');
  t.equal((await hits(ctx, 'ash')).length, 6);

  // A story already marked (by a write outside a transaction) must not cut a batch short.
  const client = ctx.app.db.$client;
  client.exec(`INSERT INTO search_dirty (kind, ref, uid) SELECT 'story', seq, id FROM stories WHERE title = 'Halt 1'`);
  await rebuildSearchIndex(ctx.app.db, { batchSize: 2 });
  t.equal((await hits(ctx, 'ash')).length, 6, 'a rebuild walks past a row that was already marked');
  const stop = ctx.app.searchEngine.reindex();
  ctx.app.searchEngine.stopLongWork();
  await t.rejects(stop, RebuildInterrupted, 'the engine stops at its next step once the app begins to close');
  t.equal(new RebuildInterrupted().statusCode, 503, 'which the request gets as a 503');
});
