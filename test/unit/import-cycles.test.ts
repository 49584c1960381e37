/**
 * The folders of src/ import each other in one direction (docs/architecture.md, "Layout"), with
 * one deliberate exception: `writeTransaction` (src/db/transaction.ts) brings the embedded search
 * index up to date before every commit, so db/ calls into search/. Every import cycle between
 * folders must pass through that one edge; any other is a re-filing mistake.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const DELIBERATE = 'db -> search';

/** The top folder (or root file) a source file belongs to. */
function unitOf(file: string): string {
  return path.relative(SRC, file).split(path.sep)[0] ?? '';
}

/** Folder-to-folder runtime imports (type-only imports vanish at run time and are skipped). */
function folderEdges(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const entry of fs.readdirSync(SRC, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^import\s+(?!type\s)([^'"]*?)\s*from\s+['"](\.[^'"]+)['"]/gm)) {
      const names = match[1] ?? '';
      // `import { type A, type B } from` is type-only too.
      if (/^\{[^}]*\}$/.test(names) && names.slice(1, -1).split(',').every((name) => name.trim() === '' || name.trim().startsWith('type '))) continue;
      const target = path.resolve(path.dirname(file), match[2] ?? '');
      const from = unitOf(file);
      const to = unitOf(target);
      if (from === to) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)?.add(to);
    }
  }
  return edges;
}

/** True when `to` can be reached from `from` without taking the deliberate edge. */
function reaches(edges: Map<string, Set<string>>, from: string, to: string): boolean {
  const seen = new Set<string>();
  const queue = [from];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    for (const next of edges.get(node) ?? []) {
      if (`${node} -> ${next}` === DELIBERATE) continue;
      if (next === to) return true;
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return false;
}

t.test('no import cycle between folders of src/ but through the index sync', async (t) => {
  const edges = folderEdges();
  t.ok(edges.get('db')?.has('search'), 'the deliberate edge is seen (the scan reads imports)');
  const cycles: string[] = [];
  for (const [from, targets] of edges) {
    for (const to of targets) {
      if (`${from} -> ${to}` !== DELIBERATE && reaches(edges, to, from)) cycles.push(`${from} -> ${to} closes a cycle`);
    }
  }
  t.same(cycles, [], cycles.join('\n'));
});
