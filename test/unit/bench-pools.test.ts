/**
 * The pools `npm run bench` draws from (scripts/bench/pools.ts, probe.ts, scenarios.ts): big
 * enough, in the right frequency bands, and drawn afresh per request. No timing is asserted.
 */
import path from 'node:path';
import t from 'tap';
import { applyMigrations, closeDatabase, DATABASE_FILE_NAME, openDatabase } from '../../src/db/open.js';
import { foldWord } from '../../src/search/text/words.js';
import { prng, seedLibrary, SyntheticLibrary } from '../../scripts/lib/synthetic-library.js';
import { BANDS, EDIT_KINDS, misspell, misspellings, PageDraw, suggestionPrefixes, wordBands, type TermDocs } from '../../scripts/bench/pools.js';
import { probeLibrary, type LibraryPools } from '../../scripts/bench/probe.js';
import { createBodies, interleave, scenarios } from '../../scripts/bench/scenarios.js';
import { recallFound } from '../../scripts/bench/recall.js';
import { checkTarget, targetLines } from '../../scripts/bench/report.js';
import { slowestWindow } from '../../scripts/bench/sustained.js';
import { probeSpeed } from '../../scripts/bench/speed-probe.js';
import type { Figures } from '../../scripts/bench/load.js';
import { tempDataDir } from '../helpers/app.js';
import { ImageStore, imagesFolderOf } from '../../src/images/store.js';
import { addStory } from '../../src/stories/service.js';
import { LONG_WORK_TITLE } from '../../scripts/bench/long-works.js';

/** Damerau (optimal string alignment) distance, to check each typo is exactly one edit away. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** Story counts per folded word over `stories` generated bodies (what the index's fts5vocab reports). */
function generatedVocabulary(stories: number): TermDocs[] {
  const library = new SyntheticLibrary(stories, 4242);
  const docs = new Map<string, number>();
  for (let n = 0; n < stories; n += 1) {
    const seen = new Set(library.words(library.bodyWordCount()).split(' ').map(foldWord));
    for (const word of seen) docs.set(word, (docs.get(word) ?? 0) + 1);
  }
  return [...docs].map(([term, count]) => ({ term, docs: count }));
}

t.test('frequency bands of a generated corpus: 2,000+ rare and mid words, every common word, each in its band', async (t) => {
  const stories = 800;
  const bands = wordBands(generatedVocabulary(stories), stories);
  t.ok(bands.rare.length >= 2_000, `rare: ${bands.rare.length} words`);
  t.ok(bands.mid.length >= 2_000, `mid: ${bands.mid.length} words`);
  // A Zipf vocabulary has a few hundred words in about half of ~1,500-word stories (pools.ts).
  t.ok(bands.common.length >= 200, `common: ${bands.common.length} words`);
  for (const name of ['rare', 'mid', 'common'] as const) {
    const outside = bands[name].filter((entry) => entry.docs > BANDS[name].max * stories || entry.docs < Math.max(1, BANDS[name].min * stories));
    t.same(outside, [], `${name}: every word's story count is inside the band`);
    t.ok(bands[name].every((entry) => /^[a-z]{4,}$/.test(entry.term)), `${name}: plain words of 4+ letters only`);
    t.equal(new Set(bands[name].map((entry) => entry.term)).size, bands[name].length, `${name}: distinct`);
  }
  const mid = new Set(bands.mid.map((entry) => entry.term));
  t.notOk(bands.common.some((entry) => mid.has(entry.term)), 'bands do not overlap');
  t.same(wordBands([{ term: 'ab12', docs: 500 }, { term: 'ab', docs: 500 }, { term: 'word', docs: 0 }], 1_000), { rare: [], mid: [], common: [] }, 'digits, short words and unused words are left out');
});

