/**
 * Starting a worker thread from one of our own modules, the same way whether the code runs as
 * TypeScript under tsx (tests, `npm run dev`, the bench scripts) or compiled into `dist/`
 * (`npm start`).
 *
 * Name the module as a TypeScript import would, with `.js`, relative to the caller:
 * `startModuleWorker(import.meta.url, './search-worker.js', options)`. Compiled, the caller is a
 * `.js` file, the module sits next to it, and it starts as a plain `new Worker(url)`. Under tsx
 * the caller is a `.ts` file: the module is the `.ts` beside it, and the worker does not get the
 * main thread's tsx hooks (with tsx 4.23 on Node 20.20, under `node --import=tsx` and under the
 * `tsx` command alike, `new Worker(url of a .ts file)` fails with ERR_UNKNOWN_FILE_EXTENSION), so a
 * two-line bootstrap registers tsx in the worker first and then imports the module. The tsx
 * start costs a worker ~0.2 s more; compiled workers never load tsx.
 *
 * A worker that needs no TypeScript and starts often (the WAL checkpoint worker: one per app) can
 * be plain JavaScript instead, a `.mjs` module type-checked through JSDoc: named with `.mjs`, it
 * is the same file from `src/` and from `dist/` (the build copies it, `allowJs`), and it starts
 * without the process's flags (`execArgv: []`): it needs no loader, and under tsx the inherited
 * `--import=tsx` alone cost each start ~0.1 s of CPU and ~0.4 s of wall time (measured on these
 * 2-core machines, loaded), a TypeScript worker ~0.22 s of CPU and ~1 s.
 *
 * Everything else is Node's own `Worker`: the options (workerData, resourceLimits…) pass through,
 * and the worker's messages, errors and exit are the caller's to handle.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Runs in the worker under tsx: registers tsx's hooks for this thread, then loads the module.
 * Dynamic imports only: eval'd code is a script, or a module when the process runs with
 * `--input-type=module` (a worker inherits the flags), and `import()` works in both.
 */
const TSX_BOOTSTRAP = `
import('node:worker_threads')
  .then(({ workerData }) => import(workerData.__tsx).then((tsx) => { tsx.register(); return import(workerData.__module); }));
`;

/** Flags that load code (tsx, a loader, conditions): what a worker needs of the process's flags. */
const MODULE_FLAGS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader', '--conditions', '-C', '--enable-source-maps']);

/**
 * The options for a worker started from a file. A worker inherits the process's flags, which is
 * right, except that Node refuses `--input-type` for a file ("--input-type can only be used with
 * string input"), so a script run with `node --input-type=module -e` could not start one. Then
 * only the flags that load code are passed on: given explicitly, Node also refuses V8 flags such
 * as `npm start`'s `--max-semi-space-size` (ERR_WORKER_INVALID_EXEC_ARGV), which it ignores when
 * inherited.
 */
function fileWorkerOptions(options: WorkerOptions): WorkerOptions {
  if (options.execArgv !== undefined || !process.execArgv.some((arg) => arg.startsWith('--input-type'))) return options;
  const execArgv: string[] = [];
  for (let i = 0; i < process.execArgv.length; i += 1) {
    const arg = process.execArgv[i] as string;
    const name = arg.split('=')[0] as string;
    if (!MODULE_FLAGS.has(name)) continue;
    execArgv.push(arg);
    if (name === arg && name !== '--enable-source-maps' && i + 1 < process.execArgv.length) execArgv.push(process.execArgv[++i] as string);
  }
  return { ...options, execArgv };
}

/**
 * The worker module's URL: `relativePath` (ending `.js`) beside `callerUrl`, as `.ts` when the
 * caller is; a plain JavaScript module (ending `.mjs`) as it is.
 */
export function workerModuleUrl(callerUrl: string, relativePath: string): URL {
  if (relativePath.endsWith('.mjs')) return new URL(relativePath, callerUrl);
  if (!relativePath.endsWith('.js')) throw new Error(`A worker module is named with its .js extension (.mjs for plain JavaScript), not "${relativePath}"`);
  const url = new URL(relativePath, callerUrl);
  if (new URL(callerUrl).pathname.endsWith('.ts')) url.pathname = `${url.pathname.slice(0, -'.js'.length)}.ts`;
  return url;
}

/**
 * Starts the module `relativePath` (see the file comment) in a new worker thread. The module's
 * `workerData` is `options.workerData`, untouched in compiled mode; under tsx it also carries the
 * two `__`-prefixed keys the bootstrap reads, so pass an object (or nothing) as workerData.
 */
export function startModuleWorker(callerUrl: string, relativePath: string, options: WorkerOptions = {}): Worker {
  const url = workerModuleUrl(callerUrl, relativePath);
  if (url.pathname.endsWith('.mjs')) return new Worker(url, { execArgv: [], ...options });
  if (!url.pathname.endsWith('.ts')) return new Worker(url, fileWorkerOptions(options));
  const data: unknown = options.workerData ?? {};
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error('A TypeScript worker module needs an object (or no) workerData');
  return new Worker(TSX_BOOTSTRAP, {
    ...options,
    eval: true,
    // Resolved here, where tsx is installed and loaded: the eval'd bootstrap has no location to resolve from.
    workerData: { ...data, __tsx: import.meta.resolve('tsx/esm/api'), __module: url.href },
  });
}
