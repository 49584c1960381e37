/**
 * Soak (reliability, part 4 of 4): a bounded mixed read/write load against the real server process
 * (~15 s by default, 3 minutes under `npm run test:long`) while the child's resident memory
 * (VmRSS from /proc) is sampled every 250 ms.
 *
 * Memory must settle. The first fifth of the run is warm-up (JIT, SQLite's page cache, V8 growing
 * its heap to its working size) and is not judged. Of the rest, the median RSS of the last
 * quarter of the run ("end") must stay within 1.3 x the median of the quarter right after the
 * warm-up ("middle") plus 32 MiB, and no sample may exceed 512 MiB. Medians of windows, not
 * single samples, so one garbage-collection spike cannot fail the run; the ratio and the
 * allowance (~90 MiB over a ~190 MiB middle) are wide enough for V8's normal heap growth. What
 * crosses them: an unbounded cache, or a leak of ~60 KiB per request in the short run (~150
 * requests a second on a loaded 2-core machine, ~1,400 between the windows) and of ~6 KiB in the
 * 3-minute one; smaller leaks are the long run's to find. The
 * library is kept at a bounded size (stories are deleted as they are created) so that memory has
 * no legitimate reason to grow. The WAL must stay bounded too (checkpoints keep up), nothing may
 * be logged at error level, every answer must be one the request can get, and the library must
 * pass the integrity and search checks at the end.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { tempDataDir } from '../helpers/app.js';
import * as img from '../helpers/images.js';
import { ApiClient, errorLogLines, inspectDatabase, Random, rssKiB, sized, stopCleanly, testSeed, type ApiResponse } from '../helpers/reliability.js';
import { RESTART_WAL_BYTES } from '../../src/db/checkpoints.js';
import { login, startServer } from '../helpers/server-process.js';

const PASSWORD = 'soak test password';
const DURATION_MS = sized(15_000, 180_000);
const CLIENTS = 4;
/** The library hovers around this many stories: creates beyond it delete the oldest of the client's own. */
const STORIES_PER_CLIENT = 60;
const MiB = 1024;

const WORDS = ['river', 'stone', 'lantern', 'harbor', 'winter', 'signal', 'garden', 'mirror', 'orchard', 'thunder', 'velvet', 'cipher'];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

