/**
 * Typo tolerance (docs/decisions.md, "Typo tolerance") through `GET /api/stories/search`, on both
 * engines: the embedded one (FTS5 and `search_terms`) and Typesense (the fake, which models
 * Typesense's documented `num_typos` rules). Each test runs on each engine; bodies are checked
 * against the route's TypeBox schema.
 */
import t, { type Test } from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import { startFakeTypesense } from '../helpers/fake-typesense/index.js';
import { buildTypesenseApp, drained, waitFor } from '../helpers/fake-typesense/app.js';
import { StorySearchResult } from '../../src/schemas/search.js';
import { EmbeddedSearchEngine } from '../../src/search/embedded/engine.js';
import { newestStoryTermsMissing, REFRESH_DEFER_MAX_MS, REFRESH_QUIET_MS, termCount, termsRefreshDue } from '../../src/search/embedded/terms.js';
import { matchesSchema } from '../helpers/schema.js';

interface Result {
  results: { id: string; title: string }[];
  totalHits: number;
  correctedQuery?: string;
  typoCorrected?: boolean;
  [key: string]: unknown;
}

interface World {
  ctx: TestContext;
  /** Everything written is searchable (Typesense: the outbox drained; embedded: the terms refreshed). */
  settle(): Promise<void>;
  /** Searches Typesense answered so far (0 on the embedded engine). */
  typesenseSearches(): number;
}

const ENGINES = ['embedded', 'typesense'] as const;
type EngineName = (typeof ENGINES)[number];

async function world(t: Test, engine: EngineName): Promise<World> {
  if (engine === 'embedded') {
    const ctx = await buildTestApp(t);
    return { ctx, settle: () => (ctx.app.searchEngine as EmbeddedSearchEngine).refreshTerms(), typesenseSearches: () => 0 };
  }
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake);
  return { ctx, settle: () => drained(ctx), typesenseSearches: () => fake.requests.filter((r) => r.path.endsWith('/documents/search')).length };
}

async function search(ctx: TestContext, params: Record<string, string | number>): Promise<Result> {
  const query = new URLSearchParams(Object.entries(params).map(([key, value]): [string, string] => [key, String(value)]));
  const res = await ctx.get(`/api/stories/search?${query.toString()}`);
  if (res.statusCode !== 200) throw new Error(`search failed: ${res.statusCode} ${res.body}`);
  const body = res.json() as Result;
  if (!matchesSchema(StorySearchResult, body)) throw new Error(`result does not match StorySearchResult: ${res.body.slice(0, 300)}`);
  return body;
}

const titles = (result: Result) => result.results.map((hit) => hit.title).sort();

async function corpus(w: World): Promise<void> {
  await createStory(w.ctx, { title: 'The Lighthouse Keeper', authorName: 'Mara Quill', contentHtml: '<p>A silver dollar under the stairs.</p>' });
  await createStory(w.ctx, { title: 'Harbour Lights', contentHtml: '<p>Fog rolled over the harbour every evening.</p>' });
  await createStory(w.ctx, { title: 'Garden Hours', contentHtml: '<p>The gardener planted tulips beside the fence.</p>' });
  await createStory(w.ctx, { title: 'Dog Days', contentHtml: '<p>A red collar hung by the door.</p>' });
  await w.settle();
}

