/**
 * Searches on the event loop vs on the search worker pool, side by side in one run
 * (docs/performance.md, "Search worker pool"):
 *
 *   BENCH_DATA_DIR=/var/tmp/shelf-20k npx tsx scripts/bench-search-pool.ts
 *
 * The data folder must hold a library seeded by `npm run bench` (with the same BENCH_STORIES;
 * `BENCH_ONLY=story` seeds it and measures little else). Then the built server (`dist/`, as
 * `npm start` runs it) is started in turn with each `SEARCH_WORKERS` setting of BENCH_WORKERS
 * (default "0,2"), BENCH_ROUNDS times in alternation, so machine load drifts over both alike.
 * Each start measures, every request drawing its URL from a pool:
 *
 * - **search** alone, 10 connections: mid-frequency words, common words, and a mid word with a
 *   tag and a rating filter, one third each;
 * - **by id** alone, 10 connections: stories by id, 2,000 ids spread over the table;
 * - **by id while searching**: 5 connections of each at once.
 *
 * and the server's peak RSS (VmHWM) at the end. BENCH_SECONDS per run (default 8).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { DATABASE_FILE_NAME } from '../src/db/open.js';
import { buildMatchQuery } from '../src/search/text/query.js';
import { DEFAULT_SEED, SyntheticLibrary } from './lib/synthetic-library.js';
import { cpuMs, freePort, memoryMiB, startChild, stopChild, waitForAnswer, type Child } from './bench/processes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PASSWORD = 'bench-password-not-secret';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WORKERS = (process.env.BENCH_WORKERS ?? '0,2').split(',').map(Number);

interface Pools {
  stories: number;
  search: string[];
  byId: string[];
  terms: { mid: number; common: number };
}

/** URL pools from the library itself: terms by their measured document counts, ids spread over the table. */
function pools(dataDir: string): Pools {
  const client = new Database(path.join(dataDir, DATABASE_FILE_NAME), { readonly: true, fileMustExist: true });
  try {
    const total = Number(client.prepare('SELECT count(*) FROM stories').pluck().get());
    const countMatches = client.prepare('SELECT count(*) FROM stories_fts WHERE stories_fts MATCH ?').pluck();
    const { vocabulary } = new SyntheticLibrary(10, DEFAULT_SEED);
    const termsIn = (from: number, to: number, low: number, high: number, want: number) => {
      const found: string[] = [];
      for (let rank = from; rank < to && found.length < want; rank += 1) {
        const term = vocabulary[rank] as string;
        const match = [...term].length >= 4 ? buildMatchQuery(term) : null;
        if (match === null) continue;
        const docs = Number(countMatches.get(match));
        if (docs >= total * low && docs <= total * high) found.push(term);
      }
      return found;
    };
    const mid = termsIn(200, 5_000, 0.01, 0.05, 30);
    const common = termsIn(2, 400, 0.3, 0.7, 10);
    const tag = client.prepare('SELECT name FROM tags ORDER BY story_count DESC, name LIMIT 1 OFFSET 2').pluck().get() as string;
    const url = (query: string, extra: Record<string, string> = {}) => `/api/stories/search?${new URLSearchParams({ query, ...extra }).toString()}`;
    const search = [...mid.map((term) => url(term)), ...common.flatMap((term) => [url(term), url(term), url(term)]), ...mid.map((term) => url(term, { tags: tag, minRating: '3' }))];
    const ids = client
      .prepare(`SELECT id FROM (SELECT id, row_number() OVER (ORDER BY seq) AS n FROM stories) WHERE n % max(1, ${Math.floor(total / 2000)}) = 0 LIMIT 2000`)
      .pluck()
      .all() as string[];
    return { stories: total, search, byId: ids.map((id) => `/api/stories/${id}`), terms: { mid: mid.length, common: common.length } };
  } finally {
    client.close();
  }
}

interface Figures {
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number);
}

/** One autocannon run, each request drawing its path from `urls`. */
async function load(origin: string, token: string, urls: readonly string[], connections: number, seconds: number): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const pick = () => urls[Math.floor(Math.random() * urls.length)] as string;
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      { url: origin, headers: { cookie: `token=${token}` }, requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: pick() }) }], connections, duration: seconds, timeout: 30 },
      (error) => (error ? reject(error) : resolve()),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode === 200) latencies.push(responseTime);
      else errors += 1;
    });
  });
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, perSecond: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}

