/**
 * `npx tsx scripts/bench/profile-summary.ts <file.cpuprofile> [top] [from-s] [to-s]`: where a V8 CPU profile's
 * time went, for docs/performance.md ("Where each miss goes"). `BENCH_CPU_PROF=1` makes the bench
 * write one profile per thread of the server into bench-results/profiles/; run the bench with one
 * scenario (`BENCH_ONLY=story`) so the profile holds that scenario's requests only; `from-s` and
 * `to-s` keep the samples between those seconds from the profile's start (0 to 1.5: the start-up).
 *
 * Prints the share of the profiled time (idle excluded) by self time per function, and by where
 * the function lives: our code (src/), each package under node_modules, Node's internals, or V8's
 * own entries ((garbage collector), (program)). A native call (better-sqlite3's `get`/`all`,
 * `Buffer.concat`) is charged to the JavaScript function that made it, as V8 sees it.
 */
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Where a function lives, from its script's URL. */
function owner(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : '(native)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules !== null) return modules[1] ?? url;
  if (url.startsWith('node:')) return 'node internals';
  const ours = /\/(src|scripts)\/(.+)$/.exec(url);
  if (ours !== null) return `${ours[1]}/${(ours[2] ?? '').split('/').slice(0, -1).join('/') || '.'}`;
  return url;
}

/** Summarizes the samples taken `window` (seconds from the profile's start, `[from, to)`) into it. */
export function summarize(profile: Profile, top: number, window: [number, number] = [0, Infinity]): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  let at = 0;
  for (let index = 0; index < profile.samples.length; index += 1) {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (at < window[0] * 1e6 || at >= window[1] * 1e6) continue;
    const id = profile.samples[index] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  }
  const byFunction = new Map<string, number>();
  const byOwner = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (node === undefined) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle += us;
      continue;
    }
    busy += us;
    const place = owner(url, functionName);
    const file = url === '' ? '' : ` ${url.replace(/^.*\/(node_modules|src|scripts)\//, '$1/')}:${lineNumber + 1}`;
    const key = `${functionName || '(anonymous)'}${file}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    byOwner.set(place, (byOwner.get(place) ?? 0) + us);
  }
  const share = (us: number) => `${((100 * us) / Math.max(1, busy)).toFixed(1)} %`;
  const rows = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, us]) => `| ${key.replaceAll('|', '\\|')} | ${share(us)} | ${(us / 1000).toFixed(0)} |`);
  const wall = Math.min(window[1], (profile.endTime - profile.startTime) / 1e6) - window[0];
  return [
    `${wall.toFixed(1)} s profiled; busy ${(busy / 1e6).toFixed(1)} s, idle ${(idle / 1e6).toFixed(1)} s`,
    '',
    '| where | share of busy time | ms |',
    '|---|---|---|',
    ...rows(byOwner),
    '',
    '| function (self time) | share of busy time | ms |',
    '|---|---|---|',
    ...rows(byFunction),
  ].join('\n');
}

if (process.argv[1]?.endsWith('profile-summary.ts') === true) {
  const [file, top, from, to] = process.argv.slice(2);
  if (file === undefined) {
    console.error('usage: npx tsx scripts/bench/profile-summary.ts <file.cpuprofile> [top] [from-s] [to-s]');
    process.exit(2);
  }
  const window: [number, number] = [Number(from ?? 0), to === undefined ? Infinity : Number(to)];
  console.log(summarize(JSON.parse(fs.readFileSync(file, 'utf8')) as Profile, Number(top ?? 25), window));
}
