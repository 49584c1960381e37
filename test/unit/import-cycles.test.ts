/**
 * The folders of src/ import each other in one direction (docs/architecture.md, "Layout"), with
 * one deliberate exception: `writeTransaction` (src/db/transaction.ts) brings the embedded search
 * index up to date before every commit, so db/ calls into search/. Every import cycle between
 * folders must pass through that one edge; any other is a re-filing mistake. Between files
 * there is no cycle at all, not even through that edge: the files on the search side of it
 * (src/db/bookkeeping.ts for their own transactions) never import src/db/transaction.ts back.
 *
 * Type-only imports count. They vanish at run time, but a circle of types is still a circle a
 * reader has to untangle, and the layering is about where a definition belongs, not about the
 * order modules load in.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import ts from 'typescript';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const DELIBERATE = 'db -> search';

type Graph = Map<string, Set<string>>;

/** Every relative import of every .ts file of src/, as `src/`-relative paths (`import`, `import type`, `export ... from`, `import()`). */
function fileEdges(): Graph {
  const edges: Graph = new Map();
  for (const entry of fs.readdirSync(SRC, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const targets = new Set<string>();
    for (const { fileName } of ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), fileName).replace(/\.js$/, '.ts');
      if (!fs.existsSync(target)) throw new Error(`${path.relative(SRC, file)} imports ${fileName}, which the scan cannot find`);
      targets.add(path.relative(SRC, target));
    }
    edges.set(path.relative(SRC, file), targets);
  }
  return edges;
}

/** The top folder (or root file) a source file belongs to. */
function unitOf(file: string): string {
  return file.split(path.sep)[0] ?? '';
}

/** Folder-to-folder imports, each with the file imports that make it. */
function folderEdges(files: Graph): Map<string, Map<string, string[]>> {
  const edges = new Map<string, Map<string, string[]>>();
  for (const [from, targets] of files) {
    for (const to of targets) {
      const [a, b] = [unitOf(from), unitOf(to)];
      if (a === b) continue;
      if (!edges.has(a)) edges.set(a, new Map());
      const reasons = edges.get(a) as Map<string, string[]>;
      reasons.set(b, [...(reasons.get(b) ?? []), `${from} -> ${to}`]);
    }
  }
  return edges;
}

/** The strongly connected components of more than one node (Tarjan): each holds at least one cycle. */
export function cycles(graph: Graph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

const files = fileEdges();

t.test('the cycle finder finds a cycle, and the scan reads imports of every kind', async (t) => {
  const graph: Graph = new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a'])], ['d', new Set(['a'])]]);
  t.strictSame(cycles(graph), [['a', 'b', 'c']]);
  t.strictSame(cycles(new Map([['a', new Set(['b'])], ['b', new Set()]])), []);
  t.ok(files.get('db/transaction.ts')?.has('search/embedded/sync.ts'), 'the deliberate edge is seen');
  t.ok(files.get('app.ts')?.has('config.ts'), 'a type-only import is seen');
});

t.test('no import cycle between folders of src/ but through the index sync', async (t) => {
  const folders = folderEdges(files);
  t.ok(folders.get('db')?.has('search'), 'the deliberate edge is seen (the scan reads imports)');
  const graph: Graph = new Map();
  for (const [from, targets] of folders) graph.set(from, new Set([...targets.keys()].filter((to) => `${from} -> ${to}` !== DELIBERATE)));
  const found = cycles(graph).map((component) => {
    const inside = component.flatMap((from) =>
      [...(folders.get(from) ?? [])]
        .filter(([to]) => component.includes(to) && `${from} -> ${to}` !== DELIBERATE)
        .map(([to, why]) => `  ${from} -> ${to}: ${why.join(', ')}`),
    );
    return [`${component.join(', ')} import each other:`, ...inside].join('\n');
  });
  t.strictSame(found, [], found.join('\n'));
});

t.test('no import cycle between files, inside a folder or across folders', async (t) => {
  const found = cycles(files).map((component) => {
    const inside = component.flatMap((from) => [...(files.get(from) ?? [])].filter((to) => component.includes(to)).map((to) => `  ${from} -> ${to}`));
    return [`${component.join(', ')} import each other:`, ...inside].join('\n');
  });
  t.strictSame(found, [], found.join('\n'));
});
