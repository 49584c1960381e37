/**
 * How the fake sees text: words are runs of letters and digits (every other character separates
 * them, as with a schema listing punctuation in `token_separators`), compared lowercased and
 * without diacritics, as Typesense normalises them. Written for the fake, independently of the
 * service's own tokenizer model (src/search/text/words.ts), so a difference between the two shows.
 */

export interface Token {
  folded: string;
  start: number;
  end: number;
}

/** Lowercased, marks removed ("Café" -> "cafe"). */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** The words of a text with their positions in it. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(/[\p{L}\p{N}\p{M}]+/gu)) {
    const folded = fold(match[0]);
    if (folded !== '') tokens.push({ folded, start: match.index, end: match.index + match[0].length });
  }
  return tokens;
}
