/**
 * The pools `npm run bench` draws its requests from (docs/performance.md, "What each scenario
 * draws"): search words by how many stories hold them, one-edit misspellings, suggestion prefixes,
 * and seeded draws over them. Pure functions over plain data, so test/unit/bench-pools.test.ts
 * checks them without a server.
 *
 * A benchmark that asks for one story, one page or one word measures that row while it is hot
 * (SQLite's page cache, the OS cache, V8's inline caches): drawn per request from the whole
 * library, story by id measured 0.35 x its ceiling instead of 0.88 x (docs/performance.md,
 * "What each scenario draws").
 */
import { prng } from '../lib/synthetic-library.js';

/** A word of the search index and the number of stories that hold it (FTS5's `fts5vocab` `doc`). */
export interface TermDocs {
  term: string;
  docs: number;
}

export type BandName = 'rare' | 'mid' | 'common';

/**
 * Each band as a share of the library's stories. Common is "in about half the library"; a
 * Zipf vocabulary only has a few hundred such words (about 370 at 25-75 % with ~1,500-word
 * bodies), so that band holds all of them rather than 2,000.
 */
export const BANDS: Readonly<Record<BandName, { min: number; max: number }>> = {
  rare: { min: 0.0002, max: 0.005 },
  mid: { min: 0.01, max: 0.06 },
  common: { min: 0.25, max: 0.75 },
};

/** Words searched are plain lowercase words of 4+ letters, as the index folds them (no digits, no name parts like "2"). */
const SEARCHABLE = /^[a-z]{4,}$/;

/** Splits the index vocabulary into the three bands by each word's story count, largest first within a band. */
export function wordBands(vocabulary: Iterable<TermDocs>, stories: number): Record<BandName, TermDocs[]> {
  const bands: Record<BandName, TermDocs[]> = { rare: [], mid: [], common: [] };
  for (const entry of vocabulary) {
    if (!SEARCHABLE.test(entry.term) || entry.docs < 1) continue;
    for (const name of Object.keys(BANDS) as BandName[]) {
      const { min, max } = BANDS[name];
      if (entry.docs >= Math.max(1, min * stories) && entry.docs <= max * stories) bands[name].push(entry);
    }
  }
  for (const band of Object.values(bands)) band.sort((a, b) => b.docs - a.docs || (a.term < b.term ? -1 : 1));
  return bands;
}

export type EditKind = 'deletion' | 'insertion' | 'substitution' | 'transposition';
export const EDIT_KINDS: readonly EditKind[] = ['deletion', 'insertion', 'substitution', 'transposition'];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

export interface Misspelling {
  /** The word as it is in the library. */
  word: string;
  typo: string;
  edit: EditKind;
  /** 0-based position of the edit (an engine that trusts the first letter misses those at 0). */
  at: number;
}

/**
 * One edit of `word` (4+ letters): a deletion (only from 5+ letters, so the typo keeps 4 and is
 * never a 3-letter prefix search), an insertion, a substitution or a swap of two different
 * neighbours, chosen by `kind` or at random. Undefined when the result is itself a word of
 * `known` (that is a different word, not a typo) or no edit of that kind applies.
 */
export function misspell(word: string, random: () => number, known: ReadonlySet<string>, kind?: EditKind): Misspelling | undefined {
  if (!SEARCHABLE.test(word)) return undefined;
  const edit = kind ?? EDIT_KINDS[Math.floor(random() * EDIT_KINDS.length)]!;
  const letter = (not?: string) => {
    for (;;) {
      const candidate = LETTERS[Math.floor(random() * LETTERS.length)]!;
      if (candidate !== not) return candidate;
    }
  };
  let typo: string;
  let at: number;
  switch (edit) {
    case 'deletion':
      if (word.length < 5) return undefined;
      at = Math.floor(random() * word.length);
      typo = word.slice(0, at) + word.slice(at + 1);
      break;
    case 'insertion':
      at = Math.floor(random() * (word.length + 1));
      typo = word.slice(0, at) + letter() + word.slice(at);
      break;
    case 'substitution':
      at = Math.floor(random() * word.length);
      typo = word.slice(0, at) + letter(word[at]) + word.slice(at + 1);
      break;
    case 'transposition': {
      const swappable: number[] = [];
      for (let i = 0; i + 1 < word.length; i += 1) if (word[i] !== word[i + 1]) swappable.push(i);
      if (swappable.length === 0) return undefined;
      at = swappable[Math.floor(random() * swappable.length)]!;
      typo = word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2);
      break;
    }
  }
  if (typo === word || known.has(typo)) return undefined;
  return { word, typo, edit, at };
}

/**
 * `count` misspellings of words drawn from `words`, the four kinds in turn (25 % each), distinct
 * typos; bounded at 20 attempts per misspelling.
 */
export function misspellings(words: readonly string[], count: number, known: ReadonlySet<string>, seed: number): Misspelling[] {
  const random = prng(seed);
  const out: Misspelling[] = [];
  const seen = new Set<string>();
  for (let attempts = 0; out.length < count && attempts < count * 20 && words.length > 0; attempts += 1) {
    const word = words[Math.floor(random() * words.length)]!;
    const found = misspell(word, random, known, EDIT_KINDS[out.length % EDIT_KINDS.length]);
    if (found === undefined || seen.has(found.typo)) continue;
    seen.add(found.typo);
    out.push(found);
  }
  return out;
}

/**
 * Distinct prefixes of 2 to 6 letters of `words`, one per word (its length drawn), as someone
 * typing in the search box sends them; at most `count`.
 */
export function suggestionPrefixes(words: readonly string[], count: number, seed: number): string[] {
  const random = prng(seed);
  const seen = new Set<string>();
  for (const word of words) {
    if (seen.size >= count) break;
    const length = 2 + Math.floor(random() * Math.min(5, word.length - 1));
    seen.add(word.slice(0, length));
  }
  return [...seen];
}

/** A uniform draw from `list` (never empty) with `random`. */
export function pick<T>(list: readonly T[], random: () => number): T {
  if (list.length === 0) throw new Error('pick: empty pool');
  return list[Math.floor(random() * list.length)]!;
}

/**
 * Draws one page among all pages of several lists, every page equally likely (so a big tag's
 * deep pages are drawn as often as its first): `counts[i]` items in list i, `size` per page.
 */
export class PageDraw {
  private readonly cumulative: number[] = [];
  readonly pages: number;

  constructor(counts: readonly number[], size: number) {
    let total = 0;
    for (const count of counts) {
      total += Math.max(1, Math.ceil(count / size));
      this.cumulative.push(total);
    }
    this.pages = total;
  }

  /** `[list index, page number in that list]`. */
  draw(random: () => number): [number, number] {
    const n = Math.floor(random() * this.pages);
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.cumulative[middle]! > n) high = middle;
      else low = middle + 1;
    }
    return [low, n - (low === 0 ? 0 : this.cumulative[low - 1]!)];
  }
}
