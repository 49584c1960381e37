/**
 * `npm run bench` (docs/performance.md): every hot path at 100,000 stories, next to its ceiling.
 *
 *   npm run bench                                   # 100,000 stories in a temp folder it deletes
 *   npm run bench:quick                             # 5,000 stories, a few seconds per scenario
 *   BENCH_DATA_DIR=/var/tmp/shelf-100k npm run bench   # keep the library and reuse it next time
 *   BENCH_ONLY=story,search-mid npm run bench:quick    # some scenarios only
 *   BENCH_CPU_PROF=1 npm run bench:quick            # --cpu-prof the server (bench-results/profiles/)
 *   BENCH_STORIES=20000 BENCH_SECONDS=6 npm run bench  # another size; seconds per target per scenario
 *
 * 1. Seeds a synthetic library (scripts/lib/synthetic-library.ts) through the services' write
 *    path straight into the data folder (no HTTP), unless the folder already holds one of the
 *    same size; then picks its search terms by their real document counts.
 * 2. Builds (`npm run build`) and starts the real server, `node dist/src/server.js`, as a child
 *    process on 127.0.0.1, timing spawn -> first answer.
 * 3. For each scenario, captures the real response (status, headers, body), and serves exactly
 *    those bytes from a bare Fastify server in another child (scripts/bench/ceiling-server.ts).
 * 4. Drives both with autocannon (10 connections), alternating real and ceiling in rounds after a
 *    warm-up, and reads each child's CPU time from /proc before and after every run. Then the
 *    real server alone with 1 connection: the latency of one request with nothing queued ahead
 *    of it (with 10 connections on one event loop, a request waits for the ~9 ahead of it).
 * 5. The web pages (page-home, page-library, page-story, page-reader, page-search), each request
 *    drawing its URL from a pool, at 1 connection with no ceiling; then the scripts every page
 *    references (each once, gzipped) and the library page's HTML + CSS.
 * 6. Writes bench-results/bench-<size>-<time>.{json,md} and bench-results/latest[-quick].md.
 *
 * Every loop is bounded in count and time; everything listens on 127.0.0.1 only.
 */
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { applyMigrations, closeDatabase, DATABASE_FILE_NAME, openDatabase } from '../src/db/open.js';
import { stories } from '../src/db/schema.js';
import { writeTransaction } from '../src/db/transaction.js';
import { ImageStore } from '../src/images/store.js';
import { verifyPassword } from '../src/auth/password.js';
import { readStoredPassword, storePassword } from '../src/auth/secrets.js';
import { buildMatchQuery } from '../src/search/text/query.js';
import { DEFAULT_SEED, seedLibrary, SyntheticLibrary } from './lib/synthetic-library.js';
import type { Capture } from './bench/protocol.js';
import { cpuMs, freePort, HOST, memoryMiB, startChild, stopChild, waitForAnswer, type Child } from './bench/processes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const QUICK = process.argv.includes('--quick');
const STORIES = Number(process.env.BENCH_STORIES ?? (QUICK ? 5_000 : 100_000));
/** Measured seconds per target per scenario (split over the rounds). */
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 3 : 10));
const ROUNDS = 2;
const WARMUP_SECONDS = QUICK ? 1 : 2;
const SINGLE_SECONDS = QUICK ? 2 : 5;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ONLY = process.env.BENCH_ONLY?.split(',').map((id) => id.trim()).filter((id) => id !== '');
const PROFILE = process.env.BENCH_CPU_PROF === '1';
const PASSWORD = 'bench-password-not-secret';
/** Bumped whenever the generator changes what it builds: a kept library of another version is refused. */
const GENERATOR_VERSION = 1;
const LIBRARY_META = 'bench-library.json';
const CREATED_TITLE = 'Bench created story';

interface LibraryMeta {
  generator: number;
  seed: number;
  stories: number;
  seeded: { seconds: number; storiesPerSecond: number; covers: number; at: string };
}

/** What the scenarios need from the library, found by querying it (read-only). */
interface Probe {
  stories: number;
  storyId: string;
  lastPage: number;
  terms: { rare: Term; mid: Term; common: Term };
  tag: { name: string; stories: number };
  popularTags: string[];
  authorName: string;
  coverPath: string;
  suggestion: string;
  /** Pools the page scenarios draw from, one entry per request. */
  pools: { storyIds: string[]; readerIds: string[]; midTerms: string[] };
  dbBytes: number;
  imageBytes: number;
  sqliteVersion: string;
}

interface Term {
  term: string;
  docs: number;
}

type TargetCheck = { kind: 'ratio'; min: number } | { kind: 'p99'; maxMs: number } | { kind: 'rps'; min: number };

interface Scenario {
  id: string;
  label: string;
  method: 'GET' | 'POST';
  url: string;
  body?: string;
  status: number;
  target?: TargetCheck;
}

interface Run {
  requests: number;
  seconds: number;
  latencies: number[];
  cpuMs: number;
  unexpected: number;
}

interface Figures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  cpuMsPerRequest: number;
  requests: number;
  unexpected: number;
}

interface ScenarioResult {
  id: string;
  label: string;
  url: string;
  responseBytes: number;
  real: Figures;
  ceiling: Figures;
  single: Figures;
  ratio: number;
  /** The server's peak RSS (VmHWM, MiB) once this scenario had run: where the peak was reached. */
  peakRssMiB: number;
  target?: string;
  met?: boolean;
}

// ---------------------------------------------------------------------------------------------
// The library