t.test('misspellings: one edit away, not another real word, each kind a quarter, all distinct', async (t) => {
  const known = new Set(['stone', 'stoen', 'story', 'tone']);
  const random = prng(7);
  for (const kind of EDIT_KINDS) {
    for (let i = 0; i < 200; i += 1) {
      const found = misspell('brorstefeafeat', random, known, kind);
      if (found === undefined) continue;
      t.equal(editDistance(found.word, found.typo), 1, `${kind}: ${found.typo} is one edit from ${found.word}`);
      if (kind === 'deletion') t.equal(found.typo.length, 13);
      if (kind === 'insertion') t.equal(found.typo.length, 15);
    }
  }
  t.equal(misspell('tone', prng(1), known, 'deletion'), undefined, 'no deletion from a 4-letter word (3 letters would be a prefix search)');
  for (let seed = 0; seed < 50; seed += 1) t.not(misspell('stone', prng(seed), known, 'transposition')?.typo, 'stoen', 'a real word is never a typo');
  t.equal(misspell('aaaa', prng(1), known, 'transposition'), undefined, 'nothing to swap in aaaa');

  const words = new SyntheticLibrary(10).vocabulary.slice(1_000, 1_100).filter((word) => /^[a-z]{5,}$/.test(word));
  t.ok(words.length >= 50);
  const list = misspellings(words, 400, new Set(words), 99);
  t.equal(list.length, 400);
  t.equal(new Set(list.map((item) => item.typo)).size, 400, 'distinct typos');
  for (const kind of EDIT_KINDS) t.equal(list.filter((item) => item.edit === kind).length, 100, `${kind}: a quarter`);
  t.ok(list.every((item) => editDistance(item.word, item.typo) === 1 && words.includes(item.word)));
  t.ok(list.some((item) => item.at === 0), 'first letters are edited too');
});

t.test('suggestion prefixes: distinct, 2 to 6 letters, each the start of a pooled word', async (t) => {
  const words = ['brorstefeafeat', 'traimsto', 'louswosfo', 'maickvind', 'glaiplouck', 'stone', 'story'];
  const prefixes = suggestionPrefixes(words, 100, 3);
  t.equal(new Set(prefixes).size, prefixes.length);
  t.ok(prefixes.every((prefix) => prefix.length >= 2 && prefix.length <= 6 && words.some((word) => word.startsWith(prefix))));
  t.same(interleave<string | number>([[1, 2, 3], ['a'], [4, 5]]), [1, 'a', 4, 2, 5, 3]);
});

