/**
 * Search benchmark (targets in docs/performance.md, "Search"). Seeds a synthetic library straight
 * into a temp SQLite database through the real migrations and the real index sync, then times
 * story searches through the embedded engine and over HTTP (`app.inject`), next to the same FTS5
 * MATCH run directly against SQLite in the same process (the floor).
 *
 *   npm run bench:search                       # 100,000 stories
 *   npx tsx scripts/bench-search.ts 20000      # or BENCH_STORIES=20000
 *   BENCH_DATA_DIR=/tmp/bench npx tsx scripts/bench-search.ts   # keep (and reuse) the library
 *
 * The library is the one `npm run bench` seeds (scripts/lib/synthetic-library.ts: bodies of 300
 * to 8,000 words from a 50,000-word Zipf vocabulary, the same proportions of authors, series,
 * tags and ratings), so one BENCH_DATA_DIR serves both benchmarks.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { applyMigrations, closeDatabase, DATABASE_FILE_NAME, openDatabase, type Db } from '../src/db/open.js';
import { buildMatchQuery } from '../src/search/text/query.js';
import type { SearchEngine } from '../src/search/engine.js';
import { storySearchRequest, type StorySearchInput } from '../src/search/service.js';
import { DEFAULT_SEED, seedLibrary, SyntheticLibrary } from './lib/synthetic-library.js';

const STORIES = Number(process.argv[2] ?? process.env.BENCH_STORIES ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const WARMUP = 10;
const BATCH = 2000;
/** The shared generator's vocabulary (the same for every library size). */
const { vocabulary } = new SyntheticLibrary(10, DEFAULT_SEED);

/** Seeds `count` stories (plus authors, series, tags) through the migrations and the write path. */
async function seed(db: Db, count: number): Promise<void> {
  const report = await seedLibrary(db, {
    stories: count,
    batch: BATCH,
    progress: (done, seconds) => {
      if (done % 10_000 === 0 || done === count) console.log(`  seeded ${done.toLocaleString('en')} stories in ${seconds.toFixed(0)} s`);
    },
  });
  console.log(`  ${report.authors.toLocaleString('en')} authors, ${report.series.toLocaleString('en')} series, ${report.tags} tags`);
}

interface Timing {
  median: number;
  p99: number;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

async function time(run: () => unknown | Promise<unknown>): Promise<Timing> {
  for (let i = 0; i < WARMUP; i += 1) await run();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { median: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
}

/** The word whose document count is closest to `target`, among vocabulary ranks in [from, to). */
function termWithDocs(db: Db, target: number, from: number, to: number, minLength = 4): { term: string; docs: number } {
  const count = db.$client.prepare('SELECT count(*) FROM stories_fts WHERE stories_fts MATCH ?').pluck();
  let best = { term: '', docs: -1 };
  for (let rank = from; rank < to; rank += Math.max(1, Math.floor((to - from) / 60))) {
    const term = vocabulary[rank]!;
    if ([...term].length < minLength) continue;
    const docs = Number(count.get(`"${term}"`));
    if (best.docs < 0 || Math.abs(docs - target) < Math.abs(best.docs - target)) best = { term, docs };
  }
  return best;
}

const fmt = (ms: number) => ms.toFixed(ms < 10 ? 2 : 1);
const pair = (timing: Timing | undefined) => (timing === undefined ? 'n/a' : `${fmt(timing.median)} / ${fmt(timing.p99)}`);

interface Case {
  label: string;
  request: StorySearchInput;
}

function searchUrl(request: StorySearchInput): string {
  const params = new URLSearchParams({ query: request.query });
  for (const tag of request.tags ?? []) params.append('tags', tag);
  for (const author of request.authors ?? []) params.append('authors', author);
  if (request.minRating !== undefined) params.set('minRating', String(request.minRating));
  if (request.sortBy !== undefined) params.set('sortBy', request.sortBy);
  return `/api/stories/search?${params.toString()}`;
}

function sizes(db: Db): string {
  const rows = db.$client
    .prepare(
      `SELECT CASE WHEN name LIKE 'stories_fts%' THEN 'stories_fts (FTS5, all shadow tables)'
                   WHEN name LIKE 'authors_fts%' THEN 'authors_fts'
                   WHEN name LIKE 'search_suggestion%' THEN 'suggestions (2 tables + index)'
                   WHEN name = 'stories_search_attrs_idx' THEN 'stories_search_attrs_idx'
                   WHEN name = 'stories' THEN 'stories (rows)' ELSE 'everything else' END AS part,
              sum(pgsize) AS bytes
       FROM dbstat GROUP BY part ORDER BY bytes DESC`,
    )
    .all() as { part: string; bytes: number }[];
  return rows.map((row) => `| ${row.part} | ${(row.bytes / 1024 / 1024).toFixed(0)} MiB |`).join('\n');
}

async function main(): Promise<void> {
  const keep = process.env.BENCH_DATA_DIR;
  const dataDir = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'storyshelf-bench-'));
  const file = path.join(dataDir, DATABASE_FILE_NAME);
  const fresh = !fs.existsSync(file);
  console.log(`Search benchmark: ${STORIES.toLocaleString('en')} stories in ${file}${fresh ? '' : ' (reused)'}`);

  let seedLine = 'reused an existing library';
  if (fresh) {
    fs.mkdirSync(dataDir, { recursive: true });
    const db = openDatabase(file);
    applyMigrations(db);
    const started = performance.now();
    await seed(db, STORIES);
    const seconds = (performance.now() - started) / 1000;
    seedLine = `seeded in ${seconds.toFixed(0)} s (${((seconds * 1000) / STORIES).toFixed(2)} ms per story, in transactions of ${BATCH}, index sync included)`;
    closeDatabase(db);
  }
  const sizeMb = fs.statSync(file).size / 1024 / 1024;

