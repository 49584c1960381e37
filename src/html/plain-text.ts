import { Parser } from 'htmlparser2';

/** Elements that start and end a line in the plain-text form (docs/decisions.md, "Story HTML"). */
const BLOCK_TAGS = new Set([
  'p', 'div', 'br', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'tr', 'pre', 'hr',
  'ul', 'ol', 'dl', 'dt', 'dd', 'table', 'thead', 'tbody', 'tfoot', 'caption', 'figure', 'figcaption',
]);

/**
 * Table cells: each begins and ends a word, so a row reads "Tide High", never "TideHigh"; the
 * row (`tr`) is the line.
 */
const CELL_TAGS = new Set(['td', 'th']);

/** Space-like characters that collapse into one space (not the line breaks we add ourselves). */
const SPACE_RUN = /[ \t\f\v\r\n\u00a0\u2000-\u200a\u202f\u205f\u3000]+/g;
const SPACE_RUN_IN_PRE = /[ \t\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]+/g;

/**
 * The text of (already sanitized) HTML: block elements start and end a line, table cells are
 * separated by a space, entities are decoded, runs of spaces collapse, lines are trimmed, blank
 * lines collapse to one and the result is trimmed. Inside `pre` the author's line breaks are kept.
 * So every block and cell boundary is a word boundary, for the word count and the search index
 * alike (docs/decisions.md, "Story HTML").
 */
export function htmlToPlainText(html: string): string {
  const chunks: string[] = [];
  let preDepth = 0;
  let cells = false;
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === 'pre') preDepth += 1;
        if (BLOCK_TAGS.has(name)) chunks.push('\n');
        else if (CELL_TAGS.has(name)) {
          chunks.push(' ');
          cells = true;
        }
      },
      onclosetag(name, isImplied) {
        if (name === 'pre' && preDepth > 0) preDepth -= 1;
        // A void element (br, hr) "closes" implicitly right after it opens: one break is enough.
        if (BLOCK_TAGS.has(name) && !(isImplied && (name === 'br' || name === 'hr'))) chunks.push('\n');
        else if (CELL_TAGS.has(name)) chunks.push(' ');
      },
      ontext(text) {
        chunks.push(preDepth > 0 ? text.replace(/\r\n?/g, '\n').replace(SPACE_RUN_IN_PRE, ' ') : text.replace(SPACE_RUN, ' '));
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();

  // The spaces around cells may meet the text's own: only then is a second pass needed.
  const joined = chunks.join('');
  const lines = (cells ? joined.replace(/ {2,}/g, ' ') : joined).split('\n').map((line) => line.trim());
  const kept: string[] = [];
  for (const line of lines) {
    if (line === '' && (kept.length === 0 || kept[kept.length - 1] === '')) continue;
    kept.push(line);
  }
  return kept.join('\n').trim();
}
