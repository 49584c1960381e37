/**
 * Search suggestions (docs/decisions.md, "Search"): distinct story titles, author, series and tag
 * names containing a word that starts with the text, best first, at most `limit`.
 *
 * Every source (a title, an author, a series, a tag) is one `search_suggestions` row; every
 * prefix of 1 to {@link SUGGESTION_KEY_MAX} characters of each of its folded words is one
 * `search_suggestion_keys` row whose primary key is (key, rank bucket DESC, tie, id). So a lookup
 * is one walk down that key in rank order that stops after `limit` distinct texts: it costs the
 * same at 100 stories or 100,000, and never touches the story bodies. The key holds the weight's
 * {@link rankBucket}, not the weight, so a story added to a big tag or author rewrites one row,
 * not every prefix key of the name; the walk sorts each bucket it reads by the exact weight.
 *
 * Rank ("best"): the most stories first (a title counts 1; a name counts its stories), then
 * texts whose first word matched, then shorter texts. Names used by no story are not suggested.
 */
import type Database from 'better-sqlite3';
import { defineStatements } from '../../db/statements.js';
import { containsPhrase, foldedWords, truncateCodePoints } from '../text/words.js';

/** Longest indexed prefix; a longer query word is looked up by its first 10 characters and checked. */
export const SUGGESTION_KEY_MAX = 10;
/** Rows one lookup may read before it gives up looking for more distinct matches. */
const MAX_ROWS_SCANNED = 5000;

export type SuggestionKind = 'title' | 'author' | 'series' | 'tag';

/** Weights below this are their own bucket: the order among small names is exact in the key. */
const EXACT_BELOW = 32;
/** Buckets per doubling above {@link EXACT_BELOW}: one bucket spans 1/16 (~6%) of its weights. */
const BUCKET_BITS = 4;

/**
 * The rank bucket a weight is stored under in the keys: the weight itself below 32, then 16
 * buckets per doubling (32-33 → 32, …, 1,024-1,087 → 112). Monotonic: a heavier weight never has
 * a lower bucket, so walking buckets in order and sorting each by exact weight is the exact order.
 */
export function rankBucket(weight: number): number {
  if (weight < EXACT_BELOW) return weight;
  const exponent = 31 - Math.clz32(weight);
  const mantissa = (weight >>> (exponent - BUCKET_BITS)) & ((1 << BUCKET_BITS) - 1);
  return EXACT_BELOW + (exponent - Math.log2(EXACT_BELOW)) * (1 << BUCKET_BITS) + mantissa;
}

interface StoredSuggestion {
  id: number;
  text: string;
  folded: string;
  weight: number;
}

const statementsFor = defineStatements((client: Database.Database) => ({
  find: client.prepare<[string, number | string], StoredSuggestion>(
    'SELECT id, text, folded, weight FROM search_suggestions WHERE kind = ? AND ref = ?',
  ),
  insert: client.prepare<[string, number | string, string, string, number], { id: number }>(
    'INSERT INTO search_suggestions (kind, ref, text, folded, weight) VALUES (?, ?, ?, ?, ?) RETURNING id',
  ),
  update: client.prepare<[string, string, number, number]>('UPDATE search_suggestions SET text = ?, folded = ?, weight = ? WHERE id = ?'),
  reweigh: client.prepare<[number, number]>('UPDATE search_suggestions SET weight = ? WHERE id = ?'),
  remove: client.prepare<[number]>('DELETE FROM search_suggestions WHERE id = ?'),
  insertKey: client.prepare<[string, number, number, number]>(
    'INSERT OR IGNORE INTO search_suggestion_keys (key, rank_bucket, tie, suggestion_id) VALUES (?, ?, ?, ?)',
  ),
  removeKey: client.prepare<[string, number, number, number]>(
    'DELETE FROM search_suggestion_keys WHERE key = ? AND rank_bucket = ? AND tie = ? AND suggestion_id = ?',
  ),
  walk: client.prepare<[string], WalkedKey>(
    `SELECT k.rank_bucket AS bucket, k.tie, k.suggestion_id AS id, s.weight, s.text, s.folded
     FROM search_suggestion_keys k JOIN search_suggestions s ON s.id = k.suggestion_id
     WHERE k.key = ? ORDER BY k.rank_bucket DESC, k.tie, k.suggestion_id`,
  ),
  clear: client.prepare('DELETE FROM search_suggestions'),
  clearKeys: client.prepare('DELETE FROM search_suggestion_keys'),
}));

/** The folded form of a suggestion text: its folded words joined by single spaces. */
export function foldSuggestion(text: string): string {
  return foldedWords(text).join(' ');
}

