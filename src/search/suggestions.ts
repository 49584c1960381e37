/**
 * Search suggestions (decisions.md, "Search"): distinct story titles, author, series and tag
 * names containing a word that starts with the text, best first, at most `limit`.
 *
 * Every source (a title, an author, a series, a tag) is one `search_suggestions` row; every
 * prefix of 1 to {@link SUGGESTION_KEY_MAX} characters of each of its folded words is one
 * `search_suggestion_keys` row whose primary key is (key, weight DESC, tie, id). So a lookup is
 * one walk down that key in rank order that stops after `limit` distinct texts: it costs the
 * same at 100 stories or 100,000, and never touches the story bodies.
 *
 * Rank ("best"): the most stories first (a title counts 1; a name counts its stories), then
 * texts whose first word matched, then shorter texts. Names used by no story are not suggested.
 */
import type Database from 'better-sqlite3';
import { statementCache } from './sqlite-client.js';
import { codePoints, foldedWords } from './text.js';

/** Longest indexed prefix; a longer query word is looked up by its first 10 characters and checked. */
export const SUGGESTION_KEY_MAX = 10;
/** Rows one lookup may read before it gives up looking for more distinct matches. */
const MAX_ROWS_SCANNED = 5000;

export type SuggestionKind = 'title' | 'author' | 'series' | 'tag';

interface StoredSuggestion {
  id: number;
  text: string;
  folded: string;
  weight: number;
}

const statementsFor = statementCache((client: Database.Database) => ({
  find: client.prepare<[string, number | string], StoredSuggestion>(
    'SELECT id, text, folded, weight FROM search_suggestions WHERE kind = ? AND ref = ?',
  ),
  insert: client.prepare<[string, number | string, string, string, number], { id: number }>(
    'INSERT INTO search_suggestions (kind, ref, text, folded, weight) VALUES (?, ?, ?, ?, ?) RETURNING id',
  ),
  update: client.prepare<[string, string, number, number]>('UPDATE search_suggestions SET text = ?, folded = ?, weight = ? WHERE id = ?'),
  remove: client.prepare<[number]>('DELETE FROM search_suggestions WHERE id = ?'),
  insertKey: client.prepare<[string, number, number, number]>(
    'INSERT OR IGNORE INTO search_suggestion_keys (key, weight, tie, suggestion_id) VALUES (?, ?, ?, ?)',
  ),
  removeKey: client.prepare<[string, number, number, number]>(
    'DELETE FROM search_suggestion_keys WHERE key = ? AND weight = ? AND tie = ? AND suggestion_id = ?',
  ),
  walk: client.prepare<[string], { text: string; folded: string }>(
    `SELECT s.text, s.folded FROM search_suggestion_keys k JOIN search_suggestions s ON s.id = k.suggestion_id
     WHERE k.key = ? ORDER BY k.weight DESC, k.tie, k.suggestion_id`,
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
  if (existing !== undefined && existing.text === text && existing.weight === weight && folded !== '') return;
  if (existing !== undefined) {
    for (const [key, tie] of suggestionKeys(existing.folded)) s.removeKey.run(key, existing.weight, tie, existing.id);
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
  for (const [key, tie] of suggestionKeys(folded)) s.insertKey.run(key, weight, tie, id);
}

/** Removes every suggestion (reindex rebuilds them from the tables). */
export function clearSuggestions(client: Database.Database): void {
  const s = statementsFor(client);
  s.clearKeys.run();
  s.clear.run();
}

/** True when the folded text has the query's words in a row, the last one as a prefix. */
export function containsPhrase(textWords: readonly string[], queryWords: readonly string[]): boolean {
  const last = queryWords.length - 1;
  for (let start = 0; start + last < textWords.length; start += 1) {
    let matched = true;
    for (let offset = 0; offset <= last && matched; offset += 1) {
      const word = textWords[start + offset] as string;
      const wanted = queryWords[offset] as string;
      matched = offset === last ? word.startsWith(wanted) : word === wanted;
    }
    if (matched) return true;
  }
  return false;
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
  const key = codePoints(longest, SUGGESTION_KEY_MAX);
  const exactByKey = queryWords.length === 1 && key === longest;

  const seen = new Set<string>();
  const results: string[] = [];
  let scanned = 0;
  for (const row of statementsFor(client).walk.iterate(key)) {
    scanned += 1;
    if (!seen.has(row.folded) && (exactByKey || containsPhrase(row.folded.split(' '), queryWords))) {
      seen.add(row.folded);
      results.push(row.text);
      if (results.length >= limit) break;
    }
    if (scanned >= MAX_ROWS_SCANNED) break;
  }
  return results;
}
