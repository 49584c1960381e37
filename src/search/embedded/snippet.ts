/**
 * Snippets for the rows of one result page (docs/decisions.md, "Search": a short excerpt of the
 * best-matching text, matched words in `<mark>`, everything else HTML-escaped).
 *
 * The FTS tables keep no copy of the text (contentless), so FTS5's snippet() cannot run; it
 * would also cost 0.15-0.5 ms per row inside the ranked query (docs/performance.md, "Measured facts
 * the code relies on"). Instead the page's own text is searched here with one regular expression
 * built from the query words that matches them the way the tokenizer does (whole words, case- and
 * Latin-diacritic-insensitive, the last word as a prefix), so a 10 KB body is scanned by the regex
 * engine rather than word by word in JavaScript. The excerpt is the stretch of about
 * {@link EXCERPT_CHARS} characters holding the most distinct query words, preferring the summary, then
 * description, body and title; the search stops as soon as a stretch holds them all.
 *
 * The work per text is bounded, whatever the text and the query: only its first
 * {@link SCAN_CHARS} characters are searched, at most {@link MAX_HITS} matches are looked at, and
 * word boundaries are looked for at most {@link MAX_WORD_CHARS} away, so a page of 100
 * megabyte-long stories costs what a page of ordinary ones does (docs/decisions.md, "Search:
 * bounded snippets and statement caches").
 */
import {
  EXCERPT_CHARS,
  ELLIPSIS,
  escapeHtml,
  excerptRange,
  LEAD_CHARS,
  MAX_EXCERPT_CHARS,
  SCAN_CHARS,
} from '../text/excerpt.js';
import { codePointBoundary, foldWord } from '../text/words.js';

/**
 * How far past an excerpt's end a match that starts inside it is looked for: a query word is at
 * most 200 code points (../text/query.ts), 400 UTF-16 units, plus its combining marks.
 */
const MARK_REACH_CHARS = 1_000;
/** Matches looked at per text: a text dense with one query word stops here, not at the window's end. */
export const MAX_HITS = 1_000;
/**
 * The characters of a body a snippet can depend on (the scan window, then the longest excerpt and
 * its marks), so the search reads only these (a 4 MB body costs ~10 ms to read whole). In code
 * points, which are never fewer than the UTF-16 units counted here.
 */
export const SNIPPET_SOURCE_CHARS = SCAN_CHARS + MAX_EXCERPT_CHARS + MARK_REACH_CHARS;
const WORD_CHAR = '[\\p{L}\\p{N}\\p{Mn}\\p{Co}]';

export interface HighlightTerms {
  words: readonly string[];
  /** The last word also matches as a prefix. */
  prefix: boolean;
}

/**
 * For each ASCII letter, every Latin letter that folds to it ("e" -> e, é, È, ē, ...), built once
 * from {@link foldWord} so the regex and the tokenizer model agree.
 */
const LETTER_CLASSES: ReadonlyMap<string, string> = (() => {
  const variants = new Map<string, Set<string>>();
  const ranges: [number, number][] = [
    [0x41, 0x5a],
    [0x61, 0x7a],
    [0xc0, 0x24f],
    [0x1e00, 0x1eff],
  ];
  for (const [from, to] of ranges) {
    for (let code = from; code <= to; code += 1) {
      const char = String.fromCodePoint(code);
      const folded = foldWord(char);
      if (/^[a-z]$/.test(folded)) {
        const set = variants.get(folded) ?? new Set<string>();
        set.add(char);
        variants.set(folded, set);
      }
    }
  }
  return new Map([...variants].map(([letter, set]) => [letter, `[${[...set].join('')}]`]));
})();

/** A regex source matching one folded word as the tokenizer would, marks allowed after letters. */
function wordPattern(word: string): string {
  let pattern = '';
  for (const char of word) {
    const letterClass = LETTER_CLASSES.get(char);
    pattern += `${letterClass ?? char.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')}\\p{Mn}*`;
  }
  return pattern;
}

interface Matcher {
  regex: RegExp;
  distinct: number;
  /** The term matched as a prefix (-1 when none is). */
  prefixTerm: number;
}

/**
 * Each query's matcher, built once for the page's rows: building it (the Unicode letter classes,
 * then V8 compiling the regex) was 8 % of a rare-word search's CPU when it was built per row, 20
 * times a page (docs/performance.md, "Where each miss goes"). Keyed by the query's terms object,
 * which one search passes to every row and then lets go.
 */
const matchers = new WeakMap<HighlightTerms, Matcher>();

function matcherFor(terms: HighlightTerms): Matcher {
  let matcher = matchers.get(terms);
  if (matcher === undefined) {
    matcher = buildMatcher(terms);
    matchers.set(terms, matcher);
  }
  return matcher;
}

/** One regex for all query words; group n+1 captures the n-th distinct word. */
function buildMatcher(terms: HighlightTerms): Matcher {
  const unique = [...new Set(terms.words)];
  const prefixWord = terms.prefix ? terms.words[terms.words.length - 1] : undefined;
  const alternatives = unique.map((word) =>
    word === prefixWord ? `(${wordPattern(word)}${WORD_CHAR}*)` : `(${wordPattern(word)})(?!${WORD_CHAR})`,
  );
  return {
    regex: new RegExp(`(?<!${WORD_CHAR})(?:${alternatives.join('|')})`, 'giu'),
    distinct: unique.length,
    prefixTerm: prefixWord === undefined ? -1 : unique.indexOf(prefixWord),
  };
}