async function prepareLibrary(dataDir: string): Promise<LibraryMeta> {
  const file = path.join(dataDir, DATABASE_FILE_NAME);
  const metaFile = path.join(dataDir, LIBRARY_META);
  if (fs.existsSync(file)) {
    const meta = fs.existsSync(metaFile) ? (JSON.parse(fs.readFileSync(metaFile, 'utf8')) as LibraryMeta) : undefined;
    if (meta === undefined || meta.generator !== GENERATOR_VERSION || meta.stories !== STORIES || meta.seed !== DEFAULT_SEED) {
      throw new Error(
        `${dataDir} holds a library that is not a version-${GENERATOR_VERSION} synthetic library of ${STORIES} stories; ` +
          'point BENCH_DATA_DIR at an empty or missing folder (or delete this one)',
      );
    }
    console.log(`Reusing the library in ${dataDir} (seeded ${meta.seeded.at} at ${meta.seeded.storiesPerSecond.toFixed(0)} stories/s)`);
    // Migrations added since it was seeded are applied here, not inside the measured start-up
    // (where the server would first back the library up).
    const db = openDatabase(file);
    try {
      applyMigrations(db);
    } finally {
      closeDatabase(db);
    }
    await ensurePassword(dataDir);
    return meta;
  }
  console.log(`Seeding ${STORIES.toLocaleString('en')} stories into ${dataDir} ...`);
  fs.mkdirSync(dataDir, { recursive: true });
  const db = openDatabase(file);
  try {
    applyMigrations(db);
    const store = await ImageStore.open(path.join(dataDir, 'images'), { warn: (details, message) => console.warn(message, details) });
    const every = Math.max(1000, Math.round(STORIES / 10 / 1000) * 1000);
    const report = await seedLibrary(db, {
      stories: STORIES,
      store,
      progress: (done, seconds) => {
        if (done % every === 0 || done === STORIES) console.log(`  ${done.toLocaleString('en')} stories in ${seconds.toFixed(0)} s`);
      },
    });
    const meta: LibraryMeta = {
      generator: GENERATOR_VERSION,
      seed: DEFAULT_SEED,
      stories: STORIES,
      seeded: { seconds: report.seconds, storiesPerSecond: report.storiesPerSecond, covers: report.covers, at: new Date().toISOString() },
    };
    fs.writeFileSync(metaFile, `${JSON.stringify(meta, null, 2)}\n`);
    await ensurePassword(dataDir);
    return meta;
  } finally {
    closeDatabase(db);
  }
}

/**
 * The login password stored in the data folder, as `npm run set-password` stores it: the
 * deployment the README recommends (no APP_PASSWORD in the environment, whose scrypt hash would
 * add ~0.1 s to every start).
 */
async function ensurePassword(dataDir: string): Promise<void> {
  const stored = readStoredPassword(dataDir);
  if (stored !== undefined && (await verifyPassword(PASSWORD, stored))) return;
  await storePassword(dataDir, PASSWORD);
}

function folderBytes(dir: string, limit = 100_000): number {
  let total = 0;
  let seen = 0;
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      if (++seen > limit) return;
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) total += fs.statSync(full).size;
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return total;
}

/** The term whose document count (as the engine matches it) is closest to `target`, among ranks [from, to). */
function termNear(count: (match: string) => number, vocabulary: readonly string[], target: number, from: number, to: number): Term {
  let best: Term = { term: '', docs: -1 };
  const step = Math.max(1, Math.floor((to - from) / 80));
  for (let rank = from; rank < to; rank += step) {
    const term = vocabulary[rank]!;
    if ([...term].length < 4) continue;
    const match = buildMatchQuery(term);
    if (match === null) continue;
    const docs = count(match);
    if (best.docs < 0 || Math.abs(docs - target) < Math.abs(best.docs - target)) best = { term, docs };
  }
  return best;
}

function probeLibrary(dataDir: string): Probe {
  const file = path.join(dataDir, DATABASE_FILE_NAME);
  const client = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const one = <T>(sql: string, ...params: unknown[]) => client.prepare(sql).pluck().get(...params) as T;
    const total = Number(one<number>('SELECT count(*) FROM stories'));
    const countMatches = client.prepare('SELECT count(*) FROM stories_fts WHERE stories_fts MATCH ?').pluck();
    const count = (match: string) => Number(countMatches.get(match));
    const { vocabulary } = new SyntheticLibrary(10, DEFAULT_SEED);
    const rare = termNear(count, vocabulary, Math.max(3, total * 0.0005), 5_000, 45_000);
    const mid = termNear(count, vocabulary, total * 0.03, 200, 5_000);
    const common = termNear(count, vocabulary, total * 0.5, 2, 400);
    const popularTags = client.prepare('SELECT name FROM tags ORDER BY story_count DESC, name LIMIT 6').pluck().all() as string[];
    // Spread over the whole table (every n-th by seq), so the pages read cold rows as well as warm ones.
    const spread = (where: string, limit: number) =>
      client.prepare(`SELECT id FROM (SELECT id, seq, row_number() OVER (ORDER BY seq) AS n FROM stories WHERE ${where}) WHERE n % max(1, (SELECT count(*) FROM stories WHERE ${where}) / ${limit}) = 0 LIMIT ${limit}`).pluck().all() as string[];
    const midTerms: string[] = [];
    for (let rank = 200; rank < 5_000 && midTerms.length < 50; rank += 37) {
      const term = vocabulary[rank]!;
      const match = [...term].length >= 4 ? buildMatchQuery(term) : null;
      if (match === null) continue;
      const docs = count(match);
      if (docs >= total * 0.005 && docs <= total * 0.06) midTerms.push(term);
    }
    const tagName = popularTags[2]!;
    return {
      stories: total,
      storyId: one<string>('SELECT id FROM stories WHERE word_count BETWEEN 1450 AND 1550 ORDER BY seq LIMIT 1 OFFSET 10'),
      lastPage: Math.max(0, Math.ceil(total / 20) - 1),
      terms: { rare, mid, common },
      tag: { name: tagName, stories: Number(one<number>('SELECT story_count FROM tags WHERE name = ?', tagName)) },
      popularTags,
      authorName: one<string>('SELECT name FROM authors ORDER BY story_count DESC, name LIMIT 1 OFFSET 20'),
      coverPath: one<string>('SELECT cover_path FROM stories WHERE cover_path IS NOT NULL ORDER BY seq LIMIT 1'),
      suggestion: common.term.slice(0, 3),
      pools: { storyIds: spread('1 = 1', 2_000), readerIds: spread('word_count BETWEEN 1400 AND 1600', 2_000), midTerms },
      dbBytes: fs.statSync(file).size + (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0),
      imageBytes: folderBytes(path.join(dataDir, 'images')),
      sqliteVersion: one<string>('SELECT sqlite_version()'),
    };
  } finally {
    client.close();
  }
}