t.test('a mixed load for a while: memory settles, nothing is logged as an error', async (t) => {
  const seed = testSeed(t, 'soak');
  const rng = new Random(seed);
  const dataDir = tempDataDir(t);
  const server = await startServer(t, { DATA_DIR: dataDir, APP_PASSWORD: PASSWORD });
  const pid = server.child.pid as number;
  const api = new ApiClient(server.origin, await login(server.origin, PASSWORD));

  const body = (n: number) => `<p>${Array.from({ length: 40 + (n % 400) }, (_, i) => WORDS[(n * 7 + i) % WORDS.length]).join(' ')}</p>`;
  const shared: string[] = [];
  for (let n = 0; n < 80; n += 1) {
    const res = await api.json('POST', '/api/stories', { title: `seed ${n} ${rng.pick(WORDS)}`, contentHtml: body(n), authorName: `Author ${n % 9}`, seriesName: `Series ${n % 4}`, tagNames: [rng.pick(WORDS), rng.pick(WORDS)], rating: (n % 5) + 1 });
    shared.push(res.body.id);
  }

  // Every request's latency: a stalled event loop (a checkpoint, a slow body) shows here.
  const latencies: number[] = [];
  const send = api.request.bind(api);
  api.request = async (...args: Parameters<ApiClient['request']>) => {
    const sent = performance.now();
    try {
      return await send(...args);
    } finally {
      latencies.push(performance.now() - sent);
    }
  };
  let died: string | undefined;
  void server.exited.then((code) => (died = `the server exited (${String(code)}) during the load:\n${server.output().slice(-6000)}`));
  const samples: Array<{ at: number; kib: number }> = [];
  const started = Date.now();
  const sampler = setInterval(() => {
    if (died === undefined) samples.push({ at: Date.now() - started, kib: rssKiB(pid) });
  }, 250);
  const counts = { requests: 0, writes: 0 };
  const unexpected: string[] = [];
  const check = (label: string, res: ApiResponse, allowed: number[]) => {
    counts.requests += 1;
    if (!allowed.includes(res.status) && unexpected.length < 20) unexpected.push(`${label}: ${res.status} ${res.text.slice(0, 200)}`);
    return res;
  };

  const client = async (index: number) => {
    const random = new Random(rng.int(2 ** 32));
    const own: string[] = [];
    for (let n = 0; Date.now() - started < DURATION_MS && died === undefined; n += 1) {
      const word = random.pick(WORDS);
      const op = random.weighted<string>([[14, 'list'], [10, 'get'], [10, 'search'], [4, 'suggest'], [6, 'lists'], [3, 'image'], [12, 'create'], [8, 'update'], [5, 'rate'], [4, 'tag'], [3, 'cover']]);
      const anyId = random.pick(own.length > 0 && random.chance(0.5) ? own : shared);
      if (op === 'list') check(op, await api.get(`/api/stories?page=${random.int(5)}&size=${random.between(5, 50)}&sortBy=${random.pick(['createdAt', 'title', 'rating', 'authorName'])}`), [200]);
      else if (op === 'get') check(op, await api.get(`/api/stories/${anyId}`), [200, 404]);
      else if (op === 'search') check(op, await api.get(`/api/stories/search?query=${word}${random.chance(0.3) ? '+sto' : ''}&size=10${random.chance(0.3) ? `&tags=${random.pick(WORDS)}` : ''}`), [200]);
      else if (op === 'suggest') check(op, await api.get(`/api/stories/search/suggestions?query=${word.slice(0, random.between(1, 4))}`), [200]);
      else if (op === 'lists') check(op, await api.get(random.pick(['/api/authors?size=20', '/api/tags/popular', '/api/series/with-stories', '/api/tags/stats', '/api/authors/top-rated', '/api/stories/recent'])), [200]);
      else if (op === 'image') {
        const story = await api.get(`/api/stories/${anyId}`);
        const cover = story.body?.coverPath;
        if (typeof cover === 'string') check(op, await api.get(`/api/files/images/${cover}`), [200, 404]);
      } else if (op === 'create') {
        const res = check(op, await api.json('POST', '/api/stories', { title: `soak ${index} ${n} ${word}`, contentHtml: body(n), authorName: `Author ${random.int(12)}`, tagNames: [word, random.pick(WORDS)] }), [201]);
        counts.writes += 1;
        if (res.status === 201) own.push(res.body.id);
        if (own.length > STORIES_PER_CLIENT) {
          check('delete', await api.request('DELETE', `/api/stories/${own.shift() as string}`), [200]);
          counts.writes += 1;
        }
      } else if (own.length > 0) {
        const id = random.pick(own);
        counts.writes += 1;
        if (op === 'update') check(op, await api.json('PUT', `/api/stories/${id}`, { summary: `${word} ${n}`, tagNames: [word], contentHtml: body(n + index) }), [200]);
        else if (op === 'rate') check(op, await api.json('POST', `/api/stories/${id}/rating`, { rating: random.between(1, 5) }), [200]);
        else if (op === 'tag') check(op, await api.json('PUT', `/api/stories/${id}`, { tagNames: [random.pick(WORDS), random.pick(WORDS)] }), [200]);
        else check(op, await api.upload('POST', `/api/stories/${id}/cover`, [{ name: 'file', data: random.chance(0.5) ? img.png() : img.pngOfSize(random.between(20_000, 300_000)) }]), [200]);
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, (_, index) => client(index).catch((error: unknown) => {
    if (died === undefined) throw error;
  })));
  clearInterval(sampler);
  await new Promise((resolve) => setTimeout(resolve, 100));
  if (died !== undefined) {
    t.fail(died);
    return;
  }
  const elapsed = Date.now() - started;

  const judged = samples.filter((sample) => sample.at >= DURATION_MS * 0.2);
  const quarter = (DURATION_MS * 0.8) / 4;
  const middle = median(judged.filter((sample) => sample.at < DURATION_MS * 0.2 + quarter).map((sample) => sample.kib));
  const end = median(judged.filter((sample) => sample.at >= DURATION_MS - quarter).map((sample) => sample.kib));
  const start = samples[0]?.kib ?? 0;
  const peak = Math.max(...samples.map((sample) => sample.kib));
  const mb = (kib: number) => `${(kib / MiB).toFixed(1)} MiB`;
  t.comment(`RSS: start ${mb(start)}, middle ${mb(middle)}, end ${mb(end)}, peak ${mb(peak)} (${samples.length} samples)`);
  t.comment(`${counts.requests} requests (${counts.writes} writes) in ${(elapsed / 1000).toFixed(1)} s: ${Math.round(counts.requests / (elapsed / 1000))}/s`);

  t.same(unexpected, [], 'every answer was one its request can get');
  t.ok(counts.requests > 500, `a real load: ${counts.requests} requests`);
  t.ok(end <= middle * 1.3 + 32 * MiB, `memory settles: end ${mb(end)} <= 1.3 x middle ${mb(middle)} + 32 MiB`);
  t.ok(peak <= 512 * MiB, `peak ${mb(peak)} <= 512 MiB`);
  // The checkpoint worker restarts the WAL past RESTART_WAL_BYTES (src/db/checkpoints.ts); between
  // two of its ticks the file grows by at most a few MiB even under this load.
  const wal = path.join(dataDir, 'library.db-wal');
  const walBytes = fs.existsSync(wal) ? fs.statSync(wal).size : 0;
  t.ok(walBytes < RESTART_WAL_BYTES + 32 * 1024 * 1024, `the WAL stays bounded: ${(walBytes / 1024 / 1024).toFixed(1)} MiB`);
  const sorted = [...latencies].sort((a, b) => a - b);
  const percentile = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
  t.comment(`latency: p50 ${percentile(0.5).toFixed(1)} ms, p99 ${percentile(0.99).toFixed(1)} ms, max ${percentile(1).toFixed(1)} ms`);
  t.ok(percentile(1) < 5000, `no request waited 5 s or more (the longest: ${percentile(1).toFixed(0)} ms)`);

  const report = inspectDatabase(dataDir);
  t.equal(report.integrity, 'ok');
  t.same({ extra: report.ftsExtra, missing: report.ftsMissing, queued: report.pendingSearchChanges }, { extra: [], missing: [], queued: 0 }, 'the search index agrees with the stories');
  const all = await api.get('/api/stories/search?query=*&size=1');
  t.equal(all.body.totalHits, report.stories, 'search counts every story');

  await stopCleanly(t, server);
  t.same(errorLogLines(server.output()), [], 'nothing was logged at error level or above');
});
