/**
 * User text -> a safe FTS5 MATCH expression (docs/decisions.md, "Search": no raw FTS syntax ever
 * reaches SQLite).
 *
 * The text is split on white space; each piece that holds a letter or digit becomes one FTS5
 * string ("..." with `"` doubled), so quotes, AND/OR/NOT/NEAR, `*`, `-`, `:`, `^`, parentheses,
 * braces and NUL are only ever text inside a string, where the tokenizer drops them like any
 * punctuation. Pieces are AND-ed; a piece such as `e-mail` stays a phrase ("e mail"), so it
 * matches what was written. The last piece also matches as a prefix when its last word has at
 * least {@link MIN_PREFIX_LENGTH} characters: the index keeps 3-character prefixes ready, while
 * a shorter prefix would merge the doclists of most of the vocabulary (over a second at 100k
 * stories; docs/performance.md). Search-as-you-type belongs to the suggestions endpoint.
 */
import { truncateCodePoints, foldedWords, hasWord } from './words.js';

/** Shortest last word that is expanded as a prefix. */
export const MIN_PREFIX_LENGTH = 3;
/** Pieces after this many are ignored: each AND-ed piece costs one more doclist merge. */
export const MAX_QUERY_PIECES = 16;
/** Longest piece kept (in code points). */
const MAX_PIECE_LENGTH = 200;

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

export interface ParsedQuery {
  /** `*` or blank: every story, no ranking and no snippet. */
  matchAll: boolean;
  /** The MATCH expression; null when `matchAll`, or when the text has no searchable word. */
  match: string | null;
  /** Folded words to highlight; the last one is a prefix when `prefix` is true. */
  words: string[];
  prefix: boolean;
}

/** Parses the user's search text (see the file comment). */
export function parseQuery(text: string): ParsedQuery {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === '*') return { matchAll: true, match: null, words: [], prefix: false };

  const pieces = trimmed
    .replace(CONTROL, ' ')
    .split(/\s+/u)
    .filter(hasWord)
    .slice(0, MAX_QUERY_PIECES)
    .map((piece) => truncateCodePoints(piece, MAX_PIECE_LENGTH));
  const words = pieces.flatMap(foldedWords);
  if (words.length === 0) return { matchAll: false, match: null, words: [], prefix: false };

  const prefix = [...(words[words.length - 1] as string)].length >= MIN_PREFIX_LENGTH;
  const match = pieces
    .map((piece, index) => `"${piece.replace(/"/g, '""')}"${prefix && index === pieces.length - 1 ? '*' : ''}`)
    .join(' AND ');
  return { matchAll: false, match, words, prefix };
}

/** The MATCH expression for the text, or null for "everything" / "nothing searchable". */
export function buildMatchQuery(text: string): string | null {
  return parseQuery(text).match;
}
