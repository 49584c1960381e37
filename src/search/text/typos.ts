/**
 * One-edit spelling variants of a query word (docs/decisions.md, "Typo tolerance"), shared by
 * both engines: the embedded engine looks each variant up in `search_terms`, the Typesense engine
 * uses the distance to say which word a misspelling was read as.
 */

/** Shortest word (in code points) that may be corrected: Typesense's `min_len_1typo` default. */
export const MIN_TYPO_LENGTH = 4;

const LATIN = 'abcdefghijklmnopqrstuvwxyz';

/**
 * Every string one edit away from `word` (deletion, adjacent transposition, substitution,
 * insertion), over a–z plus the letters of `word` itself (so "cafe" -> "café" is not found,
 * but "naïvety" -> "naïvete" is). About 54n + 25 strings for n letters; the word itself is left out.
 */
export function editsOne(word: string, extraLetters = ''): Set<string> {
  const letters = [...word];
  const alphabet = [...new Set([...LATIN, ...letters, ...extraLetters])];
  const edits = new Set<string>();
  const join = (parts: string[]) => parts.join('');
  for (let index = 0; index <= letters.length; index += 1) {
    const head = letters.slice(0, index);
    const tail = letters.slice(index);
    if (tail.length > 0) edits.add(join([...head, ...tail.slice(1)]));
    if (tail.length > 1) edits.add(join([...head, tail[1] as string, tail[0] as string, ...tail.slice(2)]));
    for (const letter of alphabet) {
      if (tail.length > 0) edits.add(join([...head, letter, ...tail.slice(1)]));
      edits.add(join([...head, letter, ...tail]));
    }
  }
  edits.delete(word);
  return edits;
}

/**
 * True when `a` and `b` are at most one edit apart (insertion, deletion, substitution, or the
 * transposition of two adjacent letters), compared by code point.
 */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  const x = [...a];
  const y = [...b];
  if (Math.abs(x.length - y.length) > 1) return false;
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) start += 1;
  let endX = x.length;
  let endY = y.length;
  while (endX > start && endY > start && x[endX - 1] === y[endY - 1]) {
    endX -= 1;
    endY -= 1;
  }
  const restX = endX - start;
  const restY = endY - start;
  if (restX + restY <= 1) return true;
  if (restX === 1 && restY === 1) return true;
  return restX === 2 && restY === 2 && x[start] === y[start + 1] && x[start + 1] === y[start];
}

/** True when the word is long enough to be corrected ({@link MIN_TYPO_LENGTH} code points). */
export function correctable(word: string): boolean {
  return [...word].length >= MIN_TYPO_LENGTH;
}
