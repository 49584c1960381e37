/**
 * How the embedded engine sees text, in JavaScript: the same words and the same folding as
 * SQLite's `unicode61 remove_diacritics 2` tokenizer (letters, numbers, private-use characters
 * and non-spacing marks make words; everything else separates them; case is folded; diacritics
 * are removed from Latin letters). Query building, snippets and suggestions all use it, so
 * what they highlight or suggest is what FTS5 matches.
 */

/** One word: a run of characters the unicode61 tokenizer keeps. */
export const WORD = /[\p{L}\p{N}\p{Mn}\p{Co}]+/gu;
const HAS_WORD = /[\p{L}\p{N}\p{Co}]/u;
const ASCII = /^[\x00-\x7f]*$/;
const LATIN_DIACRITICS = /(\p{Script=Latin})\p{Mn}+/gu;
const STRAY_MARKS = /^\p{Mn}+/u;

/** Lowercased, with diacritics removed from Latin letters ("Café" -> "cafe", "İ" -> "i"). */
export function foldWord(word: string): string {
  const lower = word.toLowerCase();
  if (ASCII.test(lower)) return lower;
  return lower.normalize('NFD').replace(LATIN_DIACRITICS, '$1').replace(STRAY_MARKS, '').normalize('NFC');
}

/** The folded words of a text, in order. */
export function foldedWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const folded = foldWord(match[0]);
    if (folded !== '') words.push(folded);
  }
  return words;
}

/** True when the text holds at least one character FTS5 indexes (so a phrase of it is not empty). */
export function hasWord(text: string): boolean {
  return HAS_WORD.test(text);
}

/** The text's first `max` code points (never splitting a surrogate pair). */
export function truncateCodePoints(text: string, max: number): string {
  let count = 0;
  let end = 0;
  for (const char of text) {
    if (count === max) break;
    count += 1;
    end += char.length;
  }
  return text.slice(0, end);
}

/** `offset`, moved back one when it falls between the two halves of a surrogate pair. */
export function codePointBoundary(text: string, offset: number): number {
  if (offset <= 0 || offset >= text.length) return offset;
  const before = text.charCodeAt(offset - 1);
  const at = text.charCodeAt(offset);
  return before >= 0xd800 && before <= 0xdbff && at >= 0xdc00 && at <= 0xdfff ? offset - 1 : offset;
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
