/**
 * `npm run bench` (docs/performance.md): every hot path at 100,000 stories, next to its ceiling,
 * each request drawn from a pool that spans the whole library.
 *
 *   npm run bench                                      # 100,000 stories in a temp folder it deletes
 *   npm run bench:quick                                # 5,000 stories, a few seconds per scenario
 *   BENCH_DATA_DIR=/var/tmp/shelf-100k npm run bench   # keep the library and reuse it next time
 *   BENCH_ONLY=story,search-mid,mixed,recall npm run bench:quick   # some scenarios only
 *   BENCH_CPU_PROF=1 npm run bench:quick               # --cpu-prof the server (bench-results/profiles/)
 *   BENCH_STORIES=20000 BENCH_SECONDS=6 npm run bench  # another size; seconds per side per scenario
 *   BENCH_SERVER_ENV="SEARCH_WORKERS=0" npm run bench  # more environment for the server (side-by-side runs)
 *   BENCH_COLD=1 npm run bench                         # do not read the database into the page cache first
 *
 * 1. Seeds a synthetic library (scripts/lib/synthetic-library.ts) through the services' write
 *    path straight into the data folder (no HTTP), unless the folder already holds one of the
 *    same size; then reads its pools (scripts/bench/probe.ts): every story id, author, series
 *    and tag, and the search index's words split by how many stories hold them.
 * 2. Builds (`npm run build`) and starts the real server, `node dist/src/server.js`, as a child
 *    process on 127.0.0.1, timing spawn -> first answer.
 * 3. For each scenario (scripts/bench/scenarios.ts), captures the real responses to a sample of
 *    its drawn requests, and serves exactly those bytes from a bare Fastify server in another
 *    child (scripts/bench/ceiling-server.ts): the ceiling.
 * 4. Drives both with autocannon (10 connections), every request drawn afresh from the pool
 *    (the ceiling from its sample), alternating server and ceiling in rounds after a warm-up,
 *    reading each child's CPU time from /proc around every run; then the server alone with 1
 *    connection. Then the mixed scenario (story reads and common-word searches at once), the typo
 *    recall check, the page weights, and last the creates (they grow the library).
 * 5. Prints one markdown table with PASS/MISS per target, and writes
 *    bench-results/bench-<size>-<time>.{json,md} and bench-results/latest[-quick].md.
 *
 * Every loop is bounded in count and time; everything listens on 127.0.0.1 only.
 */
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { applyMigrations, closeDatabase, DATABASE_FILE_NAME, openDatabase, type Db } from '../src/db/open.js';
import { stories } from '../src/db/schema.js';
import { writeTransaction } from '../src/db/transaction.js';
import { ImageStore, imagesFolderOf } from '../src/images/store.js';
import { verifyPassword } from '../src/auth/password.js';
import { readStoredPassword, storePassword } from '../src/auth/secrets.js';
import { DEFAULT_SEED, prng, seedLibrary } from './lib/synthetic-library.js';
import type { Capture } from './bench/protocol.js';
import { cpuMs, freePort, HOST, memoryMiB, startChild, stopChild, waitForAnswer, type Child } from './bench/processes.js';
import { figures, load, loadTogether, type Draw, type DrawnRequest, type Run } from './bench/load.js';
import { readThrough } from './bench/page-cache.js';
import { pick } from './bench/pools.js';
import { probeLibrary, type LibraryPools } from './bench/probe.js';
import { CREATED_TITLE, scenarios, type MixedScenario, type Scenario } from './bench/scenarios.js';
import { checkRecall, type RecallResult } from './bench/recall.js';
import { pageWeights, type PageWeights } from './bench/page-weights.js';
import { checkTarget, int, kib, markdown, ms, targetLines, type MixedResult, type Report, type ScenarioResult } from './bench/report.js';
import { measureSustained, type SustainedResult } from './bench/sustained.js';
import { probeSpeed, type SpeedProbeResult } from './bench/speed-probe.js';
import { ensureLongWorks } from './bench/long-works.js';
import { timeEpubImport, type EpubImportResult } from './bench/epub-import.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const QUICK = process.argv.includes('--quick');
const STORIES = Number(process.env.BENCH_STORIES ?? (QUICK ? 5_000 : 100_000));
/** Measured seconds per side (server, ceiling) per scenario, split over the rounds. */
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 3 : 10));
const ROUNDS = 2;
/** Imports of the 100-chapter EPUB, one after another (scripts/bench/epub-import.ts). */
const EPUB_IMPORT_RUNS = QUICK ? 3 : 5;
const WARMUP_SECONDS = QUICK ? 1 : 2;
const SINGLE_SECONDS = QUICK ? 2 : 5;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
/** Seconds of the sustained creates (scripts/bench/sustained.ts): long enough for periodic upkeep to run inside. */
const SUSTAINED_SECONDS = Number(process.env.BENCH_SUSTAINED_SECONDS ?? (QUICK ? 20 : 60));
const ONLY = process.env.BENCH_ONLY?.split(',').map((id) => id.trim()).filter((id) => id !== '');
const PROFILE = process.env.BENCH_CPU_PROF === '1';
/** Skip reading the database through before each scenario (scripts/bench/page-cache.ts). */
const COLD = process.env.BENCH_COLD === '1';
const PASSWORD = 'bench-password-not-secret';
/** Bumped whenever the generator changes what it builds: a kept library of another version is refused. */
const GENERATOR_VERSION = 1;
const LIBRARY_META = 'bench-library.json';
/**
 * The ceiling replays up to this many distinct captured requests per scenario, within this many
 * bytes of bodies (a list page is ~660 KB): the ceiling's cost is the bytes on the wire, which a
 * sample of the pool already has.
 */