  const app = await buildApp(loadConfig({ DATA_DIR: dataDir, APP_PASSWORD: 'bench-password', LOG_LEVEL: 'warn' }), { logger: false });
  try {
    const db = app.db;
    db.$client.pragma('cache_size = -262144');
    const stories = Number(db.$client.prepare('SELECT count(*) FROM stories').pluck().get());
    const engine: SearchEngine = app.searchEngine;
    const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: 'bench-password' } });
    const token = (login.json() as { token: string }).token;

    const top = termWithDocs(db, stories, 0, 5, 1);
    const common = termWithDocs(db, stories * 0.6, 5, 120);
    const mid = termWithDocs(db, stories * 0.02, 300, 3000);
    const rare = termWithDocs(db, 25, 15000, 45000);
    const tag = String(db.$client.prepare('SELECT name FROM tags ORDER BY story_count DESC LIMIT 1 OFFSET 2').pluck().get());
    const tagStories = Number(db.$client.prepare('SELECT story_count FROM tags WHERE name = ?').pluck().get(tag));
    const author = String(db.$client.prepare('SELECT name FROM authors ORDER BY story_count DESC LIMIT 1 OFFSET 50').pluck().get());
    const prefix3 = mid.term.slice(0, 3);

    const cases: Case[] = [
      { label: `common word "${common.term}" (in ${common.docs.toLocaleString('en')} stories)`, request: { query: common.term } },
      { label: `mid word "${mid.term}" (in ${mid.docs.toLocaleString('en')} stories)`, request: { query: mid.term } },
      { label: `rare word "${rare.term}" (in ${rare.docs.toLocaleString('en')} stories)`, request: { query: rare.term } },
      { label: `filtered: mid word + tag "${tag}" (${tagStories.toLocaleString('en')} stories) + minRating 3`, request: { query: mid.term, tags: [tag], minRating: 3 } },
      { label: `filtered: common word + tag + minRating 3`, request: { query: common.term, tags: [tag], minRating: 3 } },
      { label: `filtered: common word + author "${author}"`, request: { query: common.term, authors: [author] } },
      { label: `two words "${mid.term} ${common.term}"`, request: { query: `${mid.term} ${common.term}` } },
      { label: `mid word, sortBy createdAt`, request: { query: mid.term, sortBy: 'createdAt' } },
      { label: `common word, sortBy title`, request: { query: common.term, sortBy: 'title' } },
      { label: `3-letter prefix "${prefix3}"`, request: { query: prefix3 } },
      { label: `worst case: the most frequent word "${top.term}" (in ${top.docs.toLocaleString('en')} stories)`, request: { query: top.term } },
      { label: `"*", newest first`, request: { query: '*' } },
      { label: `"*" + tag + minRating 3`, request: { query: '*', tags: [tag], minRating: 3 } },
    ];

    // The floor: the ranking query of the engine's first phase, alone, with nothing around it.
    const floorStatement = db.$client.prepare('SELECT rowid FROM stories_fts WHERE stories_fts MATCH ? ORDER BY rank, rowid LIMIT 20');
    const rows: string[] = [];
    for (const { label, request } of cases) {
      const full = storySearchRequest({ page: 0, size: 20, ...request });
      const result = await engine.searchStories(full);
      const engineTiming = await time(() => engine.searchStories(full));
      const httpTiming = await time(() => app.inject({ method: 'GET', url: searchUrl(request), cookies: { token } }));
      const match = buildMatchQuery(request.query);
      const floorTiming = match === null ? undefined : await time(() => floorStatement.all(match));
      rows.push(`| ${label} | ${result.totalHits.toLocaleString('en')} | ${pair(engineTiming)} | ${pair(httpTiming)} | ${pair(floorTiming)} |`);
      console.log(rows[rows.length - 1]);
    }

    const suggestions: string[] = [];
    for (const text of [common.term.slice(0, 1), common.term.slice(0, 2), mid.term.slice(0, 4), `${mid.term.slice(0, 3)} ${common.term.slice(0, 2)}`]) {
      const timing = await time(() => engine.suggest(text, 5));
      suggestions.push(`| suggestions "${text}" (limit 5) | ${(await engine.suggest(text, 5)).length} | ${pair(timing)} |`);
      console.log(suggestions[suggestions.length - 1]);
    }

    let reindexLine = 'not measured (BENCH_REINDEX=1 to measure)';
    if (process.env.BENCH_REINDEX === '1') {
      const started = performance.now();
      const { storiesCount } = await engine.reindex();
      reindexLine = `${((performance.now() - started) / 1000).toFixed(0)} s for ${storiesCount.toLocaleString('en')} stories`;
    }

    console.log('');
    console.log(`Stories: ${stories.toLocaleString('en')}; database ${sizeMb.toFixed(0)} MiB; ${seedLine}; reindex: ${reindexLine}.`);
    console.log(`${RUNS} timed runs per query after ${WARMUP} warm-up runs; node ${process.version}; ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}.`);
    console.log('');
    console.log('| query (page 0, size 20) | hits | engine median / p99 ms | HTTP median / p99 ms | FTS5 floor median / p99 ms |');
    console.log('|---|---|---|---|---|');
    for (const row of rows) console.log(row);
    console.log('');
    console.log('| suggestions | results | median / p99 ms |');
    console.log('|---|---|---|');
    for (const row of suggestions) console.log(row);
    console.log('');
    console.log('| part of the database | size |');
    console.log('|---|---|');
    console.log(sizes(db));
  } finally {
    await app.close();
    if (keep === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
