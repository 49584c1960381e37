/**
 * scripts/test.mjs, the runner behind `npm test`: it compiles the TypeScript tests into
 * dist/test, and a compiled test still sees its source location (fixture paths relative to the
 * test, stack lines in the .ts); it reports through tap with the summary line CI reads and fails
 * when a file fails; it runs only the files asked for; a deleted test stops running.
 * Driven as a real process on a tiny project in a temp folder that borrows our node_modules.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';

const ROOT = process.cwd();

/** A test that checks where it runs from: the assertions that matter happen in the child. */
const LOCATION_TEST = `import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { helperDir } from '../helpers/where.js';

interface Fixture { text: string }
const fixture: Fixture = { text: fs.readFileSync(path.join(import.meta.dirname, '../fixtures/data.txt'), 'utf8') };
t.equal(fixture.text, 'fixture text\\n', 'a fixture path relative to the test resolves in the source tree');
t.match(import.meta.url, /^file:.*\\/test\\/unit\\/location\\.test\\.ts$/, 'import.meta.url names the source file');
t.equal(import.meta.filename, path.join(import.meta.dirname, 'location.test.ts'));
t.equal(helperDir, path.join(import.meta.dirname, '..', 'helpers'), 'and so does a helper module');
t.match(new Error('here').stack, /test\\/unit\\/location\\.test\\.ts:12:/, 'stack lines are the TypeScript lines');
`;

function project(t: Test): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'storyshelf-runner-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'scripts'));
  for (const script of ['test.mjs', 'test-batch.mjs']) copyFileSync(path.join(ROOT, 'scripts', script), path.join(dir, 'scripts', script));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', tap: { timeout: 60 } }));
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', strict: true, isolatedModules: true, verbatimModuleSyntax: true } }));
  for (const folder of ['unit', 'helpers', 'fixtures']) mkdirSync(path.join(dir, 'test', folder), { recursive: true });
  writeFileSync(path.join(dir, 'test', 'fixtures', 'data.txt'), 'fixture text\n');
  writeFileSync(path.join(dir, 'test', 'helpers', 'where.ts'), 'export const helperDir: string = import.meta.dirname;\n');
  writeFileSync(path.join(dir, 'test', 'unit', 'location.test.ts'), LOCATION_TEST);
  writeFileSync(path.join(dir, 'test', 'unit', 'other.test.ts'), "import t from 'tap';\nt.equal(1 + 1, 2, 'the other file ran');\n");
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

function runTests(dir: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  // A clean environment: inside a tap test, TAP_* variables would make the runner a child itself.
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  const result = spawnSync(process.execPath, [path.join(dir, 'scripts', 'test.mjs'), ...args], { cwd: dir, env, encoding: 'utf8', timeout: 90_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

t.test('compiled tests see their source location and report through tap', async (t) => {
  const dir = project(t);
  const run = runTests(dir, '--jobs=2', '--batch=1');
  t.equal(run.status, 0, 'exits 0', { output: `${run.stdout}${run.stderr}` });
  t.match(run.stdout, /^ok \d+ - test\/unit\/location\.test\.ts/m, 'files are named by their source');
  t.match(run.stdout, /^ok \d+ - test\/unit\/other\.test\.ts/m);
  t.match(run.stdout, /^# \{ total: 6, pass: 6 \}$/m, 'the summary line CI reads counts every assertion');
  // By default the files of test/unit share a process (scripts/test-batch.mjs), each still seeing its own location.
  const batched = runTests(dir);
  t.equal(batched.status, 0, 'exits 0', { output: `${batched.stdout}${batched.stderr}` });
  t.match(batched.stdout, /^ok 1 - test\/unit\/location\.test\.ts \+ other\.test\.ts/m, 'one process ran both, named by both');
  t.match(batched.stdout, /^# \{ total: 6, pass: 6 \}$/m, 'every assertion of both counted');
  t.ok(existsSync(path.join(dir, 'dist', 'test', 'unit', 'location.test.js')), 'compiled into dist/test');
  t.notOk(existsSync(path.join(dir, 'dist', 'test', 'fixtures', 'data.txt')), 'data files stay where they are');
});

t.test('a failing file fails the run; only the files asked for run; a deleted test stops running', async (t) => {
  const dir = project(t);
  writeFileSync(path.join(dir, 'test', 'unit', 'other.test.ts'), "import t from 'tap';\nt.equal(1 + 1, 3, 'arithmetic');\n");
  const failing = runTests(dir, '--batch=1');
  t.equal(failing.status, 1, 'exit status 1');
  t.match(failing.stdout, /^not ok \d+ - test\/unit\/other\.test\.ts/m);
  t.match(failing.stdout, /# \{ total: \d+, pass: \d+, fail: 1 \}/);
  const batched = runTests(dir);
  t.equal(batched.status, 1, 'a failing file fails its batch and the run');
  t.match(batched.stdout, /^not ok 1 - test\/unit\/location\.test\.ts \+ other\.test\.ts/m);
  t.match(batched.stdout, /fileName: test\/unit\/other\.test\.ts/, 'the failure names its file');
  t.match(batched.stdout, /# \{ total: \d+, pass: \d+, fail: 1 \}/);

  const one = runTests(dir, 'test/unit/location.test.ts');
  t.equal(one.status, 0, 'exits 0', { output: `${one.stdout}${one.stderr}` });
  t.notMatch(one.stdout, /other\.test/, 'the other file did not run');

  rmSync(path.join(dir, 'test', 'unit', 'other.test.ts'));
  // A running test's t.testdir() beside its compiled file: not the runner's to clean.
  const testdir = path.join(dir, 'dist', 'test', 'unit', 'tap-testdir-location', 'nested');
  mkdirSync(testdir, { recursive: true });
  writeFileSync(path.join(testdir, 'made-by-the-test.js'), '');
  const after = runTests(dir);
  t.equal(after.status, 0, 'exits 0', { output: `${after.stdout}${after.stderr}` });
  t.notMatch(after.stdout, /other\.test/);
  t.notOk(existsSync(path.join(dir, 'dist', 'test', 'unit', 'other.test.js')), 'its compiled copy is gone');
  t.ok(existsSync(path.join(testdir, 'made-by-the-test.js')), "a test's own folder is left alone");
});