/** The create body: a 1,500-word story with some inline markup, an existing author and tags. */
function createBody(probe: Probe): string {
  const library = new SyntheticLibrary(10, DEFAULT_SEED + 7);
  const html = library
    .body(1500)
    .html.replace(/<p>(\S+) (\S+)/g, '<p><em>$1</em> $2')
    .replace(/ (\S+) (\S+) (\S+)\.<\/p>/g, ' <strong>$1</strong> <a href="https://example.org/$2">$2</a> $3.</p>');
  return JSON.stringify({
    title: CREATED_TITLE,
    summary: 'A story written by the benchmark, with a body of 1,500 words.',
    contentHtml: html,
    authorName: probe.authorName,
    tagNames: probe.popularTags.slice(0, 3),
    rating: 4,
  });
}

function scenarios(probe: Probe): Scenario[] {
  const search = (query: string, extra: Record<string, string> = {}) => `/api/stories/search?${new URLSearchParams({ query, ...extra }).toString()}`;
  const { rare, mid, common } = probe.terms;
  const pct = (docs: number) => `${((100 * docs) / probe.stories).toFixed(docs * 100 < probe.stories ? 2 : 1)}%`;
  const list: Scenario[] = [
    { id: 'story', label: 'story by id (~1,500 words)', method: 'GET', url: `/api/stories/${probe.storyId}`, status: 200, target: { kind: 'ratio', min: 0.5 } },
    { id: 'list-first', label: 'list page 0 (20 stories, newest first)', method: 'GET', url: '/api/stories?page=0&size=20', status: 200, target: { kind: 'ratio', min: 0.5 } },
    {
      id: 'list-last',
      label: `list, last page (${probe.lastPage.toLocaleString('en')})`,
      method: 'GET',
      url: `/api/stories?page=${probe.lastPage}&size=20`,
      status: 200,
      target: { kind: 'ratio', min: 0.5 },
    },
    { id: 'search-rare', label: `search, rare term (${rare.docs.toLocaleString('en')} stories, ${pct(rare.docs)})`, method: 'GET', url: search(rare.term), status: 200, target: { kind: 'p99', maxMs: 50 } },
    { id: 'search-mid', label: `search, mid term (${mid.docs.toLocaleString('en')} stories, ${pct(mid.docs)})`, method: 'GET', url: search(mid.term), status: 200, target: { kind: 'p99', maxMs: 50 } },
    {
      id: 'search-common',
      label: `search, common term (${common.docs.toLocaleString('en')} stories, ${pct(common.docs)})`,
      method: 'GET',
      url: search(common.term),
      status: 200,
      target: { kind: 'p99', maxMs: 150 },
    },
    {
      id: 'search-filtered',
      label: `search, mid term + tag (${probe.tag.stories.toLocaleString('en')} stories) + rating >= 3`,
      method: 'GET',
      url: search(mid.term, { tags: probe.tag.name, minRating: '3' }),
      status: 200,
      target: { kind: 'p99', maxMs: 50 },
    },
    {
      id: 'suggestions',
      label: `suggestions "${probe.suggestion}" (limit 10)`,
      method: 'GET',
      url: `/api/stories/search/suggestions?${new URLSearchParams({ query: probe.suggestion, limit: '10' }).toString()}`,
      status: 200,
      target: { kind: 'p99', maxMs: 20 },
    },
    { id: 'tags-popular', label: 'popular tags (20)', method: 'GET', url: '/api/tags/popular?limit=20', status: 200 },
    { id: 'authors', label: 'authors page 0 (by name)', method: 'GET', url: '/api/authors?page=0&size=20', status: 200 },
    { id: 'image', label: 'a cover image', method: 'GET', url: `/api/files/images/${probe.coverPath}`, status: 200 },
    { id: 'create', label: 'create a story (1,500 words, author and 3 tags)', method: 'POST', url: '/api/stories', body: createBody(probe), status: 201, target: { kind: 'rps', min: 300 } },
  ];
  return ONLY === undefined ? list : list.filter((scenario) => ONLY.includes(scenario.id));
}

/**
 * The web pages, each request drawing its URL from a pool (any library page, any of 2,000
 * stories...): a fixed URL would measure one warm row. No ceiling (it replays one captured
 * response per URL); the target is the server time per page, p99 at 1 connection.
 */
interface PageScenario {
  id: string;
  label: string;
  urls: string[];
  maxP99Ms: number;
}