t.test('page draws reach every page, first and last included, about equally', async (t) => {
  const draw = new PageDraw([1, 45, 0, 200], 20);
  t.equal(draw.pages, 1 + 3 + 1 + 10);
  const counts = new Map<string, number>();
  const random = prng(5);
  for (let i = 0; i < 15_000; i += 1) {
    const key = draw.draw(random).join(':');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const expected = ['0:0', '1:0', '1:1', '1:2', '2:0', ...Array.from({ length: 10 }, (_, page) => `3:${page}`)];
  t.same([...counts.keys()].sort(), expected.sort(), 'exactly the pages that exist');
  t.ok([...counts.values()].every((count) => count > 700 && count < 1_300), 'each about 1/15 of the draws');
});

/** Pools as the probe returns them, for a library of `stories` stories. */
function fakePools(stories: number): LibraryPools {
  const random = prng(11);
  const id = () => `${Math.floor(random() * 0xffffffff).toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
  const word = (i: number) => `w${'abcdefghij'[i % 10]}${(i * 7919).toString(36).replace(/[0-9]/g, (d) => 'klmnopqrst'[Number(d)]!)}`;
  const band = (from: number, count: number, docs: number) => Array.from({ length: count }, (_, i) => ({ term: word(from + i), docs }));
  const words = { rare: band(0, 3_000, 3), mid: band(10_000, 2_500, 200), common: band(20_000, 300, 2_500) };
  return {
    stories,
    storyIds: Array.from({ length: stories }, id),
    longWorks: Array.from({ length: 8 }, () => ({ id: id(), chapters: 40 })),
    hundredChapterWork: id(),
    lastPage: Math.ceil(stories / 20) - 1,
    authors: Array.from({ length: 600 }, (_, i) => ({ id: id(), name: `Author ${i}`, stories: 1 + (i % 40) })),
    authorRows: 620,
    series: Array.from({ length: 120 }, (_, i) => ({ id: id(), name: `Series ${i}`, stories: 3 })),
    tags: Array.from({ length: 80 }, (_, i) => ({ id: id(), name: `tag-${i}`, stories: 1_000 - i * 10 })),
    coverPaths: Array.from({ length: 50 }, (_, i) => `covers/${i}.png`),
    words,
    vocabulary: new Set(Object.values(words).flatMap((list) => list.map((entry) => entry.term))),
    recall: [],
    dbBytes: 0,
    sqliteVersion: '3',
  };
}

t.test('every scenario draws per request from its pool; searches from the bands; creates the shape asked for', async (t) => {
  const pools = fakePools(5_000);
  const set = scenarios(pools);
  const ids = set.api.map((scenario) => scenario.id);
  for (const id of ['story', 'list-first', 'list-any', 'list-last', 'author-stories', 'tag-stories', 'series-stories', 'search-rare', 'search-mid', 'search-common', 'search-filtered', 'search-typo', 'suggestions', 'page-library', 'page-story', 'page-reader', 'chapter', 'page-chapter', 'page-search', 'create']) {
    t.ok(ids.includes(id), `scenario ${id}`);
  }
  for (const scenario of set.api) {
    const random = prng(1);
    const paths = new Set(Array.from({ length: 300 }, () => scenario.draw(random).path));
    const bodies = new Set(Array.from({ length: 300 }, () => scenario.draw(random).body));
    const distinct = Math.max(paths.size, bodies.size);
    if (scenario.id === 'page-home') t.equal(distinct, 1, 'the home page is one URL');
    else t.ok(distinct >= Math.min(12, scenario.poolSize), `${scenario.id}: ${distinct} distinct requests in 300 draws (pool ${scenario.poolSize})`);
    t.ok([...paths].every((p) => p.startsWith('/')), `${scenario.id}: paths`);
  }
  const byId = (id: string) => set.api.find((scenario) => scenario.id === id)!;
  const drawQueries = (id: string, count: number) => {
    const random = prng(2);
    return Array.from({ length: count }, () => new URL(byId(id).draw(random).path, 'http://x').searchParams);
  };
  for (const band of ['rare', 'mid', 'common'] as const) {
    const pool = new Set(pools.words[band].map((entry) => entry.term));
    const drawn = drawQueries(`search-${band}`, 2_000).map((params) => params.get('query')!);
    t.ok(drawn.every((term) => pool.has(term)), `search-${band} draws its band's words`);
    t.ok(new Set(drawn).size > Math.min(pool.size, 2_000) * 0.5, `search-${band}: ${new Set(drawn).size} distinct words in 2,000 draws`);
    t.equal(byId(`search-${band}`).poolSize, pool.size);
  }
  const filtered = drawQueries('search-filtered', 500);
  t.ok(new Set(filtered.map((params) => params.get('tags'))).size >= 20, 'filtered searches draw their tag');
  t.same([...new Set(filtered.map((params) => params.get('minRating')))].sort(), ['2', '3', '4'], 'and their minimum rating');
  const typos = drawQueries('search-typo', 500).map((params) => params.get('query')!);
  t.notOk(typos.some((typo) => pools.vocabulary.has(typo)), 'typos are never library words');
  t.ok(set.typos.length >= 2_000);

  const anyPages = new Set(drawQueries('list-any', 3_000).map((params) => Number(params.get('page'))));
  t.equal(anyPages.size, pools.lastPage + 1, 'list-any reaches every page, first and last included');
  t.ok(drawQueries('list-last', 50).every((params) => params.get('page') === String(pools.lastPage)));

  const body = JSON.parse(byId('create').draw(prng(3)).body!) as { contentHtml: string; authorName: string; tagNames: string[] };
  t.equal(body.tagNames.length, 3, 'three tags');
  t.ok(pools.authors.some((author) => author.name === body.authorName), 'an existing author');
  const words = body.contentHtml.replace(/<[^>]+>/g, ' ').trim().split(/\s+/).length;
  t.ok(words >= 1_500 && words <= 1_510, `a 1,500-word body (${words} words with the link text)`);
  const longWork = new Map(pools.longWorks.map((work) => [work.id, work.chapters]));
  const chapterPages = Array.from({ length: 4_000 }, (_, i) => byId('page-chapter').draw(prng(100 + i)).path);
  const chapterOf = (page: string) => /^\/stories\/([^/]+)\/read\/(\d+)$/.exec(page);
  t.ok(chapterPages.every((page) => { const m = chapterOf(page); return m !== null && Number(m[2]) >= 1 && Number(m[2]) <= (longWork.get(m[1]!) ?? 0); }), 'page-chapter reads a chapter of a long work');
  t.equal(new Set(chapterPages).size, 8 * 40, 'and reaches every chapter of every long work');
  t.equal(set.mixed.searches.id, 'search-common');
  t.equal(set.mixed.reads.id, 'story');
});