interface Hit {
  start: number;
  end: number;
  term: number;
}

interface Excerpt {
  text: string;
  /** Distinct query words in the excerpt, then matches: higher is better. */
  score: number;
  from: number;
  to: number;
}

function termOf(found: RegExpExecArray): number {
  for (let group = 1; group < found.length; group += 1) if (found[group] !== undefined) return group - 1;
  return -1;
}

/**
 * The best stretch of one text, or undefined when no query word occurs in it. Only the first
 * {@link SCAN_CHARS} characters and the first {@link MAX_HITS} matches are looked at.
 */
function bestExcerpt(text: string, matcher: Matcher): Excerpt | undefined {
  const regex = new RegExp(matcher.regex);
  const scanned = text.length > SCAN_CHARS ? text.slice(0, codePointBoundary(text, SCAN_CHARS)) : text;
  const hits: Hit[] = [];
  const counts = new Map<number, number>();
  let first = 0;
  let best: Excerpt | undefined;
  for (let found = regex.exec(scanned); found !== null && hits.length < MAX_HITS; found = regex.exec(scanned)) {
    const hit = { start: found.index, end: found.index + found[0].length, term: termOf(found) };
    // A whole word the window cuts may go on past it: "needle" at the end could be "needlework".
    if (hit.end === scanned.length && scanned.length < text.length && hit.term !== matcher.prefixTerm) break;
    hits.push(hit);
    counts.set(hit.term, (counts.get(hit.term) ?? 0) + 1);
    // Keep the stretch from hits[first] to this hit within the excerpt length; a single hit
    // longer than that (a long word) is a stretch of its own, cut when rendered.
    while (first < hits.length - 1 && hit.end - (hits[first] as Hit).start > EXCERPT_CHARS - LEAD_CHARS) {
      const leaving = (hits[first] as Hit).term;
      const left = (counts.get(leaving) ?? 1) - 1;
      if (left === 0) counts.delete(leaving);
      else counts.set(leaving, left);
      first += 1;
    }
    const score = counts.size * 1000 + (hits.length - first);
    if (best === undefined || score > best.score) best = { text, score, from: (hits[first] as Hit).start, to: hit.end };
    if (counts.size === matcher.distinct) break;
  }
  return best;
}

/** Renders the excerpt: escaped text, matches in <mark>, ellipses where the text was cut. */
function render(excerpt: Pick<Excerpt, 'text' | 'from' | 'to'>, matcher: Matcher | undefined): string {
  const { text } = excerpt;
  const { start, end, before, after } = excerptRange(text, excerpt.from, excerpt.to);
  let html = '';
  let cursor = start;
  if (matcher !== undefined) {
    // Matched in the text itself (the word before `start` still counts), a match that runs past
    // `end` is marked up to it; the text after is searched only as far as a query word reaches.
    const regex = new RegExp(matcher.regex);
    regex.lastIndex = start;
    const searched = text.slice(0, Math.min(text.length, end + MARK_REACH_CHARS));
    for (let found = regex.exec(searched); found !== null && found.index < end; found = regex.exec(searched)) {
      const markEnd = Math.min(end, found.index + found[0].length);
      html += `${escapeHtml(text.slice(cursor, found.index))}<mark>${escapeHtml(text.slice(found.index, markEnd))}</mark>`;
      cursor = markEnd;
    }
  }
  html += escapeHtml(text.slice(cursor, end));
  html = html.replace(/\s+/gu, ' ').trim();
  return `${before ? ELLIPSIS : ''}${html}${after ? ELLIPSIS : ''}`;
}

export interface SnippetSource {
  title: string;
  summary: string | null;
  description: string | null;
  contentPlain: string | null;
}

/**
 * The snippet of one story for the query words: the best stretch of its summary, description,
 * body or title (a tie goes to the earlier); when none holds a query word (the story matched on
 * an author, series or tag name), the opening of its summary, body or description, else its title.
 */
export function buildSnippet(story: SnippetSource, terms: HighlightTerms): string {
  return placedSnippet(story, terms).snippet;
}

/**
 * {@link buildSnippet}, and where in the body (`contentPlain`, UTF-16 offset) its excerpt's first
 * match is: null when the excerpt came from another field or holds no query word. The hit's
 * chapter is found from it (./hit-chapter.ts).
 */
export function placedSnippet(story: SnippetSource, terms: HighlightTerms): { snippet: string; bodyOffset: number | null } {
  if (terms.words.length > 0) {
    const matcher = matcherFor(terms);
    let best: Excerpt | undefined;
    let fromBody = false;
    for (const [text, isBody] of [[story.summary, false], [story.description, false], [story.contentPlain, true], [story.title, false]] as const) {
      if (text === null || text === '') continue;
      const excerpt = bestExcerpt(text, matcher);
      if (excerpt !== undefined && (best === undefined || excerpt.score > best.score)) {
        best = excerpt;
        fromBody = isBody;
      }
      if (best !== undefined && Math.floor(best.score / 1000) === matcher.distinct) break;
    }
    if (best !== undefined) return { snippet: render(best, matcher), bodyOffset: fromBody ? best.from : null };
  }
  for (const text of [story.summary, story.contentPlain, story.description]) {
    if (text !== null && text.trim() !== '') return { snippet: render({ text, from: 0, to: 0 }, undefined), bodyOffset: null };
  }
  return { snippet: escapeHtml(story.title), bodyOffset: null };
}
