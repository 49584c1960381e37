/**
 * StorySearchDto's `snippet` from Typesense's highlights (decisions.md, "Search": matched words in
 * `<mark>`, everything else HTML-escaped).
 *
 * Typesense's highlight markup is not trusted: its snippets are the stored text with tags put
 * around the matches, and that text is not escaped (a story can contain "<mark>" itself). So the
 * search asks for tags of its own, random per process ({@link highlightTags}), which no stored
 * text can forge; the snippet is cut at those tags and every piece escaped here. The field is
 * picked like the embedded engine picks it: the one holding the most distinct query words,
 * preferring summary, then description, body and title.
 */
import { randomBytes } from 'node:crypto';
import { escapeHtml } from './snippet.js';
import { foldWord, hasWord } from './text.js';
import type { HighlightV1 } from './typesense-client.js';

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

const OPENING_CHARS = 200;
const ELLIPSIS = '…';

function distinctTokens(highlight: HighlightV1): number {
  const tokens = (highlight.matched_tokens ?? []).flat();
  return new Set(tokens.map((token) => foldWord(String(token)))).size;
}

/**
 * Escapes a tagged snippet: text outside the tags is escaped, text inside is escaped and put in
 * `<mark>`. Tags that do not pair up are dropped (their text stays, escaped).
 */
export function renderTagged(snippet: string, tags: HighlightTags): { html: string; plain: string } {
  let html = '';
  let plain = '';
  let rest = snippet;
  while (rest !== '') {
    const start = rest.indexOf(tags.start);
    if (start === -1) break;
    const end = rest.indexOf(tags.end, start + tags.start.length);
    if (end === -1) break;
    const before = rest.slice(0, start).split(tags.end).join('');
    const marked = rest.slice(start + tags.start.length, end);
    html += `${escapeHtml(before)}<mark>${escapeHtml(marked)}</mark>`;
    plain += before + marked;
    rest = rest.slice(end + tags.end.length);
  }
  const tail = rest.split(tags.start).join('').split(tags.end).join('');
  html += escapeHtml(tail);
  plain += tail;
  return { html: html.replace(/\s+/gu, ' ').trim(), plain };
}

/** "…" where the snippet leaves out words of the field, when the field's text is known. */
function withEllipses(html: string, plain: string, full: string | undefined): string {
  if (full === undefined || html === '') return html;
  const at = full.indexOf(plain);
  if (at === -1) return html;
  const before = at > 0 && hasWord(full.slice(0, at));
  const after = at + plain.length < full.length && hasWord(full.slice(at + plain.length));
  return `${before ? ELLIPSIS : ''}${html}${after ? ELLIPSIS : ''}`;
}

/** The first ~200 characters of a text, cut at a word boundary. */
function opening(text: string): string {
  if (text.length <= OPENING_CHARS) return escapeHtml(text.replace(/\s+/gu, ' ').trim());
  let end = OPENING_CHARS;
  while (end < text.length && /\S/u.test(text.charAt(end))) end += 1;
  const cut = text.slice(0, end);
  const more = hasWord(text.slice(end));
  return `${escapeHtml(cut.replace(/\s+/gu, ' ').trim())}${more ? ELLIPSIS : ''}`;
}

/**
 * The snippet of one hit: the best highlighted text field, escaped, matches in `<mark>`; when
 * only a name or tag matched, the opening of the summary or description, else the title.
 */
export function snippetFromHighlights(document: SnippetDocument, highlights: readonly HighlightV1[], tags: HighlightTags): string {
  let best: { highlight: HighlightV1; field: SnippetField; score: number } | undefined;
  for (const highlight of highlights) {
    const field = highlight.field as SnippetField;
    const rank = SNIPPET_FIELDS.indexOf(field);
    if (rank === -1 || typeof highlight.snippet !== 'string') continue;
    const score = distinctTokens(highlight) * 10 - rank;
    if (best === undefined || score > best.score) best = { highlight, field, score };
  }
  if (best !== undefined) {
    const { html, plain } = renderTagged(best.highlight.snippet as string, tags);
    if (html !== '') return withEllipses(html, plain, document[best.field]);
  }
  for (const text of [document.summary, document.contentPlain, document.description]) {
    if (text !== undefined && text.trim() !== '') return opening(text);
  }
  return escapeHtml(document.title);
}