interface PageResult {
  id: string;
  label: string;
  urls: number;
  meanBytes: number;
  single: Figures;
  target: string;
  met: boolean;
}

const PAGE_P99_MS = 20;

function pageScenarios(probe: Probe): PageScenario[] {
  const { storyIds, readerIds, midTerms } = probe.pools;
  const pages = probe.lastPage + 1;
  const list: PageScenario[] = [
    { id: 'page-home', label: 'home page (/)', urls: ['/'], maxP99Ms: PAGE_P99_MS },
    {
      id: 'page-library',
      label: `library grid, any of its ${pages.toLocaleString('en')} pages (/library?page=N)`,
      urls: Array.from({ length: pages }, (_, n) => (n === 0 ? '/library' : `/library?page=${n}`)),
      maxP99Ms: PAGE_P99_MS,
    },
    { id: 'page-story', label: `story page, ${storyIds.length.toLocaleString('en')} stories spread over the table`, urls: storyIds.map((id) => `/stories/${id}`), maxP99Ms: PAGE_P99_MS },
    {
      id: 'page-reader',
      label: `reader, ${readerIds.length.toLocaleString('en')} stories of 1,400-1,600 words`,
      urls: readerIds.map((id) => `/stories/${id}/read`),
      maxP99Ms: PAGE_P99_MS,
    },
    {
      id: 'page-search',
      label: `search page, ${midTerms.length} mid-frequency terms (0.5-6% of stories each)`,
      urls: midTerms.map((term) => `/search?${new URLSearchParams({ q: term }).toString()}`),
      maxP99Ms: PAGE_P99_MS,
    },
  ];
  return ONLY === undefined ? list : list.filter((scenario) => ONLY.includes(scenario.id));
}

/** One autocannon run whose every request draws its path from `urls`; also sums the bytes received. */
async function loadPool(origin: string, pid: number, urls: readonly string[], token: string, seconds: number, connections: number): Promise<Run & { bytes: number }> {
  const latencies: number[] = [];
  let unexpected = 0;
  let bytes = 0;
  const cpuBefore = cpuMs(pid);
  const started = performance.now();
  const pick = () => urls[Math.floor(Math.random() * urls.length)]!;
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      {
        url: origin,
        headers: { cookie: `token=${token}` },
        requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: pick() }) }],
        connections,
        duration: seconds,
        timeout: 30,
      },
      (error) => (error ? reject(error) : resolve()),
    );
    instance.on('response', (_client, statusCode, responseBytes, responseTime) => {
      if (statusCode === 200) {
        latencies.push(responseTime);
        bytes += responseBytes;
      } else unexpected += 1;
    });
    setTimeout(() => instance.stop(), (seconds + 60) * 1000).unref();
  });
  const elapsed = (performance.now() - started) / 1000;
  return { requests: latencies.length, seconds: elapsed, latencies, cpuMs: cpuMs(pid) - cpuBefore, unexpected, bytes };
}

async function measurePage(real: Child, scenario: PageScenario, token: string): Promise<PageResult> {
  await loadPool(real.origin, real.pid, scenario.urls, token, WARMUP_SECONDS, 1);
  const run = await loadPool(real.origin, real.pid, scenario.urls, token, SINGLE_SECONDS * 2, 1);
  const single = figures([run]);
  if (single.unexpected > 0) console.warn(`  ${scenario.id}: ${single.unexpected} answers were not 200`);
  return {
    id: scenario.id,
    label: scenario.label,
    urls: scenario.urls.length,
    meanBytes: run.requests === 0 ? 0 : run.bytes / run.requests,
    single,
    target: `p99 <= ${scenario.maxP99Ms} ms (1 conn.)`,
    met: single.p99 <= scenario.maxP99Ms && single.unexpected === 0,
  };
}

/** What a browser downloads besides the HTML: every distinct script over the pages, and the library page's weight. */
interface PageWeights {
  pagesScanned: string[];
  scripts: Array<{ src: string; bytes: number; gzipBytes: number }>;
  scriptsGzipBytes: number;
  library: { htmlBytes: number; htmlGzipBytes: number; cssBytes: number; cssGzipBytes: number };
}

const SCRIPTS_GZIP_MAX = 30 * 1024;
const LIBRARY_PAGE_MAX = 60 * 1024;

async function pageWeights(origin: string, token: string, probe: Probe): Promise<PageWeights> {
  const get = async (url: string, withToken = true) => {
    const response = await fetch(`${origin}${url}`, { headers: withToken ? { cookie: `token=${token}` } : {} });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200) throw new Error(`${url}: expected 200, got ${response.status}`);
    return body;
  };
  const story = probe.pools.readerIds[0] ?? probe.storyId;
  const author = (await get(`/stories/${story}`)).toString().match(/href="(\/authors\/[0-9a-f-]{36})"/)?.[1];
  const pages = [
    '/',
    '/library',
    '/library?view=list',
    `/stories/${story}`,
    `/stories/${story}/read`,
    `/stories/${story}/edit`,
    `/stories/${story}/delete`,
    '/stories/new',
    `/search?q=${encodeURIComponent(probe.terms.mid.term)}`,
    '/tags',
    '/settings',
    ...(author === undefined ? [] : [author]),
  ];
  const sources = new Set<string>();
  const collect = (html: string) => {
    for (const match of html.matchAll(/<script\b[^>]*\ssrc="([^"]+)"/g)) sources.add(match[1]!);
  };
  for (const url of pages) collect((await get(url)).toString());
  collect((await get('/login', false)).toString());
  const scripts: PageWeights['scripts'] = [];
  for (const src of [...sources].sort()) {
    const bytes = await get(src);
    scripts.push({ src, bytes: bytes.length, gzipBytes: gzipSync(bytes).length });
  }
  const html = await get('/library');
  let cssBytes = 0;
  let cssGzipBytes = 0;
  for (const match of html.toString().matchAll(/<link\b[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)) {
    const css = await get(match[1]!);
    cssBytes += css.length;
    cssGzipBytes += gzipSync(css).length;
  }
  return {
    pagesScanned: [...pages, '/login'],
    scripts,
    scriptsGzipBytes: scripts.reduce((sum, script) => sum + script.gzipBytes, 0),
    library: { htmlBytes: html.length, htmlGzipBytes: gzipSync(html).length, cssBytes, cssGzipBytes },
  };
}

