const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

/**
 * Counts the word-like segments of plain text exactly as `Intl.Segmenter` (word granularity)
 * does (docs/decisions.md, "Story HTML"), so "Hello, world!" is 2 and CJK text counts by its words.
 *
 * The segmenter costs ~2 ms for a 1,500-word story, a quarter of a create's CPU, mostly in the
 * object it builds per segment. Lines written only in Latin letters, digits and common
 * punctuation (most prose) are counted by {@link countSimpleLine}, which applies the few
 * word-break rules (UAX #29) those characters can meet; any other line goes to the segmenter,
 * a long one in runs (see {@link runEnd}). test/unit/word-count.test.ts checks the two agree on
 * hundreds of thousands of random lines.
 */
export function countWords(text: string): number {
  let count = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const simple = countSimpleLine(line);
    if (simple >= 0) {
      count += simple;
      continue;
    }
    for (let start = 0; start < line.length; ) {
      const end = runEnd(line, start);
      for (const segment of segmenter.segment(line.slice(start, end))) {
        if (segment.isWordLike === true) count += 1;
      }
      start = end;
    }
  }
  return count;
}

/**
 * The longest run handed to the segmenter at once. Its cost grows with the square of the text
 * it is given (a 20,000-word line took ~1 s, 100,000 words minutes, with the event loop blocked),
 * so a long line is segmented in runs of at most this many characters.
 */
const MAX_RUN = 1000;

/** Characters after which a word boundary is certain: spaces and CJK sentence marks (UAX #29). */
const BREAK_AFTER = /[\s\u3000\u3001\u3002\uff01\uff0c\uff1a\uff1b\uff1f]/u;

/**
 * Where the segmenter run starting at `start` ends: after the last certain word boundary in the
 * second half of the window, so the count is unchanged; only a window with none (one
 * 500-character token, or unpunctuated CJK) is cut between two code points, which may split a
 * word in two.
 */
function runEnd(line: string, start: number): number {
  const limit = start + MAX_RUN;
  if (line.length <= limit) return line.length;
  for (let end = limit; end > start + MAX_RUN / 2; end -= 1) {
    if (BREAK_AFTER.test(line[end - 1] as string)) return end;
  }
  const last = line.charCodeAt(limit - 1);
  return last >= 0xd800 && last <= 0xdbff ? limit - 1 : limit;
}

/** Word-break classes of the characters the fast path knows (UAX #29 names). */
const enum Kind {
  Unknown = 0,
  /** Breaks on both sides and is never part of a word. */
  Other,
  ALetter,
  Numeric,
  /** Joins letters: `a:b`. */
  MidLetter,
  /** Joins digits: `1,000`, `1;2`. */
  MidNum,
  /** Joins letters or digits: `don't`, `e.g`, `3.14`. */
  MidNumLet,
}

const KINDS = new Uint8Array(0x250);
for (let code = 0x41; code <= 0x5a; code += 1) KINDS[code] = Kind.ALetter;
for (let code = 0x61; code <= 0x7a; code += 1) KINDS[code] = Kind.ALetter;
// Latin-1 Supplement and Latin Extended-A/B letters (U+00C0-U+024F), but for × and ÷.
for (let code = 0xc0; code <= 0x24f; code += 1) KINDS[code] = code === 0xd7 || code === 0xf7 ? Kind.Other : Kind.ALetter;
for (let code = 0x30; code <= 0x39; code += 1) KINDS[code] = Kind.Numeric;
for (const char of ' \t!?"()[]{}-/*&+=<>@#%|~^`$«»¡¿') KINDS[char.charCodeAt(0)] = Kind.Other;
KINDS[0x3a] = Kind.MidLetter; // :
KINDS[0x2c] = Kind.MidNum; // ,
KINDS[0x3b] = Kind.MidNum; // ;
KINDS[0x2e] = Kind.MidNumLet; // .
KINDS[0x27] = Kind.MidNumLet; // '

function kindOf(code: number): Kind {
  if (code < 0x250) return KINDS[code] as Kind;
  switch (code) {
    case 0x2018: // ‘
    case 0x2019: // ’
      return Kind.MidNumLet;
    case 0x2013: // –
    case 0x2014: // —
    case 0x201c: // “
    case 0x201d: // ”
    case 0x2026: // …
      return Kind.Other;
    default:
      return Kind.Unknown;
  }
}

/**
 * The word-like segments of a line, or -1 when the line holds a character this path does not
 * know. A word is a run of letters and digits (WB5, WB8-WB10) that a single middle character
 * may join when the same kind stands on both sides of it: letters through MidLetter or
 * MidNumLet (WB6, WB7), digits through MidNum or MidNumLet (WB11, WB12). Everything else breaks.
 */
export function countSimpleLine(line: string): number {
  let count = 0;
  let inWord = false;
  let last = Kind.Other;
  const length = line.length;
  for (let i = 0; i < length; i += 1) {
    const kind = kindOf(line.charCodeAt(i));
    if (kind === Kind.Unknown) return -1;
    if (kind === Kind.ALetter || kind === Kind.Numeric) {
      if (!inWord) count += 1;
      inWord = true;
      last = kind;
      continue;
    }
    if (inWord && kind !== Kind.Other && i + 1 < length) {
      const next = kindOf(line.charCodeAt(i + 1));
      if (next === Kind.Unknown) return -1;
      const joinsLetters = last === Kind.ALetter && next === Kind.ALetter && (kind === Kind.MidLetter || kind === Kind.MidNumLet);
      const joinsDigits = last === Kind.Numeric && next === Kind.Numeric && (kind === Kind.MidNum || kind === Kind.MidNumLet);
      if (joinsLetters || joinsDigits) continue;
    }
    inWord = false;
  }
  return count;
}