const CEILING_SAMPLE = 48;
const CEILING_SAMPLE_BYTES = 4 * 1024 * 1024;

const selected = (id: string) => ONLY === undefined || ONLY.includes(id);

interface LibraryMeta {
  generator: number;
  seed: number;
  stories: number;
  seeded: { seconds: number; storiesPerSecond: number; covers: number; at: string };
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
      await addLongWorks(db, dataDir);
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
    const store = await ImageStore.open(imagesFolderOf(dataDir), { warn: (details, message) => console.warn(message, details) });
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
    await addLongWorks(db, dataDir, store);
    fs.writeFileSync(metaFile, `${JSON.stringify(meta, null, 2)}\n`);
    await ensurePassword(dataDir);
    return meta;
  } finally {
    closeDatabase(db);
  }
}

/** The long works the chapter scenarios read (scripts/bench/long-works.ts), added once to a new or kept library. */
async function addLongWorks(db: Db, dataDir: string, opened?: ImageStore): Promise<void> {
  const store = opened ?? (await ImageStore.open(imagesFolderOf(dataDir), { warn: (details, message) => console.warn(message, details) }));
  const added = await ensureLongWorks(db, store);
  if (added.written > 0) console.log(`Added ${added.written} long works (40 and 100 chapters) in ${added.seconds.toFixed(1)} s`);
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

// ---------------------------------------------------------------------------------------------
// The server

async function login(origin: string): Promise<string> {
  const response = await fetch(`${origin}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password: PASSWORD }),
  });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}


// ---------------------------------------------------------------------------------------------
// Load

/** A stable seed per scenario and run, so two runs of the bench draw the same sequences. */
function seedOf(id: string, run: number): number {
  let hash = 2166136261;
  for (const char of id) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
  return (hash ^ Math.imul(run + 1, 0x9e3779b1)) >>> 0;
}

/**
 * Sends a sample of the scenario's drawn requests to the real server and keeps each answer (the
 * ceiling replays them). A POST is captured once: it writes.
 */
async function capture(origin: string, scenario: Scenario, token: string): Promise<Capture[]> {
  const random = prng(seedOf(scenario.id, -1));
  const captures: Capture[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  const limit = scenario.method === 'POST' ? 1 : CEILING_SAMPLE;
  for (let attempt = 0; captures.length < limit && attempt < limit * 4 && bytes < CEILING_SAMPLE_BYTES; attempt += 1) {
    const drawn = scenario.draw(random);
    if (seen.has(drawn.path)) continue;
    seen.add(drawn.path);
    const headers: Record<string, string> = { cookie: `token=${token}` };
    if (drawn.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${origin}${drawn.path}`, { method: scenario.method, headers, body: drawn.body ?? null, signal: AbortSignal.timeout(60_000) });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== scenario.status) throw new Error(`${scenario.id} ${drawn.path}: expected ${scenario.status}, got ${response.status}: ${body.toString().slice(0, 500)}`);
    const kept: Record<string, string> = {};
    response.headers.forEach((value, name) => (kept[name] = value));
    captures.push({ method: scenario.method, url: drawn.path, status: response.status, headers: kept, bodyBase64: body.toString('base64') });
    bytes += body.length;
  }
  return captures;
}