t.test('the probe reads bands, the vocabulary cache and recall cases from a seeded library', async (t) => {
  const dataDir = tempDataDir(t);
  const db = openDatabase(path.join(dataDir, DATABASE_FILE_NAME));
  applyMigrations(db);
  let long: string;
  try {
    await seedLibrary(db, { stories: 400, batch: 200 });
    // A long work as scripts/bench/long-works.ts writes them (two short chapters keep the test quick).
    const store = await ImageStore.open(imagesFolderOf(dataDir), { warn: () => undefined });
    long = await addStory(db, store, { title: LONG_WORK_TITLE, chapters: [{ title: 'One', contentHtml: '<p>a b</p>' }, { title: 'Two', contentHtml: '<p>c d</p>' }] });
  } finally {
    closeDatabase(db);
  }
  const pools = probeLibrary(dataDir, 'test');
  t.equal(pools.stories, 401);
  t.equal(pools.storyIds.length, 400, 'the one-chapter scenarios never draw the long work');
  t.notOk(pools.storyIds.includes(long));
  t.same(pools.longWorks, [{ id: long, chapters: 2 }], 'the chapter scenarios draw it, with its chapter count');
  t.equal(pools.hundredChapterWork, undefined);
  t.equal(new Set(pools.storyIds).size, 400);
  t.ok(pools.words.rare.length >= 2_000, `rare: ${pools.words.rare.length}`);
  t.ok(pools.words.mid.length >= 1_000, `mid: ${pools.words.mid.length}`);
  t.ok(pools.words.common.length >= 100, `common: ${pools.words.common.length}`);
  t.ok(pools.recall.length >= 900, `recall cases: ${pools.recall.length}`);
  t.ok(pools.recall.every((item) => item.storyIds.length >= 1 && item.storyIds.length <= BANDS.rare.max * 400 && !pools.vocabulary.has(item.typo)));
  t.same(probeLibrary(dataDir, 'test').words, pools.words, 'the cached vocabulary gives the same bands');

  t.ok(recallFound({ totalHits: 2, results: [{ id: 'a' }, { id: 'b' }] }, ['b']));
  t.notOk(recallFound({ totalHits: 2, results: [{ id: 'a' }] }, ['b']), 'hits that miss the story do not count');
  t.notOk(recallFound({ totalHits: 0, results: [] }, ['b']));
});

t.test('targets: PASS and MISS by the figure each reads', async (t) => {
  const figures = (p99: number, rps: number): Figures => ({ requestsPerSecond: rps, p50: p99 / 2, p99, cpuMsPerRequest: 1, requests: 100, meanBytes: 10, unexpected: 0 });
  const result = { real: figures(40, 500), single: figures(8, 100), ratio: 0.4 };
  t.same(checkTarget({ kind: 'ratio', min: 0.5 }, result), { met: false, measured: '0.40 x' });
  t.equal(checkTarget({ kind: 'p99', maxMs: 50, connections: 10 }, result).met, true);
  t.equal(checkTarget({ kind: 'p99', maxMs: 5, connections: 1 }, result).met, false);
  t.equal(checkTarget({ kind: 'rps', min: 400 }, result).met, true);
  const lines = targetLines([], { label: 'mixed', connectionsEach: 5, reads: figures(12, 100), searches: figures(100, 10), maxReadP99Ms: 10 }, undefined, 240, 1_200);
  t.same(
    lines.map((line) => [line.name, line.met]),
    [
      ['story by id while common-word searches run (mixed)', false],
      ['peak RSS of the server', false],
      ['start-up to first answer', false],
    ],
  );
  const edits = { cases: 250, found: 240 };
  const recall = {
    cases: 1000,
    found: 960,
    byEdit: { deletion: edits, insertion: edits, substitution: edits, transposition: edits },
    firstLetter: { cases: 100, found: 90 },
    failed: 0,
    latency: { typo: { p50: 9, p99: 30 }, word: { p50: 8, p99: 18 }, addedP99: 12 },
    seconds: 40,
  };
  t.same(
    targetLines([], undefined, undefined, 200, 800, recall).map((line) => [line.name, line.measured, line.met]),
    [
      ['typo recall', '96.0 %', true],
      ['typo tolerance: added p99 of a misspelling over its word (1 conn.)', '12.0 ms', false],
      ['peak RSS of the server', '210 MB', true],
      ['start-up to first answer', '800 ms', true],
    ],
  );
});

