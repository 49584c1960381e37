/**
 * The typo recall check of `npm run bench` (docs/performance.md, "Typo recall"): 1,000 one-edit
 * misspellings of rare library words (4+ letters), each searched through the API; a case is
 * found when the answer has `totalHits > 0` and lists a story that holds the word. One request at
 * a time, each bounded by a timeout.
 */
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
  seconds: number;
}

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
  for (const item of cases) {
    const params = new URLSearchParams({ query: item.typo, size: String(RECALL_PAGE_SIZE) });
    const response = await fetch(`${origin}/api/stories/search?${params.toString()}`, {
      headers: { cookie: `token=${token}` },
      signal: AbortSignal.timeout(30_000),
    });
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
  return { cases: cases.length, found, byEdit, firstLetter, failed, seconds: (Date.now() - started) / 1000 };
}
