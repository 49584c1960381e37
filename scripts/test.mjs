// The test suite behind `npm test`: compiles the tests once, then runs the test files in plain
// `node` processes, N at a time, as subtests of one tap stream: a file alone, or several files of
// one folder to a process where the folder allows it (BATCHES below; --batch=1: every file alone).
//
//   node scripts/test.mjs [--jobs=N] [--timeout=seconds] [--batch=N] [test files or folders, e.g. test/routes test/unit/x.test.ts]
//
// Run `node scripts/build.mjs` first (npm test does): the compiled tests import the compiled
// application from dist/src.
//
// Why not the `tap` command (docs/decisions.md, "Test suite"): tap starts each file with three
// sets of module hooks (tsx compiling the TypeScript of the file's whole import graph again, its
// mock plugin, and its process-info recorder, which also joins every child process and worker
// thread the test starts), and on Node 20 every hooked import crosses to the hooks' thread.
// Compiled once and run by plain `node`, the same files measured 30-55 % less CPU
// (docs/performance.md, "Test suite time"). `npx tap <file.ts>` still runs one TypeScript file
// directly, under tsx (package.json "tap").
//
// Compiling: every .ts under test/ becomes dist/test/<same path>.js with TypeScript's
// transpileModule (the tests are `isolatedModules`; `npm run typecheck` checks them), and the
// test folder's .js/.mjs files are copied beside them. Inside those files `import.meta.url`,
// `.dirname` and `.filename` name the *source* file under test/, so fixture paths
// (`../fixtures/x`), the repository root (`../..`) and worker modules resolve exactly as when the
// file runs from source; source maps point failures at the .ts lines. Only files changed since their
// output are compiled again, and outputs whose source is gone are deleted.
//
// Running: tap's own `t.spawn` runs each file (timeouts, buffered output with N jobs at once, the
// summary line `# { total, pass, fail }` that CI reads), through `env` to restore the caller's
// NODE_OPTIONS: tap's spawn adds its process-info hooks there, for coverage, which is disabled.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const testRoot = path.join(root, 'test');
const outRoot = path.join(root, 'dist', 'test');
const stampFile = path.join(outRoot, '.build-stamp.json');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/**
 * Every file under `dir`, as absolute paths. A running test's t.testdir() (tap-testdir-*, beside
 * its compiled file) is its own: it is not entered, so a run started meanwhile in this checkout
 * neither deletes its files nor fails on a folder removed while it is listed.
 */
function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith('tap-testdir-') ? [] : walk(full);
    return entry.isFile() ? [full] : [];
  });
}

const isTypeScript = (file) => /\.(m|c)?ts$/.test(file) && !/\.d\.(m|c)?ts$/.test(file);
const isJavaScript = (file) => /\.(m|c)?js$/.test(file);
const outputOf = (source) => path.join(outRoot, path.relative(testRoot, source)).replace(/\.(m|c)?ts$/, (ext) => ext.replace('t', 'j'));

/** Replaces `import.meta.url`, `.dirname` and `.filename` with the source file's own values. */
function sourceLocation(ts, sourceFile) {
  const values = { url: pathToFileURL(sourceFile).href, dirname: path.dirname(sourceFile), filename: sourceFile };
  return (context) => (node) => {
    const visit = (child) => {
      if (
        ts.isPropertyAccessExpression(child) &&
        ts.isMetaProperty(child.expression) &&
        child.expression.keywordToken === ts.SyntaxKind.ImportKeyword &&
        Object.hasOwn(values, child.name.text)
      ) {
        return context.factory.createStringLiteral(values[child.name.text]);
      }
      return ts.visitEachChild(child, visit, context);
    };
    return ts.visitNode(node, visit);
  };
}

/** The options for transpileModule: tsconfig.json's, for ES modules with a source map each. */
function compilerOptions(ts, configFile) {
  const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(configFile, ts.sys.readFile).config, ts.sys, root);
  return {
    ...parsed.options,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    sourceMap: true,
    inlineSourceMap: false,
    inlineSources: false,
    declaration: false,
    incremental: false,
    composite: false,
    tsBuildInfoFile: undefined,
    outDir: undefined,
    rootDir: undefined,
  };
}