t.test('sustained creates are read by their slowest 5 s, so a periodic stall misses the target however good the average', async (t) => {
  // 30 s at ~400/s with a 6-second stall at ~150/s in the middle; the last, partial second is left out.
  const perSecond = [...Array(12).fill(400), ...Array(6).fill(150), ...Array(12).fill(400), 37];
  t.equal(slowestWindow(perSecond), 150, 'the stall, not the 337/s average');
  t.equal(slowestWindow([400, 400, 400]), 400, 'a run shorter than the window reads its whole seconds');
  const sparse: number[] = [];
  sparse[0] = 350;
  sparse[7] = 350;
  sparse[8] = 10;
  t.equal(slowestWindow(sparse), 0, 'seconds with no answer at all count as 0: six silent seconds read 0');
  const result = { label: 'creates', seconds: 31, requestsPerSecond: 337, slowestWindow: 150, perSecond, unexpected: 0, threads: [] };
  const line = targetLines([], undefined, undefined, 200, 800, undefined, result).find((item) => item.name.includes('slowest'));
  t.same([line?.measured, line?.met], ['150 req/s', false]);
  const steady = targetLines([], undefined, undefined, 200, 800, undefined, { ...result, slowestWindow: 320 }).find((item) => item.name.includes('slowest'));
  t.equal(steady?.met, true);
});

t.test('the speed probe does real work and the create line reads server CPU in its units, which a faster or slower machine does not move', async (t) => {
  const bodies = createBodies({ authors: [{ name: 'An Author', stories: 1 }], tags: [{ name: 'Angst', stories: 1 }] } as unknown as LibraryPools).slice(0, 4);
  // probeSpeed throws when a run's index does not answer a word of the first body.
  const probe = probeSpeed(bodies, { units: 12, runs: 3 });
  t.equal(probe.cpuMsPerUnit.length, 3);
  t.ok(probe.cpuMsPerUnit.every((value) => Number.isFinite(value) && value > 0), 'every run took CPU');
  t.ok(probe.wallMsPerUnit.every((value) => Number.isFinite(value) && value > 0), 'and time');
  t.equal(probe.medianCpuMs, [...probe.cpuMsPerUnit].sort((a, b) => a - b)[1], 'the median run is the figure');
  t.throws(() => probeSpeed([]), RangeError);

  const create = (cpuMs: number) => {
    const figures: Figures = { requestsPerSecond: 170, p50: 50, p99: 170, cpuMsPerRequest: cpuMs, requests: 1000, meanBytes: 30_000, unexpected: 0 };
    return { id: 'create', label: 'create a story', pool: '', poolSize: 64, ceilingSample: 48, real: figures, ceiling: figures, single: figures, ratio: 0.04, peakRssMiB: 200 };
  };
  const unitsLine = (cpuMs: number, probeMs: number) =>
    targetLines([create(cpuMs)], undefined, undefined, 200, 800, undefined, undefined, undefined, { units: 320, cpuMsPerUnit: [probeMs], wallMsPerUnit: [probeMs], medianCpuMs: probeMs }).find(
      (line) => line.name.includes('speed-probe units'),
    );
  // The same tree on a machine twice as slow: both figures double, the line reads the same.
  t.same([unitsLine(7, 2.5)?.measured, unitsLine(7, 2.5)?.met], ['2.80', true]);
  t.same([unitsLine(14, 5)?.measured, unitsLine(14, 5)?.met], ['2.80', true]);
  // A create path 60 % costlier on the same machine misses.
  t.same([unitsLine(11.2, 2.5)?.measured, unitsLine(11.2, 2.5)?.met], ['4.48', false]);
  t.equal(targetLines([create(7)], undefined, undefined, 200, 800).find((line) => line.name.includes('speed-probe units')), undefined, 'no probe, no line');
});
