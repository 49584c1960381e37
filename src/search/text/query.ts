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

/** One white-space-separated piece of the text, as the MATCH expression holds it. */
export interface QueryPiece {
  /** The piece as typed (control characters removed, truncated). */
  text: string;
  /** Its folded words (a piece such as `e-mail` has two). */
  words: string[];
  /** Inside a pair of double quotes, or holding one: never typo-corrected (docs/decisions.md, "Typo tolerance"). */
  quoted: boolean;
  /** The last piece, matched as a prefix. */
  prefix: boolean;
}

export interface ParsedQuery {
  /** `*` or blank: every story, no ranking and no snippet. */
  matchAll: boolean;
  /** The MATCH expression; null when `matchAll`, or when the text has no searchable word. */
  match: string | null;
  /** Folded words to highlight; the last one is a prefix when `prefix` is true. */
  words: string[];
  prefix: boolean;
  /** The pieces the MATCH expression is made of, in order (empty when `match` is null). */
  pieces: QueryPiece[];
}

/** A piece as one FTS5 string, with `*` when it is the prefix piece. */
function ftsString(piece: QueryPiece): string {
  return `"${piece.text.replace(/"/g, '""')}"${piece.prefix ? '*' : ''}`;
}

/** The MATCH expression of pieces, AND-ed. */
export function matchOf(pieces: readonly QueryPiece[]): string {
  return pieces.map(ftsString).join(' AND ');
}

/**
 * The MATCH expression with some pieces widened to alternatives: piece n becomes
 * `("piece" OR "alt1" OR ...)` when `alternatives[n]` lists words (typo corrections).
 */
export function matchWithAlternatives(pieces: readonly QueryPiece[], alternatives: readonly (readonly string[] | undefined)[]): string {
  return pieces
    .map((piece, index) => {
      const words = alternatives[index];
      if (words === undefined || words.length === 0) return ftsString(piece);
      return `(${[ftsString(piece), ...words.map((word) => `"${word.replace(/"/g, '""')}"`)].join(' OR ')})`;
    })
    .join(' AND ');
}

/** The white-space-separated pieces of the text, each marked when it stands inside double quotes. */
function splitPieces(text: string): { text: string; quoted: boolean }[] {
  const pieces: { text: string; quoted: boolean }[] = [];
  let open = false;
  for (const raw of text.split(/\s+/u)) {
    if (raw === '') continue;
    const quotes = raw.split('"').length - 1;
    pieces.push({ text: raw, quoted: open || quotes > 0 });
    if (quotes % 2 === 1) open = !open;
  }
  return pieces;
}

/** Parses the user's search text (see the file comment). */
export function parseQuery(text: string): ParsedQuery {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === '*') return { matchAll: true, match: null, words: [], prefix: false, pieces: [] };

  const pieces: QueryPiece[] = splitPieces(trimmed.replace(CONTROL, ' '))
    .filter((piece) => hasWord(piece.text))
    .slice(0, MAX_QUERY_PIECES)
    .map(({ text: piece, quoted }) => {
      const cut = truncateCodePoints(piece, MAX_PIECE_LENGTH);
      return { text: cut, words: foldedWords(cut), quoted, prefix: false };
    });
  const words = pieces.flatMap((piece) => piece.words);
  if (words.length === 0) return { matchAll: false, match: null, words: [], prefix: false, pieces: [] };

  const prefix = [...(words[words.length - 1] as string)].length >= MIN_PREFIX_LENGTH;
  (pieces[pieces.length - 1] as QueryPiece).prefix = prefix;
  return { matchAll: false, match: matchOf(pieces), words, prefix, pieces };
}

/** The MATCH expression for the text, or null for "everything" / "nothing searchable". */
export function buildMatchQuery(text: string): string | null {
  return parseQuery(text).match;
}