/**
 * The lookup keys of a folded text with their tie-break: every prefix (up to the maximum
 * length) of every word; the first word's prefixes and shorter texts rank first.
 */
export function suggestionKeys(folded: string): Map<string, number> {
  const keys = new Map<string, number>();
  if (folded === '') return keys;
  const lengthRank = Math.min(folded.length, 999);
  folded.split(' ').forEach((word, index) => {
    const tie = (index === 0 ? 0 : 1000) + lengthRank;
    let prefix = '';
    let length = 0;
    for (const char of word) {
      if (length === SUGGESTION_KEY_MAX) break;
      prefix += char;
      length += 1;
      const known = keys.get(prefix);
      if (known === undefined || tie < known) keys.set(prefix, tie);
    }
  });
  return keys;
}

/**
 * Brings one source's suggestion up to date: `text` null (the source is gone) or a weight of 0
 * (a name no story uses) removes it. Unchanged sources cost one indexed read.
 */
export function putSuggestion(client: Database.Database, kind: SuggestionKind, ref: number | string, text: string | null, weight: number): void {
  const s = statementsFor(client);
  const existing = s.find.get(kind, ref);
  const folded = text === null || weight <= 0 ? '' : foldSuggestion(text);
  if (existing !== undefined && existing.text === text && folded !== '' && rankBucket(existing.weight) === rankBucket(weight)) {
    if (existing.weight !== weight) s.reweigh.run(weight, existing.id);
    return;
  }
  if (existing !== undefined) {
    const bucket = rankBucket(existing.weight);
    for (const [key, tie] of suggestionKeys(existing.folded)) s.removeKey.run(key, bucket, tie, existing.id);
  }
  if (folded === '' || text === null) {
    if (existing !== undefined) s.remove.run(existing.id);
    return;
  }
  let id: number;
  if (existing === undefined) {
    id = (s.insert.get(kind, ref, text, folded, weight) as { id: number }).id;
  } else {
    id = existing.id;
    s.update.run(text, folded, weight, id);
  }
  const bucket = rankBucket(weight);
  for (const [key, tie] of suggestionKeys(folded)) s.insertKey.run(key, bucket, tie, id);
}

/** Removes every suggestion (a reindex writes them again from the tables). */
export function clearSuggestions(client: Database.Database): void {
  const s = statementsFor(client);
  s.clearKeys.run();
  s.clear.run();
}

/**
 * Up to `limit` distinct suggestions for the text (deduplicated case- and
 * diacritic-insensitively; the best-ranked spelling is shown). Blank text suggests nothing.
 */
export function suggest(client: Database.Database, text: string, limit: number): string[] {
  const queryWords = foldedWords(text);
  if (queryWords.length === 0) return [];
  // The longest word narrows the walk most; the phrase check below confirms the rest.
  const longest = queryWords.reduce((best, word) => ([...word].length > [...best].length ? word : best));
  const key = truncateCodePoints(longest, SUGGESTION_KEY_MAX);
  const exactByKey = queryWords.length === 1 && key === longest;

  const seen = new Set<string>();
  const results: string[] = [];
  /** Takes the row if it is a new text that matches; true once `limit` are taken. */
  const offer = (row: WalkedKey): boolean => {
    if (seen.has(row.folded) || !(exactByKey || containsPhrase(row.folded.split(' '), queryWords))) return false;
    seen.add(row.folded);
    results.push(row.text);
    return results.length >= limit;
  };
  // Rows arrive bucket by bucket. Below EXACT_BELOW a bucket is one weight, already in rank
  // order; a wider bucket is read whole and ranked by exact weight before any of it is taken.
  let bucket: WalkedKey[] = [];
  const offerBucket = (): boolean => {
    const full = bucket.sort(byRank).some(offer);
    bucket = [];
    return full;
  };
  let scanned = 0;
  for (const row of statementsFor(client).walk.iterate(key)) {
    if (bucket.length > 0 && row.bucket !== bucket[0]!.bucket && offerBucket()) return results;
    if (row.bucket < EXACT_BELOW) {
      if (offer(row)) return results;
    } else {
      bucket.push(row);
    }
    scanned += 1;
    if (scanned >= MAX_ROWS_SCANNED) break;
  }
  offerBucket();
  return results;
}

interface WalkedKey {
  bucket: number;
  tie: number;
  id: number;
  weight: number;
  text: string;
  folded: string;
}

/** The suggestion order: most stories first, then the key's tie-break (first word, shorter text), then age. */
function byRank(a: WalkedKey, b: WalkedKey): number {
  return b.weight - a.weight || a.tie - b.tie || a.id - b.id;
}
