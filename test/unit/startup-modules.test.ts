/**
 * The packages that only worker threads need stay out of the main thread's start-up: loading
 * linkedom, Readability and encoding-sniffer there cost ~50 ms of every start (docs/performance.md,
 * "Where each miss goes"), and one stray import of a constant from a parser module brings them
 * all back. A child process imports the app under a module hook that lists every package it loads.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** Loaded only by the URL extractor's and the file parser's worker threads (src/import/). */
const WORKER_ONLY = ['linkedom', '@mozilla/readability', 'encoding-sniffer'];

const HOOK = `
export async function load(url, context, next) {
  const found = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(url);
  if (found !== null) process._rawDebug('package ' + found[1]);
  return next(url, context);
}`;
const MAIN = `
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));
await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'src', 'app.ts')).href)});
process._rawDebug('imported');
`;

t.test('importing the app loads no package that only the workers use', async (t) => {
  const child = spawnSync(process.execPath, ['--import=tsx', '--input-type=module', '--eval', MAIN], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  // process._rawDebug writes to stderr.
  const lines = child.stderr.split('\n');
  t.ok(lines.includes('imported'), `the app was imported: ${child.stderr.slice(-500)}`);
  const packages = new Set(lines.filter((line) => line.startsWith('package ')).map((line) => line.slice('package '.length)));
  t.ok(packages.has('fastify') && packages.has('sanitize-html'), 'the hook saw the packages the main thread needs');
  for (const name of WORKER_ONLY) t.notOk(packages.has(name), `${name} is not loaded by the main thread`);
});