for (const engine of ENGINES) {
  t.test(`${engine}: a misspelt word finds the story, and the answer names the correction`, async (t) => {
    const w = await world(t, engine);
    await corpus(w);
    const cases: [typed: string, wanted: string, title: string, kind: string][] = [
      ['dolar', 'dollar', 'The Lighthouse Keeper', 'a letter left out (body word)'],
      ['lighthuose', 'lighthouse', 'The Lighthouse Keeper', 'two letters swapped (title word)'],
      ['tulipps', 'tulips', 'Garden Hours', 'a letter added'],
      ['fenxe', 'fence', 'Garden Hours', 'a letter changed'],
      ['harbor', 'harbour', 'Harbour Lights', 'a letter left out of the last (prefix) word'],
      ['marra', 'mara', 'The Lighthouse Keeper', 'an author name word'],
    ];
    for (const [typed, wanted, title, kind] of cases) {
      const before = w.typesenseSearches();
      const result = await search(w.ctx, { query: typed });
      t.same(titles(result), [title], `${kind}: "${typed}" finds "${title}"`);
      t.equal(result.totalHits, 1);
      t.equal(result.correctedQuery, wanted, `${kind}: read as "${wanted}"`);
      t.equal(result.typoCorrected, true);
      t.equal(result.query, typed, 'the query echoed is what was typed');
      if (engine === 'typesense') t.equal(w.typesenseSearches() - before, 2, 'Typesense answered: the exact search, then the one with typos');
    }
    const two = await search(w.ctx, { query: 'silver dolar stairs' });
    t.same(titles(two), ['The Lighthouse Keeper'], 'a correction among exact words');
    t.equal(two.correctedQuery, 'silver dollar stairs', 'only the misspelt word changes');
  });

  t.test(`${engine}: an exact hit is never mixed with corrections`, async (t) => {
    const w = await world(t, engine);
    await corpus(w);
    // "collar" is one edit from "dollar": it must not join the exact answer.
    const exact = await search(w.ctx, { query: 'dollar' });
    t.same(titles(exact), ['The Lighthouse Keeper']);
    t.notOk('correctedQuery' in exact, 'no correctedQuery key');
    t.notOk('typoCorrected' in exact, 'no typoCorrected key');
    t.notOk('facets' in exact, 'no facets key without facets=true');
    t.same(Object.keys(exact).sort(), ['page', 'perPage', 'query', 'results', 'searchTimeMs', 'totalHits'], 'exactly the SearchResultDto fields');
  });

  t.test(`${engine}: short words, quoted words and hopeless words are not corrected`, async (t) => {
    const w = await world(t, engine);
    await corpus(w);
    for (const [typed, why] of [
      ['fgo', 'a word under four letters (fog)'],
      ['"dolar"', 'a quoted word'],
      ['silver "stiars"', 'a quoted word beside an exact one'],
      ['zzzzqqq', 'nothing one edit away'],
      ['dolar stiars', 'two misspelt words'],
    ] as const) {
      const result = await search(w.ctx, { query: typed });
      if (typed === 'dolar stiars') {
        t.same(titles(result), ['The Lighthouse Keeper'], 'both words corrected, both in one story');
        t.equal(result.correctedQuery, 'dollar stairs');
        continue;
      }
      t.equal(result.totalHits, 0, `${why}: "${typed}" finds nothing`);
      t.notOk('correctedQuery' in result, `${why}: no correction`);
    }
    const quotedExact = await search(w.ctx, { query: 'dolar "stairs"' });
    t.same(titles(quotedExact), ['The Lighthouse Keeper'], 'an unquoted word is corrected beside a quoted exact one');
    t.equal(quotedExact.correctedQuery, 'dollar "stairs"', 'the quoted word is shown as typed');
  });
}

t.test('embedded: search_terms follows writes (names at once, body words at the next refresh)', async (t) => {
  const ctx = await buildTestApp(t);
  const engine = ctx.app.searchEngine as EmbeddedSearchEngine;
  const terms = (word: string) => ctx.app.db.$client.prepare('SELECT docs FROM search_terms WHERE term = ?').pluck().get(word);
  const story = await createStory(ctx, { title: 'Quicksilver Nights', tagNames: ['Moonrise'], contentHtml: '<p>Toast with marmalade.</p>' });
  t.equal(terms('quicksilver'), 1, 'a title word is a term as soon as the story is written');
  t.equal(terms('moonrise'), 1, 'so is a tag word');
  t.equal(terms('nights'), 1);
  t.equal(terms('marmalade'), undefined, 'a body word waits for the refresh');
  t.equal((await search(ctx, { query: 'quiksilver' })).correctedQuery, 'quicksilver', 'corrected before any refresh');
  t.equal((await search(ctx, { query: 'marmelade' })).totalHits, 0, 'not yet corrected: the word is not a term yet');

  t.notOk(termsRefreshDue(ctx.app.db), 'one story written in a library of one: due, but not while writes are coming in');
  t.ok(termsRefreshDue(ctx.app.db, Date.now() + REFRESH_QUIET_MS), 'due once writes have paused');
  await engine.refreshTerms();
  t.notOk(termsRefreshDue(ctx.app.db, Date.now() + REFRESH_QUIET_MS), 'not due right after one');
  t.equal(terms('marmalade'), 1, 'the refresh brought the body word');
  t.equal(terms('with'), 1, 'four letters is enough');
  t.equal(terms('toast'), 1);
  const corrected = await search(ctx, { query: 'marmelade' });
  t.equal(corrected.correctedQuery, 'marmalade');
  t.equal(corrected.totalHits, 1);

  const del = await ctx.del(`/api/stories/${story.id}`);
  t.equal(del.statusCode, 200);
  t.equal(terms('marmalade'), 1, 'a deleted story leaves its words until the next refresh');
  t.equal((await search(ctx, { query: 'marmelade' })).totalHits, 0, 'a stale term only costs a candidate that matches nothing');
  await engine.refreshTerms();
  t.equal(terms('marmalade'), undefined, 'the refresh removed the vanished word');
  t.equal(termCount(ctx.app.db), 0, 'an empty library has no terms');
});

