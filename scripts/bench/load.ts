/**
 * Load for `npm run bench` (docs/performance.md, "What each scenario draws"): one autocannon run
 * whose every request is drawn afresh from a scenario's pool, with the server's CPU time around
 * it, and the figures (req/s, p50/p99, CPU per request) of one or more runs. Every run is bounded
 * in time; requests go to 127.0.0.1 only.
 */
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { prng } from '../lib/synthetic-library.js';
import { cpuMs } from './processes.js';

/** One drawn request: its path and query string, and a body for a POST. */
export interface DrawnRequest {
  path: string;
  body?: string;
}

export type Draw = (random: () => number) => DrawnRequest;

export interface LoadSpec {
  origin: string;
  /** The process whose CPU time is read around the run (the server under test or the ceiling). */
  pid: number;
  method: 'GET' | 'POST';
  status: number;
  token: string;
  draw: Draw;
  seconds: number;
  connections: number;
  /** Seeds the draws, so two runs of a scenario ask for the same sequence. */
  seed: number;
}

export interface Run {
  requests: number;
  seconds: number;
  latencies: number[];
  /** Expected answers completed in each second of the run, from its start. */
  perSecond: number[];
  cpuMs: number;
  bytes: number;
  unexpected: number;
}

export interface Figures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  cpuMsPerRequest: number;
  requests: number;
  meanBytes: number;
  unexpected: number;
}

/** Starts one autocannon run; resolves when it ends. The CPU time is read by the caller. */
function cannon(spec: LoadSpec, run: Run): Promise<void> {
  const random = prng(spec.seed);
  const headers: Record<string, string> = { cookie: `token=${spec.token}` };
  if (spec.method === 'POST') headers['content-type'] = 'application/json';
  const started = performance.now();
  return new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.origin,
        headers,
        requests: [
          {
            method: spec.method,
            setupRequest: (request) => {
              const drawn = spec.draw(random);
              return drawn.body === undefined ? { ...request, path: drawn.path } : { ...request, path: drawn.path, body: drawn.body };
            },
          },
        ],
        connections: spec.connections,
        duration: spec.seconds,
        timeout: 30,
      },
      (error) => (error ? reject(error) : resolve()),
    );
    instance.on('response', (_client, statusCode, responseBytes, responseTime) => {
      if (statusCode === spec.status) {
        run.latencies.push(responseTime);
        run.bytes += responseBytes;
        const second = Math.floor((performance.now() - started) / 1000);
        run.perSecond[second] = (run.perSecond[second] ?? 0) + 1;
      } else run.unexpected += 1;
    });
    // A request that times out (30 s) or fails never gets a 'response': count it too.
    instance.on('reqError', () => (run.unexpected += 1));
    // A run never outlives its duration by much: stop it if it does.
    setTimeout(() => instance.stop(), (spec.seconds + 60) * 1000).unref();
  });
}

/** One run of `spec`, with its process's CPU time around it. */
export async function load(spec: LoadSpec): Promise<Run> {
  const runs = await loadTogether([spec]);
  return runs[0]!;
}

/**
 * Several runs at the same time against the same process (the mixed scenario: story reads while
 * searches run). Each run's CPU figure is the process's CPU over all of them.
 */
export async function loadTogether(specs: readonly LoadSpec[]): Promise<Run[]> {
  const runs: Run[] = specs.map(() => ({ requests: 0, seconds: 0, latencies: [], perSecond: [], cpuMs: 0, bytes: 0, unexpected: 0 }));
  const pids = [...new Set(specs.map((spec) => spec.pid))];
  const before = pids.map((pid) => cpuMs(pid));
  const started = performance.now();
  await Promise.all(specs.map((spec, index) => cannon(spec, runs[index]!)));
  const seconds = (performance.now() - started) / 1000;
  const cpu = pids.reduce((sum, pid, index) => sum + cpuMs(pid) - before[index]!, 0);
  for (const run of runs) {
    run.requests = run.latencies.length;
    run.seconds = seconds;
    run.cpuMs = cpu;
  }
  return runs;
}

export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

export function figures(runs: readonly Run[]): Figures {
  const latencies = runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  const seconds = runs.reduce((sum, run) => sum + run.seconds, 0);
  const cpu = runs.reduce((sum, run) => sum + run.cpuMs, 0);
  const bytes = runs.reduce((sum, run) => sum + run.bytes, 0);
  return {
    requestsPerSecond: seconds === 0 ? NaN : requests / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    cpuMsPerRequest: requests === 0 ? NaN : cpu / requests,
    requests,
    meanBytes: requests === 0 ? NaN : bytes / requests,
    unexpected: runs.reduce((sum, run) => sum + run.unexpected, 0),
  };
}