// ---------------------------------------------------------------------------------------------
// Load

async function login(origin: string): Promise<string> {
  const response = await fetch(`${origin}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password: PASSWORD }),
  });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

function requestHeaders(scenario: Scenario, token: string): Record<string, string> {
  const headers: Record<string, string> = { cookie: `token=${token}` };
  if (scenario.body !== undefined) headers['content-type'] = 'application/json';
  return headers;
}

async function capture(origin: string, scenario: Scenario, token: string): Promise<Capture> {
  const response = await fetch(`${origin}${scenario.url}`, { method: scenario.method, headers: requestHeaders(scenario, token), body: scenario.body ?? null });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== scenario.status) throw new Error(`${scenario.id}: expected ${scenario.status}, got ${response.status}: ${body.toString().slice(0, 500)}`);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return { method: scenario.method, url: scenario.url, status: response.status, headers, bodyBase64: body.toString('base64') };
}

/** One autocannon run against `origin`, with this child's CPU time around it. */
async function load(origin: string, pid: number, scenario: Scenario, token: string, seconds: number, connections: number): Promise<Run> {
  const latencies: number[] = [];
  let unexpected = 0;
  const cpuBefore = cpuMs(pid);
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${origin}${scenario.url}`,
        method: scenario.method,
        headers: requestHeaders(scenario, token),
        ...(scenario.body === undefined ? {} : { body: scenario.body }),
        connections,
        duration: seconds,
        timeout: 30,
      },
      (error) => (error ? reject(error) : resolve()),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode === scenario.status) latencies.push(responseTime);
      else unexpected += 1;
    });
    // A run never outlives its duration by much: stop it if it does.
    setTimeout(() => instance.stop(), (seconds + 60) * 1000).unref();
  });
  const elapsed = (performance.now() - started) / 1000;
  return { requests: latencies.length, seconds: elapsed, latencies, cpuMs: cpuMs(pid) - cpuBefore, unexpected };
}

function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

function figures(runs: readonly Run[]): Figures {
  const latencies = runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  const seconds = runs.reduce((sum, run) => sum + run.seconds, 0);
  const cpu = runs.reduce((sum, run) => sum + run.cpuMs, 0);
  return {
    requestsPerSecond: requests / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    cpuMsPerRequest: requests === 0 ? NaN : cpu / requests,
    requests,
    unexpected: runs.reduce((sum, run) => sum + run.unexpected, 0),
  };
}

function describeTarget(target: TargetCheck): string {
  if (target.kind === 'ratio') return `>= ${target.min} x ceiling`;
  if (target.kind === 'p99') return `p99 <= ${target.maxMs} ms (1 conn.)`;
  return `>= ${target.min} req/s`;
}

function meets(target: TargetCheck, result: Omit<ScenarioResult, 'target' | 'met'>): boolean {
  if (target.kind === 'ratio') return result.ratio >= target.min;
  if (target.kind === 'p99') return result.single.p99 <= target.maxMs;
  return result.real.requestsPerSecond >= target.min;
}

async function measure(real: Child, ceiling: Child, scenario: Scenario, token: string, responseBytes: number): Promise<ScenarioResult> {
  await load(real.origin, real.pid, scenario, token, WARMUP_SECONDS, CONNECTIONS);
  await load(ceiling.origin, ceiling.pid, scenario, token, WARMUP_SECONDS, CONNECTIONS);
  const realRuns: Run[] = [];
  const ceilingRuns: Run[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    realRuns.push(await load(real.origin, real.pid, scenario, token, SECONDS / ROUNDS, CONNECTIONS));
    ceilingRuns.push(await load(ceiling.origin, ceiling.pid, scenario, token, SECONDS / ROUNDS, CONNECTIONS));
  }
  const single = figures([await load(real.origin, real.pid, scenario, token, SINGLE_SECONDS, 1)]);
  const realFigures = figures(realRuns);
  const ceilingFigures = figures(ceilingRuns);
  const result = {
    id: scenario.id,
    label: scenario.label,
    url: scenario.url,
    responseBytes,
    real: realFigures,
    ceiling: ceilingFigures,
    single,
    ratio: realFigures.requestsPerSecond / ceilingFigures.requestsPerSecond,
    peakRssMiB: memoryMiB(real.pid).peak,
  };
  if (realFigures.unexpected + ceilingFigures.unexpected + single.unexpected > 0) {
    console.warn(`  ${scenario.id}: ${realFigures.unexpected + single.unexpected} unexpected statuses (real), ${ceilingFigures.unexpected} (ceiling)`);
  }
  if (scenario.target === undefined) return result;
  return { ...result, target: describeTarget(scenario.target), met: meets(scenario.target, result) };
}

// ---------------------------------------------------------------------------------------------
// Report