async function measure(server: Child, ceiling: Child, scenario: Scenario, token: string, sample: readonly Capture[]): Promise<ScenarioResult> {
  const requests: DrawnRequest[] = sample.map((item) => ({ path: item.url }));
  // The ceiling draws from what it can answer; a POST's body is drawn like the server's (its route ignores it).
  const ceilingDraw: Draw = scenario.method === 'POST' ? scenario.draw : (random) => pick(requests, random);
  const run = (child: Child, draw: Draw, seconds: number, connections: number, seed: number) =>
    load({ origin: child.origin, pid: child.pid, method: scenario.method, status: scenario.status, token, draw, seconds, connections, seed });
  await run(server, scenario.draw, WARMUP_SECONDS, CONNECTIONS, seedOf(scenario.id, 0));
  await run(ceiling, ceilingDraw, WARMUP_SECONDS, CONNECTIONS, seedOf(scenario.id, 0));
  const serverRuns: Run[] = [];
  const ceilingRuns: Run[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    serverRuns.push(await run(server, scenario.draw, SECONDS / ROUNDS, CONNECTIONS, seedOf(scenario.id, round + 1)));
    ceilingRuns.push(await run(ceiling, ceilingDraw, SECONDS / ROUNDS, CONNECTIONS, seedOf(scenario.id, round + 1)));
  }
  await settle(server);
  const single = figures([await run(server, scenario.draw, SINGLE_SECONDS, 1, seedOf(scenario.id, ROUNDS + 1))]);
  const real = figures(serverRuns);
  const ceilingFigures = figures(ceilingRuns);
  if (real.unexpected + ceilingFigures.unexpected + single.unexpected > 0) {
    console.warn(`  ${scenario.id}: ${real.unexpected + single.unexpected} unexpected statuses (server), ${ceilingFigures.unexpected} (ceiling)`);
  }
  return {
    id: scenario.id,
    label: scenario.label,
    pool: scenario.pool,
    poolSize: scenario.poolSize,
    ceilingSample: sample.length,
    real,
    ceiling: ceilingFigures,
    single,
    ratio: real.requestsPerSecond / ceilingFigures.requestsPerSecond,
    peakRssMiB: memoryMiB(server.pid).peak,
    ...(scenario.target === undefined ? {} : { target: scenario.target }),
  };
}

/** Story reads and common-word searches at the same time, each on its own connections. */
async function measureMixed(server: Child, mixed: MixedScenario, token: string): Promise<MixedResult> {
  const spec = (scenario: Scenario, run: number) => ({
    origin: server.origin,
    pid: server.pid,
    method: scenario.method,
    status: scenario.status,
    token,
    draw: scenario.draw,
    connections: mixed.connectionsEach,
    seed: seedOf(`mixed-${scenario.id}`, run),
  });
  await loadTogether([{ ...spec(mixed.reads, 0), seconds: WARMUP_SECONDS }, { ...spec(mixed.searches, 0), seconds: WARMUP_SECONDS }]);
  const [reads, searches] = await loadTogether([{ ...spec(mixed.reads, 1), seconds: SECONDS }, { ...spec(mixed.searches, 1), seconds: SECONDS }]);
  return { label: mixed.label, connectionsEach: mixed.connectionsEach, reads: figures([reads!]), searches: figures([searches!]), maxReadP99Ms: mixed.target.maxMs };
}

