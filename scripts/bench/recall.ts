/**
 * The typo recall check of `npm run bench` (docs/performance.md, "Typo recall"): 1,000 one-edit
 * misspellings of rare library words (4+ letters), each searched through the API; a case is
 * found when the answer has `totalHits > 0` and lists a story that holds the word. One request at
 * a time, each bounded by a timeout.
 *
 * It also measures what tolerance adds to a query's latency: for each case, the misspelling and
 * the word spelled right are searched once more with the default page size, in alternating order,
 * one connection, and the two latency distributions are compared (the added p99 is the
 * misspellings' p99 less the words'). Both queries rank and page the same stories; the misspelling
 * first finds no exact match, then looks up its corrections.
 */
import { performance } from 'node:perf_hooks';
import { percentile } from './load.js';
import type { EditKind } from './pools.js';
import { RECALL_PAGE_SIZE, type RecallCase } from './probe.js';

export interface RecallResult {
  cases: number;
  found: number;
  /** Found / cases per kind of edit. */
  byEdit: Record<EditKind, { cases: number; found: number }>;
  /** Cases whose edit is on the first letter, and how many of those were found. */
  firstLetter: { cases: number; found: number };
  /** Searches answered with something other than 200. */
  failed: number;
  /** Latency (ms, one connection, default page size) of the misspellings and of the words spelled right. */
  latency: { typo: { p50: number; p99: number }; word: { p50: number; p99: number }; addedP99: number };
  seconds: number;
}

/** The target: a misspelling's p99 at most this much above its word's. */
export const FUZZY_ADDED_P99_MAX_MS = 10;

interface SearchAnswer {
  totalHits: number;
  results: Array<{ id: string }>;
}

/** Whether the answer to a misspelling finds the word's story. */
export function recallFound(answer: SearchAnswer, storyIds: readonly string[]): boolean {
  return answer.totalHits > 0 && answer.results.some((story) => storyIds.includes(story.id));
}

export async function checkRecall(origin: string, token: string, cases: readonly RecallCase[]): Promise<RecallResult> {
  const started = Date.now();
  const byEdit: RecallResult['byEdit'] = {
    deletion: { cases: 0, found: 0 },
    insertion: { cases: 0, found: 0 },
    substitution: { cases: 0, found: 0 },
    transposition: { cases: 0, found: 0 },
  };
  const firstLetter = { cases: 0, found: 0 };
  let found = 0;
  let failed = 0;
  const search = (query: string, size?: number) =>
    fetch(`${origin}/api/stories/search?${new URLSearchParams({ query, ...(size === undefined ? {} : { size: String(size) }) }).toString()}`, {
      headers: { cookie: `token=${token}` },
      signal: AbortSignal.timeout(30_000),
    });
  const timed = async (query: string): Promise<number> => {
    const start = performance.now();
    const response = await search(query);
    await response.arrayBuffer();
    if (response.status !== 200) failed += 1;
    return performance.now() - start;
  };
  const typoMs: number[] = [];
  const wordMs: number[] = [];
  for (const [index, item] of cases.entries()) {
    const response = await search(item.typo, RECALL_PAGE_SIZE);
    // Alternating which goes first, so neither always meets the pages the other just read.
    if (index % 2 === 0) {
      typoMs.push(await timed(item.typo));
      wordMs.push(await timed(item.word));
    } else {
      wordMs.push(await timed(item.word));
      typoMs.push(await timed(item.typo));
    }
    let hit = false;
    if (response.status === 200) hit = recallFound((await response.json()) as SearchAnswer, item.storyIds);
    else {
      failed += 1;
      await response.arrayBuffer();
    }
    byEdit[item.edit].cases += 1;
    if (item.at === 0) firstLetter.cases += 1;
    if (!hit) continue;
    found += 1;
    byEdit[item.edit].found += 1;
    if (item.at === 0) firstLetter.found += 1;
  }
  const spread = (values: number[]) => {
    const sorted = values.sort((a, b) => a - b);
    return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
  };
  const typo = spread(typoMs);
  const word = spread(wordMs);
  return {
    cases: cases.length,
    found,
    byEdit,
    firstLetter,
    failed,
    latency: { typo, word, addedP99: typo.p99 - word.p99 },
    seconds: (Date.now() - started) / 1000,
  };
}
