/**
 * The repository stands alone: every comment, the README and the docs cite only files that are in
 * a clone. Comments of the TypeScript sources and of `.ci/run`, and the whole text of README.md and
 * `docs/*.md`, are checked for references to documents that live elsewhere (a sibling folder, notes
 * and style guides kept outside, numbered sections of an outside specification, tracker numbers),
 * for bare file names that do not say where the file is, for `docs/...` files that do not exist,
 * and for quoted section names that are not headings of the file they name. Migrations in
 * `drizzle/` are left out: they are never edited once committed (docs/architecture.md, "Ten habits").
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A piece of text to check: one comment of a source file, or one whole Markdown file. */
interface Unit {
  file: string;
  line: number;
  text: string;
  markdown: boolean;
}

function walk(dir: string, keep: (file: string) => boolean): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(ROOT, dir))) {
    if (name === 'node_modules' || name.startsWith('.tap')) continue;
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) out.push(...walk(rel, keep));
    else if (keep(rel)) out.push(rel);
  }
  return out;
}

const lineOf = (text: string, pos: number) => text.slice(0, pos).split('\n').length;

/** Every comment of a TypeScript file, found by the compiler's parser (so regexes and strings never look like one). */
function tsComments(file: string): Unit[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const seen = new Map<number, Unit>();
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue;
      const raw = text.slice(range.pos, range.end);
      const body = raw
        .replace(/^\/\*\*?|\*\/$/g, '')
        .split('\n')
        .map((line) => line.replace(/^\s*(\/\/|\*(?!\/))?/, ''))
        .join(' ');
      seen.set(range.pos, { file, line: lineOf(text, range.pos), text: body.replace(/\s+/g, ' '), markdown: false });
    }
  };
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.pos));
    collect(ts.getTrailingCommentRanges(text, node.end));
    ts.forEachChild(node, visit);
  };
  visit(source);
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.pos));
  return [...seen.values()];
}

