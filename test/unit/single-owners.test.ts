/**
 * Two concerns with exactly one owner each (docs/architecture.md, "Ten habits", 1 and 9), checked
 * over the source of src/ and scripts/ by the TypeScript parser, so comments and strings never
 * count:
 *
 * - The environment: only src/config.ts reads `process.env` (`loadConfig`, whose default is the
 *   process's environment). src/server.ts and the operator scripts (backup, export, import,
 *   set-password) call `loadConfig()` like everyone else. The bench scripts are development tools
 *   outside the service: they may read their own `BENCH_*` knobs, and `PATH`/`HOME` to hand to a
 *   child process, nothing else, and never the whole environment.
 * - Image paths: only the image store (src/images/store.ts, and src/images/thumbnail-files.ts,
 *   the part of it that keeps thumbnails) joins a path that names the images folder or anything
 *   in it. Everyone else asks the store (`imagesFolderOf`, `findStoredImage`, `imageCopyFolder`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const ENV_OWNER = 'src/config.ts';
const BENCH = /^scripts\/(bench[^/]*\.ts|bench\/)/;
const BENCH_VARIABLE = /^(BENCH_[A-Z0-9_]+|PATH|HOME)$/;
/**
 * The test runner (`npm test`) reads no setting: it hands the caller's environment, and its
 * NODE_OPTIONS, to the test processes it starts, whose apps read theirs through loadConfig.
 */
const TEST_RUNNER = 'scripts/test.mjs';

const IMAGE_STORE = ['src/images/store.ts', 'src/images/thumbnail-files.ts'];
/** A path call whose arguments say images: the folder's name, its kinds, its trash or thumbnails, or a variable named for them. */
const IMAGE_WORDS = /image|cover|avatar|inline|\.trash|\.thumbs|thumb/i;
const PATH_CALL = /^(path\.)?(join|resolve|normalize)$/;

function sourceFiles(): string[] {
  const files: string[] = [];
  for (const dir of ['src', 'scripts']) {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && /\.(ts|mjs)$/.test(entry.name)) files.push(path.relative(ROOT, path.join(entry.parentPath, entry.name)));
    }
  }
  return files.sort();
}

/** Every node of a file, depth first. */
function* nodes(node: ts.Node): Generator<ts.Node> {
  yield node;
  for (const child of node.getChildren()) yield* nodes(child);
}

interface Finding {
  file: string;
  line: number;
  text: string;
}

/** `process.env`, `process.env.X`, `process['env']` and `const { env } = process`, with the variable named when there is one. */
function environmentReads(file: string, source: ts.SourceFile): Array<Finding & { variable: string | undefined }> {
  const found: Array<Finding & { variable: string | undefined }> = [];
  const at = (node: ts.Node) => ({ file, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, text: node.getText(source) });
  const isProcess = (node: ts.Node) => ['process', 'globalThis.process'].includes(node.getText(source));
  for (const node of nodes(source)) {
    const envAccess =
      (ts.isPropertyAccessExpression(node) && node.name.text === 'env' && isProcess(node.expression)) ||
      (ts.isElementAccessExpression(node) && ts.isStringLiteral(node.argumentExpression) && node.argumentExpression.text === 'env' && isProcess(node.expression));
    if (envAccess) {
      const parent = node.parent;
      const variable = ts.isPropertyAccessExpression(parent) && parent.expression === node ? parent.name.text : undefined;
      found.push({ ...at(variable === undefined ? node : parent), variable });
    }
    const destructured = ts.isVariableDeclaration(node) && node.initializer !== undefined && isProcess(node.initializer) && ts.isObjectBindingPattern(node.name);
    if (destructured && node.name.elements.some((element) => (element.propertyName ?? element.name).getText(source) === 'env')) {
      found.push({ ...at(node), variable: undefined });
    }
  }
  return found;
}

/** Calls of path.join / resolve / normalize whose arguments name something of the images folder. */
function imagePathJoins(file: string, source: ts.SourceFile): Finding[] {
  const found: Finding[] = [];
  for (const node of nodes(source)) {
    if (!ts.isCallExpression(node) || !PATH_CALL.test(node.expression.getText(source))) continue;
    if (node.arguments.some((argument) => IMAGE_WORDS.test(argument.getText(source)))) {
      found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, text: node.getText(source) });
    }
  }
  return found;
}

const parsed = sourceFiles().map((file) => ({ file, source: ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true) }));
const show = (finding: Finding) => `${finding.file}:${finding.line}: ${finding.text}`;

t.test('the scans find what they look for', async (t) => {
  const probe = (text: string) => ts.createSourceFile('probe.ts', text, ts.ScriptTarget.Latest, true);
  const reads = environmentReads('probe.ts', probe("const a = process.env.PORT; const b = process['env']; const { env } = process; f(globalThis.process.env); // process.env.NOT"));
  t.strictSame(reads.map((read) => read.variable), ['PORT', undefined, undefined, undefined], 'every form of reading the environment, none in a comment');
  const joins = imagePathJoins('probe.ts', probe("path.join(dataDir, 'images', relPath); path.join(imagesDir, x); join(root, '.trash'); path.join(dataDir, 'jobs')"));
  t.equal(joins.length, 3, 'a join naming the images folder, a variable for it, or its trash');
  t.ok(parsed.some(({ file }) => file === ENV_OWNER) && parsed.some(({ file }) => file === IMAGE_STORE[0]), 'the owners are among the files read');
  t.ok(environmentReads(ENV_OWNER, parsed.find(({ file }) => file === ENV_OWNER)!.source).length > 0, 'the owner itself is seen reading it');
  t.ok(imagePathJoins(IMAGE_STORE[0]!, parsed.find(({ file }) => file === IMAGE_STORE[0])!.source).length > 0, 'the store itself is seen joining them');
});

t.test('only src/config.ts reads process.env; the bench scripts only their own knobs', async (t) => {
  const wrong = parsed.flatMap(({ file, source }) =>
    file === ENV_OWNER || file === TEST_RUNNER ? [] : environmentReads(file, source).filter((read) => !(BENCH.test(file) && read.variable !== undefined && BENCH_VARIABLE.test(read.variable))),
  );
  t.strictSame(wrong.map(show), [], 'read the setting through loadConfig (src/config.ts) instead');
});

t.test('only the image store joins paths in the images folder', async (t) => {
  const wrong = parsed.flatMap(({ file, source }) => (IMAGE_STORE.includes(file) ? [] : imagePathJoins(file, source)));
  t.strictSame(wrong.map(show), [], 'ask the image store (src/images/store.ts) for the path instead');
});
