/**
 * Typo tolerance and facets on an existing library (docs/decisions.md, "Typo tolerance" and "Search
 * facets"): times the background `search_terms` refresh, the candidate lookup per misspelt word,
 * a fuzzy search against its exact twin, and facets on common and rare words.
 *
 *   BENCH_DATA_DIR=/tmp/bench npx tsx scripts/bench-typos.ts      # a library bench-search.ts seeded
 */
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { applyMigrations, closeDatabase, DATABASE_FILE_NAME, openDatabase } from '../src/db/open.js';
import { correctionCandidates } from '../src/search/embedded/corrections.js';
import { EmbeddedSearchEngine } from '../src/search/embedded/engine.js';
import { refreshSearchTerms, termCount } from '../src/search/embedded/terms.js';
import { storySearchRequest } from '../src/search/service.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 50);

function stats(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  return `${at(0.5).toFixed(2)} / ${at(0.99).toFixed(2)} ms`;
}

async function time(run: () => unknown | Promise<unknown>, runs = RUNS): Promise<number[]> {
  for (let i = 0; i < 3; i += 1) await run();
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return samples;
}

/** One edit of the word at a position picked from `seed` (substitution, deletion, insertion or transposition). */
function misspell(word: string, seed: number): string {
  const letters = [...word];
  const at = 1 + (seed % (letters.length - 2));
  switch (seed % 4) {
    case 0: letters[at] = letters[at] === 'x' ? 'q' : 'x'; break;
    case 1: letters.splice(at, 1); break;
    case 2: letters.splice(at, 0, 'k'); break;
    default: [letters[at], letters[at + 1]] = [letters[at + 1] as string, letters[at] as string];
  }
  return letters.join('');
}

async function main(): Promise<void> {
  const dir = process.env.BENCH_DATA_DIR;
  if (dir === undefined) throw new Error('BENCH_DATA_DIR must name a library seeded by scripts/bench-search.ts');
  const db = openDatabase(path.join(dir, DATABASE_FILE_NAME));
  applyMigrations(db);
  const client = db.$client;
  console.log(`load average ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}; ${os.cpus().length} CPUs`);
  const stories = Number(client.prepare('SELECT count(*) FROM stories').pluck().get());

  let started = performance.now();
  let chunks = 0;
  await refreshSearchTerms(db, { stopped: () => ((chunks += 1), false) });
  console.log(`refresh: ${stories} stories -> ${termCount(db)} terms in ${((performance.now() - started) / 1000).toFixed(2)} s (${chunks} chunks)`);

  const words = client
    .prepare<[], string>(`SELECT term FROM search_terms WHERE length(term) BETWEEN 6 AND 12 AND docs BETWEEN 20 AND 2000 ORDER BY term LIMIT 200`)
    .pluck()
    .all();
  const typos = words.map((word, index) => misspell(word, index));
  let index = 0;
  const lookup = await time(() => correctionCandidates(client, typos[index++ % typos.length] as string), 400);
  console.log(`candidate lookup per word (${typos.length} misspellings): median / p99 ${stats(lookup)}`);

  const engine = new EmbeddedSearchEngine(db);
  let found = 0;
  for (const [i, typo] of typos.entries()) {
    const page = await engine.searchStories(storySearchRequest({ query: typo }));
    if (page.correctedQuery !== undefined && page.totalHits > 0 && page.results.length > 0 && page.correctedQuery.includes(words[i] as string)) found += 1;
  }
  console.log(`corrected to the word misspelt: ${found} of ${typos.length}`);

  index = 0;
  const fuzzy = await time(() => engine.searchStories(storySearchRequest({ query: typos[index++ % typos.length] as string })));
  index = 0;
  const exact = await time(() => engine.searchStories(storySearchRequest({ query: words[index++ % words.length] as string })));
  console.log(`search, exact word: ${stats(exact)}; its one-edit misspelling (fuzzy): ${stats(fuzzy)}`);

  const common = client.prepare<[], string>(`SELECT term FROM search_terms ORDER BY docs DESC LIMIT 1`).pluck().get() as string;
  const mid = client.prepare<[number], string>(`SELECT term FROM search_terms WHERE docs <= ? ORDER BY docs DESC LIMIT 1`).pluck().get(Math.ceil(stories * 0.04)) as string;
  for (const [label, query] of [
    ['common word', common],
    ['mid word', mid],
    ['*', '*'],
  ] as const) {
    const plain = await time(() => engine.searchStories(storySearchRequest({ query })), 20);
    const faceted = await time(() => engine.searchStories(storySearchRequest({ query, facets: true })), 20);
    const hits = (await engine.searchStories(storySearchRequest({ query }))).totalHits;
    console.log(`${label} "${query}" (${hits} hits): without facets ${stats(plain)}, with facets ${stats(faceted)}`);
  }
  closeDatabase(db);
}

await main();
