import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { staleBecause } from '../../scripts/build-state.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

let built: boolean | undefined;

/**
 * Whether dist/ holds a build of the current sources, by the rule scripts/build.mjs compiles by
 * (scripts/build-state.mjs). A rule of its own once looked for src/web/client's modules under
 * dist/src/, where they are never compiled to, and so sent every server of the suite through tsx.
 */
function buildIsCurrent(): boolean {
  built ??= staleBecause(ROOT) === undefined;
  return built;
}

/**
 * The node arguments that run an entry point of the app (`src/server.ts`, `scripts/backup.ts`):
 * its compiled file under dist/, as `npm start` runs it, when the build is current (`npm test`
 * builds before the suite; a process then starts in about half the CPU time of tsx, which
 * compiles the whole app again in every child); else the source through tsx, as `npm run dev`.
 */
export function entryPoint(file: string): string[] {
  return buildIsCurrent() ? [path.join(ROOT, 'dist', file.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', path.join(ROOT, file)];
}

/**
 * The node flags `npm start` runs the server with (package.json, "start"), so a process test
 * starts what users start: worker threads must not pass V8 flags such as this one on explicitly
 * (Node refuses them with ERR_WORKER_INVALID_EXEC_ARGV; src/lib/module-worker.ts).
 */
const START_FLAGS = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start.split(' ').filter((word: string) => word.startsWith('--')) as string[];

export interface ServerProcess {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output: () => string;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  exited: Promise<number | string>;
}

/**
 * Starts the real server (`src/server.ts`, see {@link entryPoint}) on a free loopback port, and
 * waits for its "serving" line. Killed at teardown if still running.
 */
export async function startServer(t: Test, env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...START_FLAGS, ...entryPoint('src/server.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 30 s:\n${output}`)), 30_000);
    const check = () => {
      const match = /serving the API at (http:\/\/[\d.]+:\d+)\/api/.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before serving:\n${output}`));
    });
  });
  return { origin, child, output: () => output, exited };
}

/** Logs in over HTTP and returns the token. */
export async function login(origin: string, password: string): Promise<string> {
  const res = await fetch(`${origin}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password }),
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}

/** JSON request with the token as a cookie. */
export async function call(origin: string, token: string, method: string, url: string, body?: unknown): Promise<Response> {
  return fetch(`${origin}${url}`, {
    method,
    headers: { cookie: `token=${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
