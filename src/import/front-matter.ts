/**
 * The YAML metadata block pandoc reads at the top of a Markdown file (pandoc's manual, "Extension:
 * yaml_metadata_block"): a line `---` not followed by a blank line, YAML, then a line `---` or
 * `...`. Only the keys a story uses are read (docs/decisions.md, "File import"): `title`,
 * `author` (a string, or a list whose first entry is a string or has a `name`: the first author;
 * a story has one) and `date`.
 *
 * A small reader of those keys rather than a YAML library: the block is untrusted input, the
 * three keys need plain, quoted, folded and literal scalars and block or flow lists only, and
 * anything else (anchors, tags, nested maps) is passed over rather than interpreted. It reads
 * at most {@link MAX_LINES} lines; a block that does not end by then is not a block.
 */

export interface FrontMatter {
  title?: string;
  author?: string;
  date?: string;
}

/** Lines a metadata block may have; a longer one is taken for text. */
const MAX_LINES = 1000;

const KEY_LINE = /^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?$/;
const SEQUENCE_ITEM = /^([ \t]*)-(?:[ \t]+(.*))?$/;
const NAME_ENTRY = /^name[ \t]*:[ \t]+(.*)$/;

/** Splits `markdown` (line breaks already `\n`) into its metadata block's keys and the rest; undefined when it has no block. */
export function splitFrontMatter(markdown: string): { meta: FrontMatter; body: string } | undefined {
  if (!/^---[ \t]*\n[ \t]*\S/.test(markdown)) return undefined;
  const lines: string[] = [];
  let at = markdown.indexOf('\n') + 1;
  while (lines.length < MAX_LINES) {
    const end = markdown.indexOf('\n', at);
    const line = markdown.slice(at, end === -1 ? undefined : end);
    if (/^(---|\.\.\.)[ \t]*$/.test(line)) {
      // A rule, then prose, then another rule (scene breaks) is no block: taken for one, the prose would be dropped.
      if (!isMapping(lines)) return undefined;
      return { meta: metaOf(lines), body: end === -1 ? '' : markdown.slice(end + 1) };
    }
    if (end === -1) return undefined;
    lines.push(line);
    at = end + 1;
  }
  return undefined;
}

/**
 * Whether `lines` can be a YAML mapping, as pandoc requires of a metadata block: each line that
 * starts in the first column is a `key:`, a list item of the key above, or a comment; anything
 * else there (a line of prose) is not YAML.
 */
function isMapping(lines: readonly string[]): boolean {
  return lines.every((line) => /^([ \t]|$|#|-([ \t]|$))/.test(line) || KEY_LINE.test(line));
}

function metaOf(lines: readonly string[]): FrontMatter {
  const meta: FrontMatter = {};
  for (let i = 0; i < lines.length; i += 1) {
    const key = KEY_LINE.exec(lines[i] as string);
    if (key === null) continue;
    // A top-level entry runs on over the lines that are indented, blank or list items.
    let end = i + 1;
    while (end < lines.length && /^([ \t]|-([ \t]|$)|[ \t]*$)/.test(lines[end] as string)) end += 1;
    const name = key[1] as string;
    if (name === 'title' || name === 'author' || name === 'date') {
      const value = valueOf((key[2] ?? '').trim(), lines.slice(i + 1, end), name === 'author');
      if (value !== undefined && value !== '') meta[name] = value;
    }
    i = end - 1;
  }
  return meta;
}

/** An entry's value: a scalar, or with `first` the first entry of a list (a string, or the `name` of a map). */
function valueOf(inline: string, more: readonly string[], first: boolean): string | undefined {
  if (/^[|>][-+0-9]*$/.test(inline)) return blockScalar(inline.startsWith('|'), more);
  if (inline.startsWith('[')) return first ? flowItems(inline)[0] : inline;
  if (inline !== '') return scalar([inline, ...more.map((line) => line.trim())].filter((line) => line !== '').join(' '));
  const filled = more.filter((line) => line.trim() !== '');
  const item = SEQUENCE_ITEM.exec(filled[0] ?? '');
  if (item === null) {
    // A map (`author:` then `  name: …`), or a plain scalar continued on the next lines.
    const named = filled.map((line) => NAME_ENTRY.exec(line.trim())).find((match) => match !== null);
    return named !== undefined ? scalar(named[1] as string) : scalar(filled.map((line) => line.trim()).join(' '));
  }
  if (!first) return undefined;
  const text = (item[2] ?? '').trim();
  const named = NAME_ENTRY.exec(text);
  if (named !== null) return scalar(named[1] as string);
  if (text !== '' && !/^[A-Za-z_][\w.-]*[ \t]*:([ \t]|$)/.test(text)) return scalar(text);
  // `- ` alone or `- affiliation: …`: the item's `name` is on a line of its own.
  const indent = (item[1] as string).length;
  for (const line of filled.slice(1)) {
    if (SEQUENCE_ITEM.exec(line)?.[1]?.length === indent) break;
    const match = NAME_ENTRY.exec(line.trim());
    if (match !== null) return scalar(match[1] as string);
  }
  return undefined;
}

/** `|` keeps the line breaks, `>` folds them into spaces; the common indentation goes. */
function blockScalar(literal: boolean, lines: readonly string[]): string {
  const filled = lines.filter((line) => line.trim() !== '');
  const indent = Math.min(...filled.map((line) => (/^[ \t]*/.exec(line) as RegExpExecArray)[0].length));
  const text = lines.map((line) => line.slice(indent).trimEnd());
  return (literal ? text.join('\n') : text.join(' ')).trim();
}

/** The items of `[a, "b, c", 'd']`. */
function flowItems(text: string): string[] {
  const items: string[] = [];
  const item = /[ \t]*("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^,\]]*)[ \t]*[,\]]/gy;
  item.lastIndex = 1;
  for (let match = item.exec(text); match !== null; match = item.exec(text)) {
    const value = scalar(match[1] as string);
    if (value !== '') items.push(value);
    if (text[item.lastIndex - 1] === ']') break;
  }
  return items;
}

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', '"': '"', '\\': '\\', '/': '/', ' ': ' ', '0': '' };

/** A YAML scalar: double-quoted (with escapes), single-quoted (`''` is a quote) or plain (a ` #` starts a comment). */
function scalar(raw: string): string {
  const text = raw.trim();
  if (text.startsWith('"')) {
    const end = /^"((?:[^"\\]|\\.)*)"/.exec(text);
    const body = end === null ? text.slice(1) : (end[1] as string);
    return body
      .replace(/\\u([0-9a-fA-F]{4})|\\(.)/g, (_, hex: string | undefined, char: string) => (hex !== undefined ? String.fromCharCode(parseInt(hex, 16)) : (ESCAPES[char] ?? char)))
      .trim();
  }
  if (text.startsWith("'")) {
    const end = /^'((?:[^']|'')*)'/.exec(text);
    return (end === null ? text.slice(1) : (end[1] as string)).replaceAll("''", "'").trim();
  }
  return text.replace(/[ \t]+#.*$/, '').trim();
}
