/**
 * Excerpts as both engines cut them (docs/decisions.md, "Search"): the lengths, the word bounds, the
 * ellipses and the HTML escaping, defined once so an embedded and a Typesense snippet of the same
 * text are the same excerpt.
 */
import { codePointBoundary, hasWord } from './words.js';

/** Excerpt length, the same for both engines. */
export const EXCERPT_CHARS = 200;
/** Context kept before the first match of the excerpt. */
export const LEAD_CHARS = 50;
/**
 * Farthest a word boundary is looked for: a longer run without white space (a URL, a row of
 * emoji, one letter repeated) is cut there instead of being shown whole.
 */
export const MAX_WORD_CHARS = 50;
/** Longest excerpt: the lead and a cut word before the stretch, the stretch, a cut word after. */
export const MAX_EXCERPT_CHARS = EXCERPT_CHARS + LEAD_CHARS + MAX_WORD_CHARS;
/**
 * Characters of each text searched for matches. Scanning is ~65 ns a character for a text of one
 * repeated query word (a size=100 page of ten 4 MB such stories took 2.6-4.4 s); with 20,000
 * characters (a short chapter) and MAX_HITS (../embedded/snippet.ts), a text costs at most
 * ~0.2 ms. A story whose only match lies further in gets the opening of its text as snippet.
 */
export const SCAN_CHARS = 20_000;
/** Where words were left out of an excerpt. */
export const ELLIPSIS = '…';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] as string);
}

/**
 * Where a word starts at or before `offset`: the word is kept whole unless it starts more than
 * {@link MAX_WORD_CHARS} earlier, then it is cut there (never between a surrogate pair's halves).
 */
export function wordStartBefore(text: string, offset: number): number {
  const stop = Math.max(0, offset - MAX_WORD_CHARS);
  let start = offset;
  while (start > stop && /\S/u.test(text.charAt(start - 1))) start -= 1;
  return codePointBoundary(text, start);
}

/** Where a word ends at or after `offset`, at most {@link MAX_WORD_CHARS} further. */
export function wordEndAfter(text: string, offset: number): number {
  const stop = Math.min(text.length, offset + MAX_WORD_CHARS);
  let end = offset;
  while (end < stop && /\S/u.test(text.charAt(end))) end += 1;
  return codePointBoundary(text, end);
}

/** True when the text after `offset` holds a word; only {@link SCAN_CHARS} of it are looked at. */
function wordsAfter(text: string, offset: number): boolean {
  if (offset >= text.length) return false;
  return text.length - offset > SCAN_CHARS || hasWord(text.slice(offset));
}

export interface ExcerptRange {
  start: number;
  end: number;
  /** Words were left out before `start` / after `end` (an ellipsis goes there). */
  before: boolean;
  after: boolean;
}

/**
 * The excerpt around the stretch `from`-`to` of a text, as both engines cut it: from a word
 * boundary about {@link LEAD_CHARS} before the stretch to one about {@link EXCERPT_CHARS} further,
 * and never longer than {@link MAX_EXCERPT_CHARS} (a long match is cut).
 */
export function excerptRange(text: string, from: number, to: number): ExcerptRange {
  const start = from <= LEAD_CHARS ? 0 : wordStartBefore(text, from - LEAD_CHARS);
  const wanted = Math.min(Math.max(to, start + EXCERPT_CHARS), start + MAX_EXCERPT_CHARS, text.length);
  const end = codePointBoundary(text, Math.min(wordEndAfter(text, wanted), start + MAX_EXCERPT_CHARS));
  return { start, end, before: start > 0 && hasWord(text.slice(0, start)), after: wordsAfter(text, end) };
}
