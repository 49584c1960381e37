/**
 * The worker pool (src/lib/worker-pool.ts) with a fixture worker module started from TypeScript
 * (src/lib/module-worker.ts): answers and errors cross the thread boundary, at most `size` tasks
 * run at once and `queueMax` wait, a task past its time limit or on a thread that dies fails
 * while its thread is replaced, and a closed pool leaves no thread behind.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { threadId } from 'node:worker_threads';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { workerModuleUrl } from '../../src/lib/module-worker.js';
import { WorkerGone, WorkerPool, WorkerPoolBusy, WorkerPoolClosed, WorkerTaskFailed, WorkerTaskTimeout, type WorkerPoolOptions } from '../../src/lib/worker-pool.js';

const MODULE = '../fixtures/workers/task-worker.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function pool(t: Test, options: Partial<WorkerPoolOptions> = {}): WorkerPool {
  const created = new WorkerPool({ callerUrl: import.meta.url, modulePath: MODULE, size: 2, queueMax: 8, taskTimeoutMs: 10_000, ...options });
  t.teardown(() => created.close());
  return created;
}

t.test('the module is named with .js and found as .ts beside a TypeScript caller, as .js beside a compiled one', async (t) => {
  t.equal(workerModuleUrl('file:///app/src/search/x.ts', './w.js').href, 'file:///app/src/search/w.ts');
  t.equal(workerModuleUrl('file:///app/dist/src/search/x.js', './w.js').href, 'file:///app/dist/src/search/w.js');
  t.throws(() => workerModuleUrl('file:///app/src/x.ts', './w.ts'), /\.js extension/);
  t.equal(workerModuleUrl('file:///app/src/db/x.ts', './w.mjs').href, 'file:///app/src/db/w.mjs', 'plain JavaScript is the same file from a TypeScript caller…');
  t.equal(workerModuleUrl('file:///app/dist/src/db/x.js', './w.mjs').href, 'file:///app/dist/src/db/w.mjs', '…and from a compiled one');
});

t.test('tasks run on worker threads, not this one, and their values and errors come back', async (t) => {
  const workers = pool(t);
  t.same(workers.stats(), { threads: 0, running: 0, queued: 0 }, 'no thread before the first task');
  const answer = await workers.run<{ value: unknown; threadId: number }>('echo', [{ a: [1, 'two'], when: new Date(5) }]);
  t.same(answer.value, { a: [1, 'two'], when: new Date(5) }, 'structured clone both ways');
  t.not(answer.threadId, threadId, 'ran on another thread');

  const failure = await workers.run('fail', ['no such column: x', 'SQLITE_ERROR']).catch((error: unknown) => error);
  t.ok(failure instanceof WorkerTaskFailed, 'a handler error is a WorkerTaskFailed');
  t.match(failure, { message: 'no such column: x', code: 'SQLITE_ERROR', errorName: 'Error' }, 'with its message and code');
  await t.rejects(workers.run('nope', []), { message: 'No task named "nope"' });
  await t.rejects(workers.run('unclonable', []), WorkerTaskFailed, 'a result that cannot be cloned fails the task');
  t.equal((await workers.run<{ value: number }>('echo', [7])).value, 7, 'the thread still answers');
});

t.test('warm starts every thread before any task, and tasks then use them', async (t) => {
  const workers = pool(t, { size: 2 });
  workers.warm();
  t.equal(workers.stats().threads, 2);
  const answers = await Promise.all([workers.run<{ threadId: number }>('echo', [1]), workers.run<{ threadId: number }>('echo', [2])]);
  t.equal(new Set(answers.map((answer) => answer.threadId)).size, 2, 'one task on each');
  workers.warm();
  t.equal(workers.stats().threads, 2, 'never more than the size');
});

t.test('at most `size` tasks run at once, `queueMax` wait in order, one more is refused at once', async (t) => {
  const workers = pool(t, { size: 2, queueMax: 2 });
  const started = Date.now();
  const running = [workers.run<number>('block', [300]), workers.run<number>('block', [300]), workers.run<number>('block', [300]), workers.run<number>('block', [300])];
  t.same(workers.stats(), { threads: 2, running: 2, queued: 2 });
  await t.rejects(workers.run('echo', [1]), WorkerPoolBusy, 'the fifth is refused');
  const threads = await Promise.all(running);
  t.equal(new Set(threads).size, 2, 'two threads shared the four tasks');
  t.ok(Date.now() - started >= 550, 'two rounds of 300 ms: never more than two at once');
  t.same(workers.stats(), { threads: 2, running: 0, queued: 0 });
});

t.test('a task past its time limit fails, and its thread is replaced', async (t) => {
  const workers = pool(t, { size: 1, taskTimeoutMs: 200 });
  const first = await workers.run<{ threadId: number }>('echo', [1]);
  const queued = workers.run<{ threadId: number }>('echo', [2]);
  const slow = workers.run('block', [2_000]);
  // The echo was queued first, so it ran first; now the block runs.
  await queued;
  await t.rejects(slow, WorkerTaskTimeout);
  const after = await workers.run<{ threadId: number }>('echo', [3]);
  t.not(after.threadId, first.threadId, 'a new thread answers');
  t.equal(workers.stats().threads, 1);
});

t.test('a thread that dies fails its task; the next task gets a new thread', async (t) => {
  const errors: unknown[] = [];
  const workers = pool(t, { size: 1, onThreadError: (error) => errors.push(error) });
  const before = await workers.run<{ threadId: number }>('echo', [1]);
  const crashing = workers.run('crash', []);
  const queued = workers.run<{ threadId: number }>('echo', [2]);
  await t.rejects(crashing, WorkerGone, 'the running task fails');
  t.not((await queued).threadId, before.threadId, 'the task queued behind it runs on a new thread');
  t.equal(errors.length, 1, 'the death is reported once');
  const after = await workers.run<{ threadId: number }>('echo', [3]);
  t.not(after.threadId, before.threadId, 'on a new thread');

  // A thread killed from outside (what an out-of-memory end looks like) is replaced too.
  const blocked = workers.run('block', [5_000]);
  await new Promise((resolve) => setTimeout(resolve, 100));
  await workers.workers()[0]?.terminate();
  await t.rejects(blocked, WorkerGone);
  t.equal((await workers.run<{ value: number }>('echo', [4])).value, 4);
});

t.test('a thread that cannot start fails the waiting tasks instead of restarting in a loop', async (t) => {
  const workers = pool(t, { size: 1, workerData: { bootFails: true } });
  const tasks = [workers.run('echo', [1]), workers.run('echo', [2]), workers.run('echo', [3])];
  for (const task of tasks) await t.rejects(task, WorkerGone);
  t.equal(workers.stats().threads, 0, 'no thread left starting');
});

t.test("a thread's own error is the cause of the task's failure", async (t) => {
  const workers = pool(t, { size: 1, onThreadError: () => undefined });
  const failure = await workers.run('explode', ['out of room']).catch((error: unknown) => error);
  t.ok(failure instanceof WorkerGone && !(failure instanceof WorkerPoolClosed), 'the thread died: not a closed pool');
  t.match((failure as WorkerGone).cause, { message: 'out of room' });
  t.equal((await workers.run<{ value: number }>('echo', [1])).value, 1, 'a new thread answers');
});

t.test('an aborted task fails with the reason: a waiting one leaves the queue, a running one stops its thread', async (t) => {
  const workers = pool(t, { size: 1 });
  const first = await workers.run<{ threadId: number }>('echo', [1]);
  const running = new AbortController();
  const waiting = new AbortController();
  const blocked = workers.run('block', [5_000], { signal: running.signal });
  const queued = workers.run('echo', [2], { signal: waiting.signal });
  const behind = workers.run<{ threadId: number }>('echo', [3]);
  waiting.abort(new Error('not wanted'));
  await t.rejects(queued, { message: 'not wanted' });
  t.same(workers.stats(), { threads: 1, running: 1, queued: 1 }, 'only the aborted task left the queue');
  const started = Date.now();
  running.abort(new Error('job cancelled'));
  await t.rejects(blocked, { message: 'job cancelled' });
  t.ok(Date.now() - started < 2_000, 'at once, not when the block ends');
  t.not((await behind).threadId, first.threadId, 'the task behind it runs on a new thread');
  await t.rejects(workers.run('echo', [4], { signal: AbortSignal.abort(new Error('too late')) }), { message: 'too late' }, 'already aborted: never runs');
});

t.test('close fails the waiting tasks, ends every thread, and refuses new tasks', async (t) => {
  const workers = pool(t, { size: 1 });
  const running = workers.run<number>('block', [200]);
  const waiting = workers.run('echo', [1]).catch((error: unknown) => error);
  const exits = workers.workers().map((worker) => new Promise((resolve) => worker.once('exit', resolve)));
  await workers.close();
  t.equal(typeof (await running), 'number', 'the running task finished first');
  t.ok((await waiting) instanceof WorkerGone, 'the waiting task fails');
  t.ok((await waiting) instanceof WorkerPoolClosed, 'as closed');
  await Promise.all(exits);
  t.same(workers.stats(), { threads: 0, running: 0, queued: 0 });
  await t.rejects(workers.run('echo', [2]), WorkerGone);
});

t.test('close with interrupt fails the running tasks at once too and terminates their threads', async (t) => {
  const workers = pool(t, { size: 1 });
  const running = workers.run('block', [5_000]).catch((error: unknown) => error);
  const waiting = workers.run('echo', [1]).catch((error: unknown) => error);
  const started = Date.now();
  await workers.close({ interrupt: true });
  t.ok(Date.now() - started < 2_000, 'without waiting for the running task');
  t.ok((await running) instanceof WorkerPoolClosed, 'the running task fails as closed');
  t.ok((await waiting) instanceof WorkerPoolClosed, 'so does the waiting one');
  t.same(workers.stats(), { threads: 0, running: 0, queued: 0 });
});

/** Runs `node <flags> -e <code>` from the repository root; the code sees `pool` and `done()`. */
function runScript(flags: string[], moduleInput: boolean, callerUrl: string, modulePath: string, close: boolean) {
  const body = `
    const pool = new WorkerPool({ callerUrl: ${JSON.stringify(callerUrl)}, modulePath: ${JSON.stringify(modulePath)}, size: 2, queueMax: 4, taskTimeoutMs: 5000 });
    const answers = await Promise.all([pool.run('echo', [1]), pool.run('echo', [2])]);
    ${close ? 'await pool.close();' : ''}
    console.log('done', answers.map((answer) => answer.value).join(','));
  `;
  const code = moduleInput
    ? `import { WorkerPool } from './src/lib/worker-pool.ts';\n${body}`
    : `import('./src/lib/worker-pool.ts').then(async ({ WorkerPool }) => {${body}});`;
  return spawnSync(process.execPath, [...flags, '--import=tsx', ...(moduleInput ? ['--input-type=module'] : []), '-e', code], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
}

t.test('a process that used a pool exits by itself, closed or not, whatever flags it runs with', async (t) => {
  // A TypeScript worker (started through tsx) and a plain JavaScript one (as from dist/, named
  // from a .js caller), under npm start's V8 flag and with code given to -e as a module or not.
  const modules = [
    { callerUrl: import.meta.url, modulePath: MODULE },
    { callerUrl: new URL('../fixtures/workers/caller.js', import.meta.url).href, modulePath: './plain-worker.js' },
  ];
  for (const { callerUrl, modulePath } of modules) {
    for (const [flags, moduleInput, close] of [
      [[], true, true],
      [['--max-semi-space-size=4'], true, false],
      [['--max-semi-space-size=4'], false, true],
    ] as const) {
      const result = runScript([...flags], moduleInput, callerUrl, modulePath, close);
      const label = `${modulePath}, ${[...flags, moduleInput ? '--input-type=module' : 'script'].join(' ')}, ${close ? 'closed' : 'not closed'}`;
      t.equal(result.signal, null, `not killed by the time limit: ${label}`);
      t.equal(result.status, 0, `${label}: ${result.stderr}`);
      t.match(result.stdout, /done 1,2/, label);
    }
  }
});

t.test('a worker lowers its own priority, and only its own (src/lib/thread-priority.ts)', async (t) => {
  const workers = pool(t, { size: 1 });
  const before = os.getPriority();
  const answer = await workers.run<{ lowered: boolean; systemThreadId?: number }>('lowerPriority', [7]);
  t.equal(answer.lowered, process.platform === 'linux', 'lowered where threads have their own priority (Linux)');
  if (answer.systemThreadId !== undefined) {
    t.equal(os.getPriority(answer.systemThreadId), 7, 'the worker thread runs at niceness 7');
    t.not(answer.systemThreadId, process.pid, 'a thread of its own, not the process');
  }
  t.equal(os.getPriority(), before, 'the main thread keeps its priority');
});
