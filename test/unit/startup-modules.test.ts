/**
 * The packages that only worker threads need stay out of the main thread's start-up: loading
 * linkedom, Readability and encoding-sniffer there cost ~50 ms of every start (docs/performance.md,
 * "Where each miss goes"), and one stray import of a constant from a parser module brings them
 * all back. Likewise a search thread needs neither TypeBox nor Ajv. A child process imports the
 * modules under a module hook that lists every package it loads.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import t, { type Test } from 'tap';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** Loaded only by the URL extractor's and the file parser's worker threads (src/import/). */
const WORKER_ONLY = ['linkedom', '@mozilla/readability', 'encoding-sniffer'];

const HOOK = `
export async function load(url, context, next) {
  const found = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(url);
  if (found !== null) process._rawDebug('package ' + found[1]);
  return next(url, context);
}`;
/** The packages a fresh process loads when it imports these source modules. */
function packagesLoadedBy(t: Test, modules: readonly string[]): Set<string> {
  const main = `
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));
${modules.map((module) => `await import(${JSON.stringify(pathToFileURL(module).href)});`).join('\n')}
process._rawDebug('imported');
`;
  const child = spawnSync(process.execPath, ['--import=tsx', '--input-type=module', '--eval', main], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  // process._rawDebug writes to stderr.
  const lines = child.stderr.split('\n');
  t.ok(lines.includes('imported'), `the modules were imported: ${child.stderr.slice(-500)}`);
  return new Set(lines.filter((line) => line.startsWith('package ')).map((line) => line.slice('package '.length)));
}

t.test('importing the app loads no package that only the workers use', async (t) => {
  const packages = packagesLoadedBy(t, [path.join(ROOT, 'src', 'app.ts')]);
  t.ok(packages.has('fastify') && packages.has('sanitize-html'), 'the hook saw the packages the main thread needs');
  for (const name of WORKER_ONLY) t.notOk(packages.has(name), `${name} is not loaded by the main thread`);
});

/**
 * A search thread starts with each listening server and again whenever one dies: TypeBox and
 * Ajv, which only validating requests needs, were ~150 ms of its ~450 ms start
 * (docs/performance.md, "A search thread's start"). The thread's own module runs as it loads (it
 * reads its workerData), so this imports what it imports.
 */
t.test('a search thread loads neither TypeBox nor Ajv', async (t) => {
  const worker = path.join(ROOT, 'src', 'search', 'embedded', 'search-worker.ts');
  // Every relative import that runs: named, default, namespace or bare, on one line or several;
  // not `import type`, which is gone at run time.
  const imports = [...readFileSync(worker, 'utf8').matchAll(/^import (?!type )(?:[^;']*? from )?'(\.[^']+)\.js';/gm)].map((match) =>
    path.resolve(path.dirname(worker), `${match[1]}.ts`),
  );
  t.ok(imports.some((module) => module.endsWith('reads.ts')), `the worker's own imports were found: ${imports.join(', ')}`);
  const packages = packagesLoadedBy(t, imports);
  t.ok(packages.has('better-sqlite3') && packages.has('drizzle-orm'), 'the hook saw the packages a search thread needs');
  for (const name of ['@sinclair/typebox', 'ajv', 'ajv-formats', 'fastify']) t.notOk(packages.has(name), `${name} is not loaded by a search thread`);
});
