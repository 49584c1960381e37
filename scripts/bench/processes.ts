/**
 * Child processes for `npm run bench`: a free loopback port, spawning and stopping a server,
 * waiting for its first answer, and reading its CPU time and peak memory from /proc (Linux).
 * Every wait is bounded in time.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export const HOST = '127.0.0.1';

/** A port the OS just handed out on 127.0.0.1 (closed again, free for the child to take). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, resolve);
  });
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Child {
  process: ChildProcess;
  pid: number;
  origin: string;
  output: () => string;
  exited: Promise<number | string>;
}

/** Starts `node <args>` with exactly `env` (plus PATH/HOME); its output is kept for errors. */
export function startChild(args: string[], env: Record<string, string>, port: number): Child {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  if (child.pid === undefined) throw new Error(`could not start node ${args.join(' ')}`);
  return { process: child, pid: child.pid, origin: `http://${HOST}:${port}`, output: () => output, exited };
}

/**
 * Polls `url` every 5 ms until it answers 200; returns the milliseconds since `since`. Fails
 * when the child exits first or nothing answers within `timeoutMs`.
 */
export async function waitForAnswer(child: Child, url: string, since: number, timeoutMs = 120_000): Promise<number> {
  let exited = false;
  void child.exited.then(() => (exited = true));
  const deadline = since + timeoutMs;
  while (performance.now() < deadline) {
    if (exited) throw new Error(`the process exited before answering:\n${child.output()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.status === 200) return performance.now() - since;
    } catch {
      // not listening yet
    }
    await sleep(5);
  }
  throw new Error(`no answer from ${url} within ${timeoutMs} ms:\n${child.output()}`);
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code or signal. */
export async function stopChild(child: Child, graceMs = 15_000): Promise<number | string> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return child.exited;
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), graceMs);
  try {
    return await child.exited;
  } finally {
    clearTimeout(timer);
  }
}

let clockTicks: number | undefined;

/** Clock ticks per second of /proc/<pid>/stat times (usually 100). */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** User + system CPU time of a process so far, in milliseconds (from /proc/<pid>/stat). */
export function cpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** The same for one thread of the process (/proc/<pid>/task/<tid>/stat). */
export function cpuMsOfTask(pid: number, tid: string): number {
  return statCpuMs(`/proc/${pid}/task/${tid}/stat`);
}

/** A thread's niceness (field 19 of its stat): the search threads lower theirs to 10. */
export function niceOfTask(pid: number, tid: string): number {
  return Number(statFields(`/proc/${pid}/task/${tid}/stat`)[16]);
}

function statCpuMs(file: string): number {
  const fields = statFields(file);
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / ticksPerSecond();
}

/** The fields of a /proc stat file after the command name (field 2), which may hold spaces. */
function statFields(file: string): string[] {
  const stat = fs.readFileSync(file, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Resident set size now (VmRSS) and at its peak (VmHWM), in MiB. */
export function memoryMiB(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}