/**
 * Waits (at most 2 minutes) until the server is idle again (under 10 % of a core over half a
 * second) and answers `/healthz`: requests a scenario left queued on its event loop when the load
 * stopped would otherwise be paid by the next scenario (a 2-second tag page at 10 connections
 * leaves ~20 s of them).
 */
async function settle(server: Child): Promise<void> {
  const started = performance.now();
  for (let busy = true; busy && performance.now() - started < 120_000; ) {
    const before = cpuMs(server.pid);
    await sleep(500);
    busy = cpuMs(server.pid) - before > 50;
  }
  await waitForAnswer(server, `${server.origin}/healthz`, performance.now(), 120_000);
  const waited = performance.now() - started;
  if (waited > 2_000) console.warn(`  (the server was busy for ${(waited / 1000).toFixed(1)} s after the last scenario)`);
}

function logResult(result: ScenarioResult): void {
  const check = result.target === undefined ? undefined : checkTarget(result.target, result);
  console.log(
    `  ${result.id.padEnd(16)} ${int(result.real.requestsPerSecond).padStart(7)} req/s  ceiling ${int(result.ceiling.requestsPerSecond).padStart(7)}  ratio ${result.ratio.toFixed(2)}  ` +
      `p50/p99 ${ms(result.real.p50)}/${ms(result.real.p99)} ms  1 conn. ${ms(result.single.p50)}/${ms(result.single.p99)} ms  CPU ${ms(result.real.cpuMsPerRequest)} ms/req  ` +
      `${kib(result.real.meanBytes)}  peak RSS ${result.peakRssMiB.toFixed(0)} MiB${check === undefined ? '' : check.met ? '  PASS' : '  MISS'}`,
  );
}

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

