/**
 * Sustained creates for `npm run bench` (docs/performance.md, "Creates, sustained"): creates at
 * 10 connections for a minute, long enough for everything periodic that competes with writes to
 * run inside it (WAL checkpoints, the typo vocabulary's refresh, FTS5 segment merges), read as the
 * slowest few seconds rather than the average, since a run's average hid a periodic stall that
 * independent runs caught as anything from 165 to 330 creates/s. The server's CPU is split by
 * thread (/proc/<pid>/task), so a background thread that competes with the writes shows by name.
 */
import fs from 'node:fs';
import { load, type LoadSpec, type Run } from './load.js';
import { cpuMsOfTask, niceOfTask } from './processes.js';

/** The slowest window is read over this many seconds: one slow second is noise, five are a stall. */
export const WINDOW_SECONDS = 5;
/** What the slowest window must reach. */
export const SUSTAINED_CREATES_MIN = 300;

export interface ThreadCpu {
  name: string;
  cpuMs: number;
}

export interface SustainedResult {
  label: string;
  seconds: number;
  requestsPerSecond: number;
  /** The lowest mean rate over any {@link WINDOW_SECONDS} whole seconds of the run. */
  slowestWindow: number;
  perSecond: number[];
  unexpected: number;
  /** CPU the server's threads spent during the run, busiest first (threads of one name summed). */
  threads: ThreadCpu[];
}

/** The lowest mean over `width` consecutive whole seconds (the last, partial second left out). */
export function slowestWindow(perSecond: readonly number[], width = WINDOW_SECONDS): number {
  const whole = Array.from(perSecond.slice(0, -1), (count) => count ?? 0);
  if (whole.length < width) return whole.length === 0 ? NaN : whole.reduce((sum, count) => sum + count, 0) / whole.length;
  let sum = whole.slice(0, width).reduce((total, count) => total + count, 0);
  let lowest = sum;
  for (let end = width; end < whole.length; end += 1) {
    sum += whole[end]! - whole[end - width]!;
    lowest = Math.min(lowest, sum);
  }
  return lowest / width;
}

/**
 * What a thread of the server is. Node names every thread "node", so they are told apart by what
 * can be seen: the main thread's id is the process's, and the search threads lower their own
 * niceness (src/lib/thread-priority.ts); the rest are the checkpoint and import workers, V8's and
 * libuv's threads.
 */
function threadKind(pid: number, tid: string): string {
  if (tid === String(pid)) return 'main (event loop)';
  return niceOfTask(pid, tid) > 0 ? 'search threads (niceness 10)' : 'other threads (WAL checkpoints, import workers, V8, libuv)';
}

/** CPU per thread of `pid` so far, by thread id, with what the thread is. */
function threadTimes(pid: number): Map<string, ThreadCpu> {
  const times = new Map<string, ThreadCpu>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      times.set(tid, { name: threadKind(pid, tid), cpuMs: cpuMsOfTask(pid, tid) });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return times;
}

/** One sustained run of `spec` (its seconds), with the server's CPU by thread around it. */
export async function measureSustained(label: string, spec: LoadSpec): Promise<SustainedResult> {
  const before = threadTimes(spec.pid);
  const run: Run = await load(spec);
  const after = threadTimes(spec.pid);
  const byName = new Map<string, number>();
  for (const [tid, thread] of after) byName.set(thread.name, (byName.get(thread.name) ?? 0) + thread.cpuMs - (before.get(tid)?.cpuMs ?? 0));
  return {
    label,
    seconds: run.seconds,
    requestsPerSecond: run.requests / run.seconds,
    slowestWindow: slowestWindow(run.perSecond),
    perSecond: run.perSecond,
    unexpected: run.unexpected,
    threads: [...byName].map(([name, cpuMs]) => ({ name, cpuMs })).filter((thread) => thread.cpuMs > 0).sort((a, b) => b.cpuMs - a.cpuMs),
  };
}