const ms = (value: number) => (Number.isNaN(value) ? 'n/a' : value < 10 ? value.toFixed(2) : value.toFixed(1));
const int = (value: number) => Math.round(value).toLocaleString('en');
const kib = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(bytes < 10_240 ? 1 : 0)} KiB`);

interface Report {
  command: string;
  /** How the server under test was started. */
  server: string;
  date: string;
  machine: { cpus: string; memory: string; node: string; sqlite: string; os: string; loadAverage: { start: number; end: number } };
  settings: { stories: number; connections: number; seconds: number; rounds: number; warmup: number; single: number };
  library: { stories: number; seeded: LibraryMeta['seeded']; dbBytesPerStory: number; imageBytes: number; terms: Probe['terms'] };
  startup: { firstAnswerMs: number; firstListPageMs: number };
  peakRssMiB: number;
  ceilingPeakRssMiB: number;
  scenarios: ScenarioResult[];
  pages: PageResult[];
  weights?: PageWeights;
  targets: { name: string; target: string; measured: string; met: boolean }[];
}

function markdown(report: Report): string {
  const lines: string[] = [];
  lines.push(
    `\`${report.command}\` — ${report.date}; ${report.machine.cpus}, ${report.machine.memory}, Node ${report.machine.node}, SQLite ${report.machine.sqlite}; ` +
      `1-minute load average ${report.machine.loadAverage.start.toFixed(1)} at the start, ${report.machine.loadAverage.end.toFixed(1)} at the end.`,
  );
  lines.push(
    `${report.library.stories.toLocaleString('en')} stories; autocannon, ${report.settings.connections} connections, ` +
      `${report.settings.seconds} s per side per scenario in ${report.settings.rounds} alternating rounds after ${report.settings.warmup} s of warm-up; ` +
      `then ${report.settings.single} s with 1 connection. Server: \`${report.server}\`.`,
  );
  if (report.scenarios.length > 0) {
    lines.push('');
    lines.push('| scenario | response | req/s | ceiling req/s | ratio | p50 / p99 ms (10 conn.) | p50 / p99 ms (1 conn.) | CPU ms/req | ceiling CPU ms/req | target | met |');
    lines.push('|---|---|---|---|---|---|---|---|---|---|---|');
  }
  for (const s of report.scenarios) {
    lines.push(
      `| ${s.label} | ${kib(s.responseBytes)} | ${int(s.real.requestsPerSecond)} | ${int(s.ceiling.requestsPerSecond)} | ${s.ratio.toFixed(2)} | ` +
        `${ms(s.real.p50)} / ${ms(s.real.p99)} | ${ms(s.single.p50)} / ${ms(s.single.p99)} | ${ms(s.real.cpuMsPerRequest)} | ${ms(s.ceiling.cpuMsPerRequest)} | ` +
        `${s.target ?? ''} | ${s.met === undefined ? '' : s.met ? 'yes' : '**no**'} |`,
    );
  }
  if (report.pages.length > 0) {
    lines.push('');
    lines.push('Web pages, logged in (the HTML only), each request drawing its URL from the pool; 1 connection:');
    lines.push('');
    lines.push('| page | URLs in the pool | mean HTML | req/s | p50 / p99 ms (1 conn.) | CPU ms/req | target | met |');
    lines.push('|---|---|---|---|---|---|---|---|');
    for (const p of report.pages) {
      lines.push(
        `| ${p.label} | ${int(p.urls)} | ${kib(Math.round(p.meanBytes))} | ${int(p.single.requestsPerSecond)} | ${ms(p.single.p50)} / ${ms(p.single.p99)} | ${ms(p.single.cpuMsPerRequest)} | ${p.target} | ${p.met ? 'yes' : '**no**'} |`,
      );
    }
  }
  if (report.weights !== undefined) {
    const w = report.weights;
    lines.push('');
    lines.push(`Page weight (${w.pagesScanned.length} pages scanned for scripts):`);
    lines.push('');
    lines.push('| measure | raw | gzip |');
    lines.push('|---|---|---|');
    for (const script of w.scripts) lines.push(`| script \`${script.src}\` | ${kib(script.bytes)} | ${kib(script.gzipBytes)} |`);
    lines.push(`| every distinct script, once | ${kib(w.scripts.reduce((sum, script) => sum + script.bytes, 0))} | ${kib(w.scriptsGzipBytes)} |`);
    lines.push(`| library page HTML (page 0, grid) | ${kib(w.library.htmlBytes)} | ${kib(w.library.htmlGzipBytes)} |`);
    lines.push(`| library page CSS | ${kib(w.library.cssBytes)} | ${kib(w.library.cssGzipBytes)} |`);
    lines.push(`| library page HTML + CSS | ${kib(w.library.htmlBytes + w.library.cssBytes)} | ${kib(w.library.htmlGzipBytes + w.library.cssGzipBytes)} |`);
  }
  lines.push('');
  lines.push('| measure | value |');
  lines.push('|---|---|');
  lines.push(`| peak RSS of the server over the whole run (VmHWM) | ${report.peakRssMiB.toFixed(0)} MiB ${Number.isNaN(report.ceilingPeakRssMiB) ? '' : ` (ceiling server: ${report.ceilingPeakRssMiB.toFixed(0)} MiB)`} |`);
  lines.push(`| start-up: spawn to first answer (\`/healthz\`) | ${int(report.startup.firstAnswerMs)} ms |`);
  lines.push(`| start-up: spawn to first list page (login included) | ${int(report.startup.firstListPageMs)} ms |`);
  lines.push(`| database on disk per story | ${kib(report.library.dbBytesPerStory)} (covers: ${(report.library.imageBytes / 1024 / 1024).toFixed(1)} MiB in all) |`);
  lines.push(
    `| seeding (service write path, no HTTP) | ${int(report.library.seeded.storiesPerSecond)} stories/s (${report.library.seeded.seconds.toFixed(0)} s, ${report.library.seeded.covers} covers) |`,
  );
  lines.push('');
  lines.push('| target | measured | met |');
  lines.push('|---|---|---|');
  for (const t of report.targets) lines.push(`| ${t.name}: ${t.target} | ${t.measured} | ${t.met ? 'yes' : '**no**'} |`);
  return `${lines.join('\n')}\n`;
}

