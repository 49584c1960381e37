/**
 * Snippet cost benchmark: a size=100 story search over ten ~4 MB repetitive stories, through the
 * real HTTP stack (`app.inject`) on a temp data folder. Each query is timed as the median of a
 * few runs, next to FTS5 ranking the same matches alone (the floor no snippet work can lower);
 * the event loop is blocked for the whole search (snippets are built synchronously).
 *
 *   npx tsx scripts/bench-snippets.ts
 *
 * The queries cover the snippet's worst cases: a word on every line (the first stretch holds it),
 * a body word with a title word (no stretch of the body holds both, so the body is scanned
 * to its end), and a title-only word (the body holds no match at all).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { buildMatchQuery } from '../src/search/text/query.js';
import { sqliteClient } from '../src/db/statements.js';

const STORIES = 10;
const BODY_BYTES = 4 * 1024 * 1024;
const RUNS = 5;
const PASSWORD = 'benchmark password';
/** The repeated text of every body: by default one word, the densest matches (BENCH_LINE overrides). */
const LINE = process.env.BENCH_LINE ?? 'fox ';

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'storyshelf-bench-snippets-'));
  const app = await buildApp(loadConfig({ APP_PASSWORD: PASSWORD, LOG_LEVEL: 'silent', DATA_DIR: dataDir }), { logger: false });
  try {
    const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: PASSWORD } });
    const cookies = { token: (login.json() as { token: string }).token };
    const body = `<p>${LINE.repeat(Math.ceil(BODY_BYTES / LINE.length))}</p>`;
    for (let i = 0; i < STORIES; i += 1) {
      const res = await app.inject({ method: 'POST', url: '/api/stories', cookies, payload: { title: `Tale zebra${i}`, contentHtml: body } });
      if (res.statusCode !== 201) throw new Error(`seeding failed: ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
    for (const query of ['fox', 'fox tale', 'tale']) {
      const url = `/api/stories/search?size=100&query=${encodeURIComponent(query)}`;
      const samples: number[] = [];
      for (let run = 0; run < RUNS; run += 1) {
        const start = performance.now();
        const res = await app.inject({ method: 'GET', url, cookies });
        samples.push(performance.now() - start);
        if (res.statusCode !== 200) throw new Error(`search failed: ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
      // The floor: FTS5 ranking the same matches, with no row read and no snippet built.
      const match = buildMatchQuery(query) as string;
      const ranked = sqliteClient(app.db).prepare('SELECT rowid FROM stories_fts WHERE stories_fts MATCH ? ORDER BY rank LIMIT 100');
      const floor: number[] = [];
      for (let run = 0; run < RUNS; run += 1) {
        const start = performance.now();
        ranked.all(match);
        floor.push(performance.now() - start);
      }
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!.toFixed(0).padStart(6);
      console.log(`query ${JSON.stringify(query).padEnd(12)} search median ${median(samples)} ms   FTS5 ranking alone ${median(floor)} ms`);
    }
  } finally {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