t.test('embedded: a due refresh waits for writes to pause, but never longer than REFRESH_DEFER_MAX_MS', async (t) => {
  const ctx = await buildTestApp(t);
  const engine = ctx.app.searchEngine as EmbeddedSearchEngine;
  for (let i = 0; i < 20; i += 1) await createStory(ctx, { title: `Steady ${i}`, contentHtml: '<p>Words of a steady stream.</p>' });
  await engine.refreshTerms();
  const start = Date.now();
  // A stream of creates: each one a second after the last, 100 % of the library rewritten.
  for (let i = 0; i < 20; i += 1) {
    await createStory(ctx, { title: `Stream ${i}`, contentHtml: '<p>More words arriving.</p>' });
    t.notOk(termsRefreshDue(ctx.app.db, Date.now() + 1_000), `not due one second after write ${i + 1}`);
  }
  t.ok(termsRefreshDue(ctx.app.db, Date.now() + REFRESH_QUIET_MS), `due ${REFRESH_QUIET_MS} ms after the last write`);
  t.ok(termsRefreshDue(ctx.app.db, start + REFRESH_DEFER_MAX_MS), 'and due while writes go on, once the last refresh is REFRESH_DEFER_MAX_MS old');
  await createStory(ctx, { title: 'One more', contentHtml: '<p>x</p>' });
  await engine.refreshTerms();
  await createStory(ctx, { title: 'A single write', contentHtml: '<p>x</p>' });
  t.notOk(termsRefreshDue(ctx.app.db, Date.now() + REFRESH_QUIET_MS), 'one write in 42 stories is under the 5 % share: not due however quiet');
});

t.test('embedded: the refresh walks the vocabulary in chunks, and start-up fills an empty table', async (t) => {
  const ctx = await buildTestApp(t);
  for (let i = 0; i < 3; i += 1) await createStory(ctx, { title: `Tale ${i}`, contentHtml: `<p>alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike${i}</p>` });
  const { refreshSearchTerms } = await import('../../src/search/embedded/terms.js');
  let chunks = 0;
  t.equal(await refreshSearchTerms(ctx.app.db, { chunkSize: 4, stopped: () => ((chunks += 1), false) }), true);
  t.ok(chunks >= 5, `several chunks of 4 (${chunks})`);
  const all = ctx.app.db.$client.prepare('SELECT term FROM search_terms ORDER BY term').pluck().all();
  t.same(all, ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima', 'mike0', 'mike1', 'mike2', 'tale']);
  t.equal(await refreshSearchTerms(ctx.app.db, { stopped: () => true }), false, 'a stopped refresh says so');

  ctx.app.db.$client.prepare('DELETE FROM search_terms').run();
  const engine = new EmbeddedSearchEngine(ctx.app.db, undefined, undefined, { termsCheckMs: 60_000 });
  engine.start();
  await engine.refreshTerms();
  await engine.close();
  t.equal(termCount(ctx.app.db), all.length, 'start-up refilled the emptied table');

  ctx.app.db.$client.prepare('DELETE FROM search_terms').run();
  const reindex = await ctx.post('/api/search/reindex');
  t.equal(reindex.statusCode, 200);
  // Nobody asks for a refresh here: the reindex starts one in the background.
  await waitFor(() => termCount(ctx.app.db) === all.length, 'the refresh after the reindex', 10_000);
  t.equal(termCount(ctx.app.db), all.length, 'a reindex refreshes the terms after it');
});

t.test('embedded: start-up refreshes the terms when the story written last has body words that are not terms (written before a restart, or by another process)', async (t) => {
  const ctx = await buildTestApp(t);
  const terms = (word: string) => ctx.app.db.$client.prepare('SELECT docs FROM search_terms WHERE term = ?').pluck().get(word);
  await createStory(ctx, { title: 'Orchard', contentHtml: '<p>Quinces ripen in October.</p>' });
  await (ctx.app.searchEngine as EmbeddedSearchEngine).refreshTerms();
  t.notOk(newestStoryTermsMissing(ctx.app.db), 'after a refresh the newest story holds no unknown word');
  // Written, and the process "restarts" before writes paused for the quiet refresh.
  await createStory(ctx, { title: 'Pantry', contentHtml: '<p>Toast with marmalade.</p>' });
  t.equal(terms('marmalade'), undefined, 'the body word waits for a refresh');
  t.ok(newestStoryTermsMissing(ctx.app.db), 'the newest story names a word that is not a term');
  t.notOk(termsRefreshDue(ctx.app.db), 'the count of writes alone does not call for one now');

  const engine = new EmbeddedSearchEngine(ctx.app.db, undefined, undefined, { termsCheckMs: 60_000 });
  t.teardown(() => engine.close());
  engine.start();
  await waitFor(() => terms('marmalade') === 1, 'the refresh started by start-up', 10_000);
  t.equal(terms('marmalade'), 1, 'start-up brought the body word');
  t.equal(terms('quinces'), 1, 'and kept the earlier ones');
  t.notOk(newestStoryTermsMissing(ctx.app.db), 'nothing is missing any more');

  // A long text is sampled from its first 4,000 characters; that cut falls inside "xxmarmalade",
  // whose head ("xxma") is no term: the check must not call for a refresh at every start for it.
  const filler = 'Toast '.repeat(666) + 'xx';
  await createStory(ctx, { title: 'Long', contentHtml: `<p>${filler}marmalade.</p>` });
  await engine.refreshTerms();
  t.notOk(newestStoryTermsMissing(ctx.app.db), 'a word cut by the sample is not a missing term');
});
