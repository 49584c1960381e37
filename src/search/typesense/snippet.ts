/**
 * StorySearchDto's `snippet` from Typesense's highlights (docs/decisions.md, "Search": matched
 * words in `<mark>`, everything else HTML-escaped).
 *
 * Typesense's highlight markup is not trusted: its snippets are the stored text with tags put
 * around the matches, and that text is not escaped (a story can contain "<mark>" itself). So the
 * search asks for tags of its own, random per process ({@link highlightTags}), which no stored
 * text can forge; the highlight is cut at those tags and every piece escaped here. The field is
 * picked like the embedded engine picks it: the one holding the most distinct query words,
 * preferring summary, then description, body and title. Title, summary and description come back
 * highlighted whole and are cut to an excerpt the way the embedded engine cuts them; the body is
 * not fetched (it can be long), so its excerpt is Typesense's own snippet window.
 */
import { randomBytes } from 'node:crypto';
import { ELLIPSIS, escapeHtml, excerptRange } from '../text/excerpt.js';
import { foldWord } from '../text/words.js';
import type { HighlightV1 } from './client.js';

export interface HighlightTags {
  start: string;
  end: string;
}

/** Tags no document can contain: private-use delimiters around a random token. */
export function highlightTags(token = randomBytes(9).toString('base64url')): HighlightTags {
  return { start: `\uE000${token}+\uE001`, end: `\uE000${token}-\uE001` };
}

/** The fields a snippet may come from, best first on a tie. */
const SNIPPET_FIELDS = ['summary', 'description', 'contentPlain', 'title'] as const;
type SnippetField = (typeof SNIPPET_FIELDS)[number];

/** The text a snippet can fall back to when no text field matched (a name or tag did). */
export interface SnippetDocument {
  title: string;
  summary?: string;
  description?: string;
  contentPlain?: string;
}

interface Segment {
  text: string;
  marked: boolean;
}

function distinctTokens(highlight: HighlightV1): number {
  const tokens = (highlight.matched_tokens ?? []).flat();
  return new Set(tokens.map((token) => foldWord(String(token)))).size;
}

/**
 * Cuts a tagged text at the tags: plain pieces and marked pieces. Tags that do not pair up are
 * dropped (their text stays, as plain text).
 */
export function segmentsOf(tagged: string, tags: HighlightTags): Segment[] {
  const segments: Segment[] = [];
  const strip = (text: string) => text.split(tags.start).join('').split(tags.end).join('');
  let rest = tagged;
  for (;;) {
    const start = rest.indexOf(tags.start);
    const end = start === -1 ? -1 : rest.indexOf(tags.end, start + tags.start.length);
    if (end === -1) break;
    segments.push({ text: strip(rest.slice(0, start)), marked: false });
    segments.push({ text: strip(rest.slice(start + tags.start.length, end)), marked: true });
    rest = rest.slice(end + tags.end.length);
  }
  segments.push({ text: strip(rest), marked: false });
  return segments.filter((segment) => segment.text !== '');
}

/** The segments between two offsets of their joined text, escaped, marked pieces in `<mark>`. */
function renderRange(segments: readonly Segment[], from: number, to: number): string {
  let html = '';
  let offset = 0;
  for (const segment of segments) {
    const start = Math.max(from, offset);
    const end = Math.min(to, offset + segment.text.length);
    if (start < end) {
      const piece = escapeHtml(segment.text.slice(start - offset, end - offset));
      html += segment.marked ? `<mark>${piece}</mark>` : piece;
    }
    offset += segment.text.length;
  }
  return html.replace(/\s+/gu, ' ').trim();
}

/**
 * An excerpt of a whole field, cut around its first match as the embedded engine cuts
 * ({@link excerptRange}: a bounded length however long the match), with "…" where words were
 * left out.
 */
function excerpt(segments: readonly Segment[]): string {
  const text = segments.map((segment) => segment.text).join('');
  let first = 0;
  let firstEnd = 0;
  let offset = 0;
  for (const segment of segments) {
    if (segment.marked) {
      first = offset;
      firstEnd = offset + segment.text.length;
      break;
    }
    offset += segment.text.length;
  }
  const { start, end, before, after } = excerptRange(text, first, firstEnd);
  return `${before ? ELLIPSIS : ''}${renderRange(segments, start, end)}${after ? ELLIPSIS : ''}`;
}

/** The opening of a text without matches (the embedded engine's fallback). */
function opening(text: string): string {
  return excerpt([{ text, marked: false }]);
}

/**
 * The snippet of one hit: the best highlighted text field, escaped, matches in `<mark>`; when
 * only a name or tag matched, the opening of the summary or description, else the title.
 * Fields Typesense highlighted whole (`value`) are cut here like the embedded engine cuts them;
 * the body, which is not fetched, uses Typesense's own snippet window.
 */
export function snippetFromHighlights(document: SnippetDocument, highlights: readonly HighlightV1[], tags: HighlightTags): string {
  let best: { highlight: HighlightV1; score: number } | undefined;
  for (const highlight of highlights) {
    const rank = SNIPPET_FIELDS.indexOf(highlight.field as SnippetField);
    if (rank === -1 || (typeof highlight.snippet !== 'string' && typeof highlight.value !== 'string')) continue;
    const score = distinctTokens(highlight) * 10 - rank;
    if (best === undefined || score > best.score) best = { highlight, score };
  }
  if (best !== undefined) {
    const whole = best.highlight.value;
    const segments = segmentsOf(typeof whole === 'string' ? whole : (best.highlight.snippet as string), tags);
    if (segments.length > 0) {
      if (typeof whole === 'string') return excerpt(segments);
      return renderRange(segments, 0, Number.POSITIVE_INFINITY);
    }
  }
  for (const text of [document.summary, document.contentPlain, document.description]) {
    if (text !== undefined && text.trim() !== '') return opening(text);
  }
  return escapeHtml(document.title);
}