/** Brings dist/test up to date with test/. Returns how many files it wrote. */
function compileTests() {
  const configFile = path.join(root, 'tsconfig.json');
  // The compiled files carry absolute source paths: a build made elsewhere, or by another version
  // of this script or tsconfig.json, is compiled again whole.
  const stamp = JSON.stringify({ root, script: fs.statSync(fileURLToPath(import.meta.url)).mtimeMs, tsconfig: fs.statSync(configFile).mtimeMs });
  const all = !fs.existsSync(stampFile) || fs.readFileSync(stampFile, 'utf8') !== stamp;
  // TypeScript is loaded (~1 s of CPU) only when something is to be compiled.
  let ts;
  let options;

  const sources = walk(testRoot).filter((file) => isTypeScript(file) || isJavaScript(file));
  const wanted = new Set();
  let written = 0;
  for (const source of sources) {
    const output = isTypeScript(source) ? outputOf(source) : path.join(outRoot, path.relative(testRoot, source));
    wanted.add(output);
    if (isTypeScript(source)) wanted.add(`${output}.map`);
    // An output carries its source's mtime: any other mtime, older or newer, means the source
    // changed (an edit, a checkout, a restored copy).
    const sourceTime = fs.statSync(source).mtimeMs;
    if (!all && fs.existsSync(output) && Math.abs(fs.statSync(output).mtimeMs - sourceTime) < 1) continue;
    fs.mkdirSync(path.dirname(output), { recursive: true });
    // Written beside and renamed into place: a run going on in this checkout never reads half a file.
    const write = (file, content) => {
      const temporary = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, content);
      fs.utimesSync(temporary, sourceTime / 1000, sourceTime / 1000);
      fs.renameSync(temporary, file);
    };
    if (isJavaScript(source)) {
      write(output, fs.readFileSync(source));
    } else {
      ts ??= createRequire(path.join(root, 'package.json'))('typescript');
      options ??= compilerOptions(ts, configFile);
      const result = ts.transpileModule(fs.readFileSync(source, 'utf8'), {
        compilerOptions: options,
        fileName: source,
        reportDiagnostics: true,
        transformers: { before: [sourceLocation(ts, source)] },
      });
      const errors = (result.diagnostics ?? []).filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error);
      if (errors.length > 0) {
        process.stderr.write(ts.formatDiagnostics(errors, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' }));
        process.exit(1);
      }
      const map = JSON.parse(result.sourceMapText);
      map.sources = [path.relative(path.dirname(output), source)];
      map.sourceRoot = '';
      map.file = path.basename(output);
      write(`${output}.map`, JSON.stringify(map));
      write(output, result.outputText);
    }
    written += 1;
  }
  // A deleted or renamed test must not keep running from its old output. Only outputs go.
  if (fs.existsSync(outRoot)) {
    for (const file of walk(outRoot)) {
      if (!wanted.has(file) && /\.(m|c)?js(\.map)?$/.test(file)) fs.rmSync(file, { force: true });
    }
  }
  fs.mkdirSync(outRoot, { recursive: true });
  fs.writeFileSync(stampFile, stamp);
  return written;
}

/** The compiled test files to run: all of them, or those under the given paths. */
function testFiles(selected) {
  const all = walk(outRoot)
    .filter((file) => /\.test\.(m|c)?js$/.test(file))
    .sort();
  if (selected.length === 0) return all;
  const prefixes = selected.map((arg) => {
    const absolute = path.resolve(arg);
    const relative = path.relative(testRoot, absolute.startsWith(outRoot) ? path.join(testRoot, path.relative(outRoot, absolute)) : absolute);
    if (relative.startsWith('..')) throw new Error(`${arg} is not under test/`);
    return path.join(outRoot, relative).replace(/\.(m|c)?ts$/, (ext) => ext.replace('t', 'j'));
  });
  const chosen = all.filter((file) => prefixes.some((prefix) => file === prefix || file.startsWith(`${prefix}${path.sep}`)));
  if (chosen.length === 0) throw new Error(`No test file under ${selected.join(', ')}`);
  return chosen;
}

