// Compiles the TypeScript into dist/ only when something tsc reads is newer than the last
// build, so `npm start` with nothing to rebuild costs a directory walk (~10 ms) instead of an
// incremental `tsc` run (~5 s, most of a start). `--always` compiles regardless (`npm run build`).
//
//   node scripts/build.mjs [--always] [<compiled module, e.g. dist/src/server.js>]
//
// Given a module, it then runs it in this same process: one Node start-up instead of two
// (~40 ms idle, ~300 ms on a busy machine), and signals reach the server directly.
//
// Plain JavaScript run by Node itself: it must work where TypeScript is not installed (a
// production install without dev dependencies, README.md "Production install").
//
// What counts as a change, and the stamp dist/.build-stamp: ./build-state.mjs.
import { spawnSync } from 'node:child_process';
import { utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stampFileOf, staleBecause } from './build-state.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stampFile = stampFileOf(root);
const PRODUCTION_INSTALL = 'npm ci && npm run build && npm prune --omit=dev';

function tscPath() {
  try {
    return createRequire(path.join(root, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
}

const args = process.argv.slice(2);
const entry = args.find((arg) => !arg.startsWith('--'));
const reason = args.includes('--always') ? 'asked to' : staleBecause(root);
if (reason !== undefined) {
  const tsc = tscPath();
  if (tsc === undefined) {
    process.stderr.write(
      `storyshelf: dist/ needs a build (${reason}) but TypeScript is not installed, as in a production ` +
        `install without dev dependencies. Build before leaving them out: ${PRODUCTION_INSTALL}\n`,
    );
    process.exit(1);
  }
  process.stderr.write(`storyshelf: compiling TypeScript into dist/ (${reason})\n`);
  const started = Date.now();
  // The server, then the pages' browser modules (src/web/client, DOM types, ES modules).
  for (const project of ['tsconfig.build.json', 'tsconfig.web.json']) {
    const result = spawnSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
  writeFileSync(stampFile, 'The time the last successful build started (scripts/build.mjs).\n');
  utimesSync(stampFile, started / 1000, started / 1000);
}
if (entry !== undefined) await import(pathToFileURL(path.resolve(root, entry)).href);