function targetSummary(results: readonly ScenarioResult[], pages: readonly PageResult[], weights: PageWeights | undefined, peakRss: number, startupMs: number): Report['targets'] {
  const targets: Report['targets'] = [];
  for (const p of pages) targets.push({ name: p.label, target: p.target, measured: `${ms(p.single.p99)} ms`, met: p.met });
  if (weights !== undefined) {
    targets.push({ name: 'JavaScript, every distinct script once', target: '<= 30 KiB gzipped', measured: kib(weights.scriptsGzipBytes), met: weights.scriptsGzipBytes <= SCRIPTS_GZIP_MAX });
    const library = weights.library.htmlBytes + weights.library.cssBytes;
    targets.push({
      name: 'library page HTML + CSS (before images, uncompressed)',
      target: '<= 60 KiB',
      measured: `${kib(library)} (${kib(weights.library.htmlGzipBytes + weights.library.cssGzipBytes)} gzipped)`,
      met: library <= LIBRARY_PAGE_MAX,
    });
  }
  for (const s of results) {
    if (s.target === undefined) continue;
    const measured = s.target.startsWith('p99') ? `${ms(s.single.p99)} ms` : s.target.includes('ceiling') ? `${s.ratio.toFixed(2)}` : `${int(s.real.requestsPerSecond)} req/s`;
    targets.push({ name: s.label, target: s.target, measured, met: s.met === true });
  }
  const first = results.find((s) => s.id === 'list-first');
  const last = results.find((s) => s.id === 'list-last');
  if (first !== undefined && last !== undefined) {
    const cost = last.real.cpuMsPerRequest / first.real.cpuMsPerRequest;
    targets.push({ name: 'list pages', target: 'last page costs the same as page 0 (CPU/request within 25%)', measured: `${cost.toFixed(2)} x`, met: cost <= 1.25 });
  }
  targets.push({ name: 'peak RSS', target: '<= 200 MB', measured: `${peakRss.toFixed(0)} MiB`, met: peakRss * 1.048576 <= 200 });
  targets.push({ name: 'start-up to first answer', target: '<= 1 s', measured: `${int(startupMs)} ms`, met: startupMs <= 1000 });
  return targets;
}

// ---------------------------------------------------------------------------------------------

/** Removes the stories the create scenario wrote, so a kept library stays the size it was seeded. */
function removeCreatedStories(dataDir: string): number {
  const db = openDatabase(path.join(dataDir, DATABASE_FILE_NAME));
  try {
    return writeTransaction(db, (tx) => tx.delete(stories).where(eq(stories.title, CREATED_TITLE)).run().changes);
  } finally {
    closeDatabase(db);
  }
}

/**
 * The node flags the server runs with: those of `npm start` (package.json), so the bench measures
 * the process as deployed; BENCH_NODE_FLAGS overrides them for experiments.
 */
function serverNodeFlags(): string[] {
  if (process.env.BENCH_NODE_FLAGS !== undefined) return process.env.BENCH_NODE_FLAGS.split(/\s+/).filter((flag) => flag !== '');
  const start = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start ?? '';
  const flags = /\bnode((?:\s+--\S+)*)\s+(?:scripts\/build\.mjs\s+)?dist\/src\/server\.js/.exec(start)?.[1] ?? '';
  return flags.split(/\s+/).filter((flag) => flag !== '');
}