const args = process.argv.slice(2);
/** The value of `--name=value`, if given. */
const option = (name) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const wholeNumber = (name, value) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new Error(`--${name} takes a whole number, not ${value}`);
  return number;
};
// Two runs per core: test files wait on worker threads, child processes and Chromium
// (docs/decisions.md, "Test suite").
const jobs = wholeNumber('jobs', option('jobs') ?? os.availableParallelism() * 2);
// Seconds per file, package.json "tap".timeout unless given (npm run test:long gives more).
const timeoutSeconds = wholeNumber('timeout', option('timeout') ?? pkg.tap?.timeout ?? 30);

const started = Date.now();
const written = compileTests();
process.stderr.write(`storyshelf: ${written} test files compiled into dist/test in ${Date.now() - started} ms\n`);
const files = testFiles(args.filter((arg) => !arg.startsWith('--')));

// The test processes' environment, as tap gives it (package.json "tap": test-env).
const env = { ...process.env, TAP_TIMEOUT: String(timeoutSeconds) };
for (const pair of pkg.tap?.['test-env'] ?? []) {
  const at = pair.indexOf('=');
  env[pair.slice(0, at)] = pair.slice(at + 1);
}
const nodeOptions = process.env.NODE_OPTIONS ?? '';

const { default: t } = await import('tap');
t.jobs = jobs;
// The run as a whole has no time limit (tap's root would stop at 30 s); each file has its own.
t.setTimeout(0);
/**
 * Folders whose files run several to a process (./test-batch.mjs), and how many to a process:
 * each file builds its own world in a temp folder and puts back what it changes of the process
 * (an environment variable in a teardown). A browser file's world is its app and its pages; the
 * Chromium behind them is the process's one (test/helpers/browser.ts), so three files to a
 * process launch one Chromium instead of three (~1 s of CPU each) and one Node (~1.7 s). The
 * process and reliability files stay one to a process: they start servers, hold ports, and time
 * windows that a longer-lived process would shift.
 */
const BATCHES = new Map([
  ['browser', 3],
  ['routes', 16],
  ['unit', 16],
  ['web', 16],
]);
// --batch=N: that many files per process in every batched folder (1: every file alone, as `npx tap` runs them).
const batchOption = option('batch') === undefined ? undefined : wholeNumber('batch', option('batch'));

/**
 * A file in a batched folder that says `@runs-alone` near its top (with the reason) keeps a
 * process of its own: one that times its own server to the millisecond (test/unit/shutdown.test.ts).
 */
const runsAlone = (file) => fs.readFileSync(file, 'utf8').slice(0, 4000).includes('@runs-alone');

/** The runs: a file alone, or up to batchSize files of one batched folder together. */
function runsOf(all) {
  const runs = [];
  for (const file of all) {
    const folder = path.relative(outRoot, file).split(path.sep)[0];
    const last = runs.at(-1);
    const batchSize = BATCHES.has(folder) ? (batchOption ?? BATCHES.get(folder)) : 1;
    const batched = batchSize > 1 && !runsAlone(file);
    if (batched && last?.folder === folder && last.files.length < batchSize) last.files.push(file);
    else runs.push({ folder: batched ? folder : undefined, files: [file] });
  }
  return runs;
}

/** A compiled file named by its source, as `npx tap` names it. */
function sourceName(file) {
  const source = path.join(testRoot, path.relative(outRoot, file));
  return path.relative(root, fs.existsSync(source) ? source : source.replace(/js$/, 'ts'));
}

for (const { files: group } of runsOf(files)) {
  const name = group.map((file, index) => (index === 0 ? sourceName(file) : path.basename(sourceName(file)))).join(' + ');
  const args = group.length === 1 ? ['--enable-source-maps', group[0]] : ['--enable-source-maps', path.join(root, 'scripts', 'test-batch.mjs'), ...group];
  // Each file keeps its own time: a batch has the sum.
  const seconds = timeoutSeconds * group.length;
  t.spawn('env', [`NODE_OPTIONS=${nodeOptions}`, `TAP_TIMEOUT=${seconds}`, process.execPath, ...args], {
    name,
    cwd: root,
    env,
    buffered: jobs > 1,
    // A few seconds past the file's own limit (TAP_TIMEOUT), so a file that runs out of time
    // reports it itself, with the handles still open, before it is killed.
    timeout: (seconds + 5) * 1000,
  });
}