/** The `#` comment lines of a shell script, each its own unit. */
function shellComments(file: string): Unit[] {
  return readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .flatMap((line, i) => (/^\s*#(?!!)/.test(line) ? [{ file, line: i + 1, text: line.replace(/^\s*#/, ''), markdown: false }] : []));
}

/** A Markdown file, one unit per paragraph (a citation never spans two), so a problem has its line. */
function markdown(file: string): Unit[] {
  const units: Unit[] = [];
  let line = 1;
  for (const paragraph of readFileSync(path.join(ROOT, file), 'utf8').split(/(\n\s*\n)/)) {
    if (paragraph.trim() !== '' && !/^\n\s*\n$/.test(paragraph)) units.push({ file, line, text: paragraph.replace(/\s+/g, ' '), markdown: true });
    line += paragraph.split('\n').length - 1;
  }
  return units;
}

const docs = walk('docs', (file) => file.endsWith('.md'));
const units: Unit[] = [
  ...['src', 'scripts', 'test'].flatMap((dir) => walk(dir, (file) => file.endsWith('.ts'))).flatMap(tsComments),
  ...tsComments('drizzle.config.ts'),
  ...shellComments('.ci/run'),
  ...['README.md', 'data/README.md', ...docs].flatMap(markdown),
];

/** References to what a clone does not have. */
const OUTSIDE: [RegExp, string][] = [
  [/\.\.\/shared/, 'a folder outside the repository'],
  [/PERFORMANCE-NOTES/, 'notes kept outside the repository'],
  [/STYLE\.md/, 'a style guide kept outside the repository'],
  [/\/spec\//, 'a specification folder outside the repository'],
  [/\bspec(?:ification)?\s*(?:section\s*)?\d/i, 'a numbered section of an outside specification'],
  [/\bspec(?:'s|:)|\bthe spec\b(?! validator)/i, 'an outside specification'],
  [/\bissues?\s*(?:#\s*)?\d+|\bissue:/i, 'an issue number'],
  [/(?<![\w&/]|UAX )#\d+\b/, 'an issue number'],
];

/** Markdown links `[text](target)`: their targets are checked on their own, their text is not a citation. */
const LINK = /\[([^\]]*)\]\(([^)\s]*)\)/g;

/** The rule file's name, or its stem and a colon, without the `docs/` that says where it is. */
const BARE_DECISIONS = /(?<!docs\/)\bdecisions(?:\.md\b|:)/;

t.test('no comment, README line or doc cites anything outside the repository', async (t) => {
  const problems: string[] = [];
  for (const unit of units) {
    for (const [pattern, what] of OUTSIDE) {
      const match = pattern.exec(unit.text);
      if (match) problems.push(`${unit.file}:${unit.line}: "${match[0]}" cites ${what}`);
    }
    const prose = unit.markdown ? unit.text.replace(LINK, ' ') : unit.text;
    const bare = BARE_DECISIONS.exec(prose);
    if (bare) problems.push(`${unit.file}:${unit.line}: "${bare[0]}" should be docs/decisions.md, "<heading>"`);
  }
  t.same(problems, [], problems.join('\n'));
});

t.test('every docs/<file>.md cited exists, and every relative Markdown link resolves', async (t) => {
  const problems: string[] = [];
  for (const unit of units) {
    for (const match of unit.text.matchAll(/\bdocs\/[\w./-]*\.md\b/g)) {
      if (!existsSync(path.join(ROOT, match[0]))) problems.push(`${unit.file}:${unit.line}: ${match[0]} does not exist`);
    }
    if (!unit.markdown) continue;
    for (const match of unit.text.matchAll(LINK)) {
      const target = (match[2] ?? '').split('#')[0] ?? '';
      if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) continue;
      if (!existsSync(path.join(ROOT, path.dirname(unit.file), target))) problems.push(`${unit.file}: link to ${target} does not resolve`);
    }
  }
  t.same(problems, [], problems.join('\n'));
});

/** The headings of a Markdown file, outside code blocks, without their `#`s and backticks. */
function headings(file: string): { level: number; text: string }[] {
  const out: { level: number; text: string }[] = [];
  let fenced = false;
  for (const line of readFileSync(path.join(ROOT, file), 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const match = fenced ? null : /^(#{1,6})\s+(.*?)\s*$/.exec(line);
    if (match) out.push({ level: (match[1] ?? '').length, text: (match[2] ?? '').replace(/`/g, '') });
  }
  return out;
}

/** Whether `A › B › C` names a heading A, a heading B inside A's section, and so on. */
function hasSection(file: string, cited: string): boolean {
  const all = headings(file);
  let from = 0;
  let to = all.length;
  let level = 0;
  for (const part of cited.split('›').map((p) => p.replace(/`/g, '').trim())) {
    const index = all.findIndex((h, i) => i >= from && i < to && h.level > level && h.text === part);
    if (index < 0) return false;
    const found = all[index] as { level: number; text: string };
    level = found.level;
    from = index + 1;
    const end = all.findIndex((h, i) => i > index && h.level <= level);
    to = end < 0 ? all.length : end;
  }
  return true;
}

t.test('every quoted section of a docs file is one of its headings', async (t) => {
  const problems: string[] = [];
  let checked = 0;
  for (const unit of units) {
    const cites = [...unit.text.matchAll(/\bdocs\/([\w-]+\.md)`?\]?(?:\([^)]*\))?,?\s*["“]([^"”]+)["”]/g)].map((m) => [`docs/${m[1]}`, m[2] ?? '']);
    if (unit.markdown && unit.file.startsWith('docs/')) {
      for (const m of unit.text.matchAll(/\]\(([\w-]+\.md)\),?\s*["“]([^"”]+)["”]/g)) cites.push([path.join('docs', m[1] ?? ''), m[2] ?? '']);
    }
    for (const [file, section] of cites) {
      checked += 1;
      if (!existsSync(path.join(ROOT, file as string))) continue; // reported by the test above
      if (!hasSection(file as string, section as string)) problems.push(`${unit.file}:${unit.line}: ${file}, "${section}" is not a heading there`);
    }
  }
  t.ok(checked > 50, `${checked} section citations checked`);
  t.same(problems, [], problems.join('\n'));
});