async function main(): Promise<void> {
  const keep = process.env.BENCH_DATA_DIR;
  const dataDir = path.resolve(keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'storyshelf-bench-')));
  const resultsDir = path.join(ROOT, 'bench-results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const children: Child[] = [];
  let serverStarted = false;
  try {
    const meta = await prepareLibrary(dataDir);
    const probe = probeLibrary(dataDir);
    const list = scenarios(probe);
    console.log(
      `Terms: rare "${probe.terms.rare.term}" (${probe.terms.rare.docs}), mid "${probe.terms.mid.term}" (${probe.terms.mid.docs}), ` +
        `common "${probe.terms.common.term}" (${probe.terms.common.docs})`,
    );

    if (process.env.BENCH_NO_BUILD !== '1') execSync('npm run build --silent', { cwd: ROOT, stdio: 'inherit' });

    const port = await freePort();
    const profileDir = path.join(resultsDir, 'profiles');
    const nodeArgs = [...serverNodeFlags(), ...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];
    const spawnedAt = performance.now();
    const server = startChild([...nodeArgs, path.join(ROOT, 'dist', 'src', 'server.js')], { DATA_DIR: dataDir, HOST, PORT: String(port), LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' }, port);
    children.push(server);
    serverStarted = true;
    const firstAnswerMs = await waitForAnswer(server, `${server.origin}/healthz`, spawnedAt);
    const token = await login(server.origin);
    const firstPage = await fetch(`${server.origin}/api/stories?page=0&size=20`, { headers: { cookie: `token=${token}` } });
    await firstPage.arrayBuffer();
    const firstListPageMs = performance.now() - spawnedAt;
    console.log(`Server up: first answer after ${firstAnswerMs.toFixed(0)} ms, first list page after ${firstListPageMs.toFixed(0)} ms`);

    const captures: Capture[] = [];
    for (const scenario of list) captures.push(await capture(server.origin, scenario, token));
    const capturesFile = path.join(resultsDir, 'captures.json');
    fs.writeFileSync(capturesFile, JSON.stringify(captures));
    // The ceiling only serves the API scenarios: with BENCH_ONLY naming pages alone it is not started.
    let ceiling: Child | undefined;
    if (list.length > 0) {
      const ceilingPort = await freePort();
      ceiling = startChild([path.join(ROOT, 'dist', 'scripts', 'bench', 'ceiling-server.js'), capturesFile, String(ceilingPort)], {}, ceilingPort);
      children.push(ceiling);
      await waitForAnswer(ceiling, `${ceiling.origin}${list[0]!.method === 'GET' ? list[0]!.url : '/none'}`, performance.now(), 30_000).catch(() => undefined);
    }

    const loadAtStart = os.loadavg()[0] ?? 0;
    const results: ScenarioResult[] = [];
    for (const [index, scenario] of list.entries()) {
      const bytes = Buffer.from(captures[index]!.bodyBase64, 'base64').length;
      const result = await measure(server, ceiling!, scenario, token, bytes);
      results.push(result);
      console.log(
        `  ${scenario.id.padEnd(16)} ${int(result.real.requestsPerSecond).padStart(7)} req/s  ceiling ${int(result.ceiling.requestsPerSecond).padStart(7)}  ratio ${result.ratio.toFixed(2)}  ` +
          `p50/p99 ${ms(result.real.p50)}/${ms(result.real.p99)} ms  1 conn. ${ms(result.single.p50)}/${ms(result.single.p99)} ms  CPU ${ms(result.real.cpuMsPerRequest)} ms/req  peak RSS ${result.peakRssMiB.toFixed(0)} MiB` +
          (result.met === undefined ? '' : result.met ? '  ok' : '  MISSED'),
      );
    }

    const pageResults: PageResult[] = [];
    for (const scenario of pageScenarios(probe)) {
      const result = await measurePage(server, scenario, token);
      pageResults.push(result);
      console.log(
        `  ${scenario.id.padEnd(16)} ${int(result.single.requestsPerSecond).padStart(7)} req/s (1 conn.)  p50/p99 ${ms(result.single.p50)}/${ms(result.single.p99)} ms  ` +
          `CPU ${ms(result.single.cpuMsPerRequest)} ms/req  ${kib(Math.round(result.meanBytes))}  over ${int(result.urls)} URLs${result.met ? '  ok' : '  MISSED'}`,
      );
    }
    const weights = ONLY === undefined || ONLY.some((id) => id.startsWith('page-')) ? await pageWeights(server.origin, token, probe) : undefined;
    if (weights !== undefined) {
      console.log(
        `  scripts: ${weights.scripts.length} distinct, ${kib(weights.scriptsGzipBytes)} gzipped; library page HTML + CSS ${kib(weights.library.htmlBytes + weights.library.cssBytes)} ` +
          `(${kib(weights.library.htmlGzipBytes + weights.library.cssGzipBytes)} gzipped)`,
      );
    }

    const peakRss = memoryMiB(server.pid).peak;
    const ceilingPeak = ceiling === undefined ? NaN : memoryMiB(ceiling.pid).peak;
    const report: Report = {
      command: QUICK ? 'npm run bench:quick' : STORIES === 100_000 ? 'npm run bench' : `BENCH_STORIES=${STORIES} npm run bench`,
      server: ['node', ...serverNodeFlags(), 'dist/src/server.js'].join(' '),
      date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      machine: {
        cpus: `${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? 'cpu'}`,
        memory: `${(os.totalmem() / 1024 ** 3).toFixed(0)} GiB RAM`,
        node: process.versions.node,
        sqlite: probe.sqliteVersion,
        os: `${os.type()} ${os.release()}`,
        // Other work on the machine takes CPU from the server more than from the ceiling: say how busy it was.
        loadAverage: { start: loadAtStart, end: os.loadavg()[0] ?? 0 },
      },
      settings: { stories: STORIES, connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, warmup: WARMUP_SECONDS, single: SINGLE_SECONDS },
      library: { stories: probe.stories, seeded: meta.seeded, dbBytesPerStory: probe.dbBytes / probe.stories, imageBytes: probe.imageBytes, terms: probe.terms },
      startup: { firstAnswerMs, firstListPageMs },
      peakRssMiB: peakRss,
      ceilingPeakRssMiB: ceilingPeak,
      scenarios: results,
      pages: pageResults,
      ...(weights === undefined ? {} : { weights }),
      targets: targetSummary(results, pageResults, weights, peakRss, firstAnswerMs),
    };
    const table = markdown(report);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
    const base = path.join(resultsDir, `bench-${STORIES}-${stamp}`);
    fs.writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
    fs.writeFileSync(`${base}.md`, table);
    fs.writeFileSync(path.join(resultsDir, QUICK ? 'latest-quick.md' : 'latest.md'), table);
    console.log('');
    console.log(table);
    console.log(`Written: ${path.relative(ROOT, base)}.{json,md}`);
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    if (keep === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
    else if (serverStarted) console.log(`Removed ${removeCreatedStories(dataDir)} stories written by the create scenario from ${dataDir}`);
  }
}

await main();
