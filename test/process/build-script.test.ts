/**
 * scripts/build.mjs, which `npm start`, `npm run backup` and `npm run set-password` run first:
 * it compiles only when a source is newer than the last build, and without TypeScript installed
 * (a production install, README.md) it runs from an up-to-date dist/ and explains a stale one.
 * Driven as a real process on a tiny project in a temp folder that borrows our node_modules. The
 * project's library is ES5's declarations alone, not ES2022 with the DOM (~1 MB of declarations
 * parsed by each of the test's ~10 tsc runs): a tsc run took ~0.6 s of CPU instead of ~1.2 s.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { staleBecause } from '../../scripts/build-state.mjs';

const ROOT = process.cwd();

function project(t: Test): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'storyshelf-build-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'src'));
  mkdirSync(path.join(dir, 'scripts'));
  for (const script of ['build.mjs', 'build-state.mjs']) copyFileSync(path.join(ROOT, 'scripts', script), path.join(dir, 'scripts', script));
  writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}\n');
  writeFileSync(
    path.join(dir, 'tsconfig.build.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', strict: true, outDir: 'dist', rootDir: '.', types: [], lib: ['ES5'], skipLibCheck: true },
      include: ['src', 'scripts'],
      exclude: ['src/web/client'],
    }),
  );
  // The pages' browser modules are a second project, as in ours (tsconfig.web.json).
  mkdirSync(path.join(dir, 'src', 'web', 'client'), { recursive: true });
  writeFileSync(
    path.join(dir, 'tsconfig.web.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'ES2022', strict: true, lib: ['ES5'], outDir: 'dist/web/client', rootDir: 'src/web/client', types: [], skipLibCheck: true },
      include: ['src/web/client'],
    }),
  );
  writeFileSync(path.join(dir, 'src', 'web', 'client', 'page.ts'), 'declare const document: { title: string };\ndocument.title = "built";\nexport {};\n');
  writeFileSync(path.join(dir, 'src', 'a.ts'), 'export const a: number = 1;\n');
  writeFileSync(path.join(dir, 'src', 'b.ts'), 'export const b: string = "b";\n');
  writeFileSync(path.join(dir, 'src', 'main.ts'), 'import { a } from "./a.js";\ndeclare const console: { log(text: string): void };\nconsole.log(`main ran with a=${a}`);\n');
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

function build(dir: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [path.join(dir, 'scripts', 'build.mjs'), ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Moves a file's mtime `seconds` past the build stamp, as an edit after the build would, and
 * returns once that time has come: a file dated in the future would still be newer than the next
 * build, whose stamp is the time it starts.
 */
function touchAfterBuild(dir: string, file: string, seconds = 2): void {
  const later = statSync(path.join(dir, 'dist', '.build-stamp')).mtimeMs / 1000 + seconds;
  utimesSync(path.join(dir, file), later, later);
  const wait = Math.ceil(later * 1000 - Date.now()) + 10;
  if (wait > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
}

t.test('compiles when there is no build or a source changed, and only then', async (t) => {
  const dir = project(t);
  const first = build(dir);
  t.equal(first.status, 0);
  t.match(first.stderr, /compiling TypeScript into dist\/ \(there is no build/);
  t.match(readFileSync(path.join(dir, 'dist', 'src', 'a.js'), 'utf8'), /a = 1/);
  t.match(readFileSync(path.join(dir, 'dist', 'web', 'client', 'page.js'), 'utf8'), /document\.title/, 'the browser modules too');
  const builtAt = statSync(path.join(dir, 'dist', 'src', 'a.js')).mtimeMs;

  const again = build(dir);
  t.equal(again.status, 0);
  t.equal(again.stderr, '', 'nothing to rebuild: silent');
  t.equal(statSync(path.join(dir, 'dist', 'src', 'a.js')).mtimeMs, builtAt, 'and tsc did not run');
  // The tests that start the server ask the same question (test/helpers/server-process.ts).
  t.equal(staleBecause(dir), undefined, 'the browser modules, compiled to dist/web/client, count as built');
  touchAfterBuild(dir, 'src/web/client/page.ts');
  t.equal(staleBecause(dir), 'src/web/client/page.ts changed since the last build');
  t.match(build(dir).stderr, /src\/web\/client\/page\.ts changed since the last build/);
  t.equal(staleBecause(dir), undefined);

  writeFileSync(path.join(dir, 'src', 'a.ts'), 'export const a: number = 2;\n');
  touchAfterBuild(dir, 'src/a.ts');
  const edited = build(dir);
  t.equal(edited.status, 0);
  t.match(edited.stderr, /src\/a\.ts changed since the last build/);
  t.match(readFileSync(path.join(dir, 'dist', 'src', 'a.js'), 'utf8'), /a = 2/);

  writeFileSync(path.join(dir, 'src', 'a.ts'), 'export const a: number = "not a number";\n');
  touchAfterBuild(dir, 'src/a.ts');
  t.not(build(dir).status, 0, 'a type error fails the build (and so `npm start`)');
  // Without TypeScript the script says why it would build, without building: still stale.
  rmSync(path.join(dir, 'node_modules'));
  t.match(build(dir).stderr, /\(src\/a\.ts changed since the last build\)/, 'a failed build is not stamped');
});

t.test('without TypeScript: an up-to-date dist/ is used, a stale one is explained', async (t) => {
  const dir = project(t);
  t.equal(build(dir).status, 0);
  rmSync(path.join(dir, 'node_modules'));
  const fresh = build(dir, 'dist/src/main.js');
  t.equal(fresh.status, 0, 'nothing to rebuild: TypeScript is not needed');
  t.equal(fresh.stderr, '');
  t.equal(fresh.stdout, 'main ran with a=1\n', 'the module named after the options runs once dist/ is fresh');

  rmSync(path.join(dir, 'src', 'b.ts'));
  touchAfterBuild(dir, 'src');
  const stale = build(dir, 'dist/src/main.js');
  t.equal(stale.status, 1);
  t.equal(stale.stdout, '', 'and a stale one does not run');
  t.match(stale.stderr, /\(src changed since the last build\) but TypeScript is not installed/, 'a deleted source counts through its folder');
  t.match(stale.stderr, 'npm ci && npm run build && npm prune --omit=dev', 'names the production install');

  touchAfterBuild(dir, 'tsconfig.build.json', 4);
  t.match(build(dir).stderr, /\(tsconfig\.build\.json changed/, 'so does the compiler configuration');
});
