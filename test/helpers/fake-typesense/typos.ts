/**
 * The fake's model of Typesense's typo tolerance and faceting, written from Typesense's
 * documentation (search parameters `num_typos`, `min_len_1typo`, `min_len_2typo`,
 * `typo_tokens_threshold`, `facet_by`, `max_facet_values`), independently of the service's own
 * correction code, so a difference between the two shows in the tests:
 *
 * - a word may differ by up to `num_typos` edits (insertion, deletion, substitution, or swapping
 *   two adjacent letters), but by none under `min_len_1typo` characters and by at most one under
 *   `min_len_2typo`; the prefix word's typos apply to the prefix;
 * - `"quoted words"` are a phrase: consecutive, exact, never with typos;
 * - facet values are counted over every hit (not the page), most first, ties by value.
 */
import type { Document } from './store.js';
import { tokenize } from './text.js';

export interface QueryText {
  /** Words outside quotes, folded, in order. */
  words: string[];
  /** Phrases, each its folded words. */
  phrases: string[][];
  /** The text ends with a free word (the prefix one), not a phrase. */
  lastIsWord: boolean;
}

export interface TypoSettings {
  numTypos: number;
  minLen1: number;
  minLen2: number;
  threshold: number;
}

/** `q` split into free words and quoted phrases (an unclosed quote runs to the end). */
export function parseQueryText(q: string): QueryText {
  const words: string[] = [];
  const phrases: string[][] = [];
  let lastIsWord = false;
  q.split('"').forEach((part, index) => {
    const folded = tokenize(part).map((token) => token.folded);
    if (folded.length === 0) return;
    if (index % 2 === 1) {
      phrases.push(folded);
      lastIsWord = false;
    } else {
      words.push(...folded);
      lastIsWord = true;
    }
  });
  return { words, phrases, lastIsWord };
}

/** Typos a word may have under the settings. */
export function typoBudget(word: string, settings: TypoSettings): number {
  const length = [...word].length;
  if (length < settings.minLen1) return 0;
  if (length < settings.minLen2) return Math.min(1, settings.numTypos);
  return settings.numTypos;
}

/** Edit distance counting an adjacent swap as one edit (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  const rows = Array.from({ length: x.length + 1 }, (_, i) => Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= x.length; i += 1) {
    for (let j = 1; j <= y.length; j += 1) {
      const row = rows[i] as number[];
      const up = rows[i - 1] as number[];
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (rows[x.length] as number[])[y.length] as number;
}

/** Whether a document word matches a query word: exactly, as a prefix, or within `typos` edits. */
export function wordMatches(token: string, word: string, prefix: boolean, typos: number): boolean {
  if (token === word || (prefix && token.startsWith(word))) return true;
  if (typos === 0) return false;
  if (!prefix) return editDistance(token, word) <= typos;
  const letters = [...token];
  const length = [...word].length;
  for (let cut = Math.max(1, length - typos); cut <= Math.min(letters.length, length + typos); cut += 1) {
    if (editDistance(letters.slice(0, cut).join(''), word) <= typos) return true;
  }
  return false;
}

/** One `facet_counts` entry, as Typesense answers it. */
export function facetCounts(field: string, documents: readonly Document[], max: number, numeric: boolean): Record<string, unknown> {
  const counts = new Map<string, number>();
  const numbers: number[] = [];
  for (const document of documents) {
    const value = document[field];
    if (value === undefined || value === null) continue;
    for (const item of new Set((Array.isArray(value) ? value : [value]).map(String))) {
      counts.set(item, (counts.get(item) ?? 0) + 1);
      if (numeric) numbers.push(Number(item));
    }
  }
  const sorted = [...counts].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  const stats: Record<string, number> = { total_values: counts.size };
  if (numeric && numbers.length > 0) {
    const sum = numbers.reduce((total, n) => total + n, 0);
    Object.assign(stats, { min: Math.min(...numbers), max: Math.max(...numbers), sum, avg: sum / numbers.length });
  }
  return {
    counts: sorted.slice(0, max).map(([value, count]) => ({ count, highlighted: value, value })),
    field_name: field,
    sampled: false,
    stats,
  };
}