interface Measure {
  workers: number;
  search: Figures;
  byId: Figures;
  mixedSearch: Figures;
  mixedById: Figures;
  cpuMsPerSearch: number;
  peakRssMiB: number;
}

async function measure(dataDir: string, workers: number, urls: Pools): Promise<Measure> {
  const port = await freePort();
  const server: Child = startChild(['--max-semi-space-size=4', path.join(ROOT, 'dist', 'src', 'server.js')], { DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', SEARCH_WORKERS: String(workers) }, port);
  try {
    await waitForAnswer(server, `${server.origin}/healthz`, performance.now());
    const response = await fetch(`${server.origin}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: PASSWORD }) });
    if (response.status !== 200) throw new Error(`login failed: ${response.status}`);
    const { token } = (await response.json()) as { token: string };
    await load(server.origin, token, urls.search, 10, 2);
    const cpuBefore = cpuMs(server.pid);
    const search = await load(server.origin, token, urls.search, 10, SECONDS);
    const cpuMsPerSearch = (cpuMs(server.pid) - cpuBefore) / search.requests;
    const byId = await load(server.origin, token, urls.byId, 10, SECONDS);
    const [mixedSearch, mixedById] = await Promise.all([load(server.origin, token, urls.search, 5, SECONDS), load(server.origin, token, urls.byId, 5, SECONDS)]);
    return { workers, search, byId, mixedSearch, mixedById, cpuMsPerSearch, peakRssMiB: memoryMiB(server.pid).peak };
  } finally {
    await stopChild(server);
  }
}

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));
const both = (f: Figures) => `${ms(f.p50)} / ${ms(f.p99)}`;

async function main(): Promise<void> {
  const dataDir = process.env.BENCH_DATA_DIR;
  if (dataDir === undefined) throw new Error('BENCH_DATA_DIR must name a library seeded by npm run bench');
  const urls = pools(dataDir);
  const loadBefore = os.loadavg()[0] as number;
  const startedAt = new Date();
  const results: Measure[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const workers of WORKERS) {
      const result = await measure(dataDir, workers, urls);
      console.log(`round ${round + 1}, SEARCH_WORKERS=${workers}: search ${both(result.search)} ms, ${result.search.perSecond.toFixed(0)}/s; by id ${both(result.byId)}; mixed: search ${both(result.mixedSearch)}, by id ${both(result.mixedById)}; peak RSS ${result.peakRssMiB.toFixed(0)} MiB`);
      results.push(result);
    }
  }
  const loadAfter = os.loadavg()[0] as number;
  const lines = [
    `${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC; ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.versions.node}; 1-minute load average ${loadBefore.toFixed(1)} at the start, ${loadAfter.toFixed(1)} at the end.`,
    `${urls.stories.toLocaleString('en')} stories; ${SECONDS} s per run, ${ROUNDS} rounds alternating the settings; search URLs: ${urls.terms.mid} mid words (1-5 % of stories), ${urls.terms.common} common words (30-70 %), the mid words again with a tag and minRating 3.`,
    '',
    '| SEARCH_WORKERS | round | search alone, 10 conn.: req/s, p50 / p99 ms | CPU ms per search | by id alone, 10 conn.: p50 / p99 ms | while searching (5 + 5 conn.): search p50 / p99 ms | by id p50 / p99 ms | by id req/s | peak RSS MiB | non-200 |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r, i) =>
        `| ${r.workers} | ${Math.floor(i / WORKERS.length) + 1} | ${r.search.perSecond.toFixed(0)}, ${both(r.search)} | ${r.cpuMsPerSearch.toFixed(1)} | ${both(r.byId)} | ${both(r.mixedSearch)} | ${both(r.mixedById)} | ${r.mixedById.perSecond.toFixed(0)} | ${r.peakRssMiB.toFixed(0)} | ${r.search.errors + r.byId.errors + r.mixedSearch.errors + r.mixedById.errors} |`,
    ),
  ];
  const out = path.join(ROOT, 'bench-results', `search-pool-${startedAt.toISOString().replace(/[:.]/g, '-')}.md`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${lines.join('\n')}\n`);
  console.log(`\n${lines.join('\n')}\n\nWritten to ${path.relative(ROOT, out)}`);
}

await main();