/** More environment for the server, for side-by-side experiments: BENCH_SERVER_ENV="SEARCH_WORKERS=0 MALLOC_ARENA_MAX=2". */
function serverEnvironment(): Record<string, string> {
  const pairs = (process.env.BENCH_SERVER_ENV ?? '').split(/\s+/).filter((pair) => pair.includes('='));
  return Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
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
    const pools: LibraryPools = probeLibrary(dataDir, `generator-${GENERATOR_VERSION}-seed-${DEFAULT_SEED}`);
    const set = scenarios(pools);
    const list = set.api.filter((scenario) => selected(scenario.id));
    console.log(
      `Pools: ${int(pools.storyIds.length)} stories; words: ${int(pools.words.rare.length)} rare, ${int(pools.words.mid.length)} mid, ${int(pools.words.common.length)} common; ` +
        `${int(set.typos.length)} typos; ${int(pools.recall.length)} recall cases`,
    );

    if (process.env.BENCH_NO_BUILD !== '1') execSync('npm run build --silent', { cwd: ROOT, stdio: 'inherit' });

    const port = await freePort();
    const profileDir = path.join(resultsDir, 'profiles');
    const nodeArgs = [...serverNodeFlags(), ...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];
    const spawnedAt = performance.now();
    const server = startChild(
      [...nodeArgs, path.join(ROOT, 'dist', 'src', 'server.js')],
      { ...serverEnvironment(), DATA_DIR: dataDir, HOST, PORT: String(port), LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' },
      port,
    );
    children.push(server);
    serverStarted = true;
    const firstAnswerMs = await waitForAnswer(server, `${server.origin}/healthz`, spawnedAt);
    const token = await login(server.origin);
    const firstPage = await fetch(`${server.origin}/api/stories?page=0&size=20`, { headers: { cookie: `token=${token}` } });
    await firstPage.arrayBuffer();
    const firstListPageMs = performance.now() - spawnedAt;
    console.log(`Server up: first answer after ${firstAnswerMs.toFixed(0)} ms, first list page after ${firstListPageMs.toFixed(0)} ms`);

    const samples = new Map<string, Capture[]>();
    for (const scenario of list) samples.set(scenario.id, await capture(server.origin, scenario, token));
    let ceiling: Child | undefined;
    if (list.length > 0) {
      const capturesFile = path.join(resultsDir, 'captures.json');
      fs.writeFileSync(capturesFile, JSON.stringify([...samples.values()].flat()));
      const ceilingPort = await freePort();
      ceiling = startChild([path.join(ROOT, 'dist', 'scripts', 'bench', 'ceiling-server.js'), capturesFile, String(ceilingPort)], {}, ceilingPort);
      children.push(ceiling);
      const first = [...samples.values()].flat().find((item) => item.method === 'GET');
      await waitForAnswer(ceiling, `${ceiling.origin}${first?.url ?? '/none'}`, performance.now(), 30_000).catch(() => undefined);
    }

    const databaseFiles = [DATABASE_FILE_NAME, `${DATABASE_FILE_NAME}-wal`].map((name) => path.join(dataDir, name));
    const warm = () => {
      if (!COLD) console.log(`    (database read into the page cache in ${readThrough(databaseFiles).toFixed(1)} s)`);
    };
    const loadAtStart = os.loadavg()[0] ?? 0;
    const results: ScenarioResult[] = [];
    // The creates grow the library: they run last, after the mixed scenario and the recall check.
    const creates = list.filter((scenario) => scenario.method === 'POST');
    for (const scenario of list.filter((item) => item.method !== 'POST')) {
      warm();
      results.push(await measure(server, ceiling!, scenario, token, samples.get(scenario.id)!));
      logResult(results[results.length - 1]!);
      await settle(server);
    }
    let mixed: MixedResult | undefined;
    if (selected('mixed')) {
      warm();
      mixed = await measureMixed(server, set.mixed, token);
      await settle(server);
      console.log(
        `  mixed            story by id ${int(mixed.reads.requestsPerSecond)} req/s p50/p99 ${ms(mixed.reads.p50)}/${ms(mixed.reads.p99)} ms while ` +
          `common-word searches ${int(mixed.searches.requestsPerSecond)} req/s p50/p99 ${ms(mixed.searches.p50)}/${ms(mixed.searches.p99)} ms` +
          (mixed.reads.p99 <= mixed.maxReadP99Ms ? '  PASS' : '  MISS'),
      );
    }
    let recall: RecallResult | undefined;
    if (selected('recall')) {
      warm();
      recall = await checkRecall(server.origin, token, pools.recall);
      console.log(`  recall           ${recall.found} of ${recall.cases} misspellings found their story (${recall.seconds.toFixed(1)} s)`);
    }
    let weights: PageWeights | undefined;
    let weightsError: string | undefined;
    if (ONLY === undefined || ONLY.some((id) => id.startsWith('page-'))) {
      try {
        weights = await pageWeights(server.origin, token, pools.storyIds[Math.floor(pools.storyIds.length / 2)]!, pools.words.mid[0]?.term ?? 'story');
        console.log(
          `  scripts: ${weights.scripts.length} distinct, ${kib(weights.scriptsGzipBytes)} gzipped; library page HTML + CSS ${kib(weights.library.htmlBytes + weights.library.cssBytes)}`,
        );
      } catch (error) {
        // A page that does not answer is a finding for the report, not a reason to lose the run.
        weightsError = error instanceof Error ? error.message : String(error);
        console.warn(`  page weights: ${weightsError}`);
      }
    }
    let epubImport: EpubImportResult | undefined;
    if (selected('import-epub') && pools.hundredChapterWork !== undefined) {
      warm();
      await settle(server);
      epubImport = await timeEpubImport(server.origin, token, pools.hundredChapterWork, EPUB_IMPORT_RUNS);
      console.log(`  import-epub      ${epubImport.chapters} chapters, ${kib(epubImport.bytes)}: ${epubImport.totalMs.map((value) => `${int(value)} ms`).join(', ')}`);
    }
    const create = set.api.find((scenario) => scenario.id === 'create');
    let speedProbe: SpeedProbeResult | undefined;
    if (creates.length > 0 || (selected('create-sustained') && create !== undefined)) {
      // Timed with the server idle, right before the creates: the machine's speed drifts within an hour.
      await settle(server);
      speedProbe = probeSpeed(set.createBodies);
      console.log(
        `  speed probe      ${ms(speedProbe.medianCpuMs)} ms of CPU per unit (runs ${speedProbe.cpuMsPerUnit.map(ms).join(', ')}; wall ${speedProbe.wallMsPerUnit.map(ms).join(', ')})`,
      );
    }
    for (const scenario of creates) {
      warm();
      results.push(await measure(server, ceiling!, scenario, token, samples.get(scenario.id)!));
      logResult(results[results.length - 1]!);
    }
    let sustained: SustainedResult | undefined;
    if (selected('create-sustained') && create !== undefined) {
      warm();
      await settle(server);
      sustained = await measureSustained(`${create.label}, for ${SUSTAINED_SECONDS} s`, {
        origin: server.origin,
        pid: server.pid,
        method: create.method,
        status: create.status,
        token,
        draw: create.draw,
        seconds: SUSTAINED_SECONDS,
        connections: CONNECTIONS,
        seed: 7,
      });
      console.log(
        `  create-sustained ${int(sustained.requestsPerSecond).padStart(7)} req/s  slowest 5 s ${int(sustained.slowestWindow)} req/s  ` +
          `threads: ${sustained.threads.slice(0, 5).map((thread) => `${thread.name} ${int(thread.cpuMs)} ms`).join(', ')}`,
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
        sqlite: pools.sqliteVersion,
        os: `${os.type()} ${os.release()}`,
        // Other work on the machine takes CPU from the server more than from the ceiling: say how busy it was.
        loadAverage: { start: loadAtStart, end: os.loadavg()[0] ?? 0 },
      },
      settings: { stories: STORIES, connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, warmup: WARMUP_SECONDS, single: SINGLE_SECONDS, pageCache: COLD ? 'cold' : 'warm' },
      library: { stories: pools.stories, seeded: meta.seeded, dbBytesPerStory: pools.dbBytes / pools.stories, imageBytes: folderBytes(imagesFolderOf(dataDir)) },
      startup: { firstAnswerMs, firstListPageMs },
      peakRssMiB: peakRss,
      ceilingPeakRssMiB: ceilingPeak,
      scenarios: results,
      ...(mixed === undefined ? {} : { mixed }),
      ...(recall === undefined ? {} : { recall }),
      ...(weights === undefined ? {} : { weights }),
      ...(sustained === undefined ? {} : { sustained }),
      ...(epubImport === undefined ? {} : { epubImport }),
      ...(speedProbe === undefined ? {} : { speedProbe }),
      targets: [
        ...targetLines(results, mixed, weights, peakRss, firstAnswerMs, recall, sustained, epubImport, speedProbe),
        ...(weightsError === undefined ? [] : [{ name: 'page weights: every page answers 200', target: 'all 14 pages', measured: weightsError, met: false }]),
      ],
    };
    const table = markdown(report);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
    const base = path.join(resultsDir, `bench-${STORIES}-${stamp}`);
    fs.writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
    fs.writeFileSync(`${base}.md`, table);
    fs.writeFileSync(path.join(resultsDir, QUICK ? 'latest-quick.md' : 'latest.md'), table);
    console.log('');
    console.log(table);
    const missed = report.targets.filter((target) => !target.met);
    console.log(`${report.targets.length - missed.length} of ${report.targets.length} targets PASS${missed.length === 0 ? '' : `; MISS: ${missed.map((target) => target.name).join('; ')}`}`);
    console.log(`Written: ${path.relative(ROOT, base)}.{json,md}`);
  } catch (error) {
    // A child that died mid-run (the server or the ceiling) says why in its own output.
    for (const child of children) {
      const { exitCode, signalCode } = child.process;
      if (exitCode !== null || signalCode !== null) console.error(`process ${child.pid} (${child.origin}) exited with ${exitCode ?? signalCode}; its last output:\n${child.output().slice(-4_000)}`);
    }
    throw error;
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    if (keep === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
    else if (serverStarted) console.log(`Removed ${removeCreatedStories(dataDir)} stories written by the create scenario from ${dataDir}`);
  }
}

await main();
