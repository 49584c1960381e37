/**
 * package.json's `engines.node` must not promise a Node version that a runtime dependency
 * refuses (docs/decisions.md, "Running the service"): its lower bound is at least every
 * `>=x.y.z` lower bound in the installed, non-dev dependency tree, except the one exception
 * that docs/decisions.md, "Running the service: timeouts, Node version, start-up and logs" documents (`cookie@2` declares ≥ 22 and works on 20.19).
 */
import { readFileSync } from 'node:fs';
import t from 'tap';

interface LockEntry {
  dev?: boolean;
  engines?: { node?: string };
}

/** `>=20.19` or `>= 20.19.0` as [20, 19, 0]; other range forms are not lower bounds we check. */
function lowerBound(range: string): number[] | undefined {
  const match = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\s+<\s*\d+(?:\.\d+)*)?$/.exec(range.trim());
  if (match === null) return undefined;
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i += 1) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

const KNOWN_EXCEPTIONS = new Set(['node_modules/cookie']);

t.test('engines.node covers what every runtime dependency declares', async (t) => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockEntry> };
  const ours = lowerBound(pkg.engines.node);
  t.ok(ours, `engines.node ("${pkg.engines.node}") starts with a >= lower bound`);
  let checked = 0;
  for (const [name, entry] of Object.entries(lock.packages)) {
    const theirs = entry.engines?.node === undefined ? undefined : lowerBound(entry.engines.node);
    if (name === '' || entry.dev === true || theirs === undefined || KNOWN_EXCEPTIONS.has(name)) continue;
    checked += 1;
    t.ok(compare(ours ?? [0], theirs) >= 0, `${name} needs Node ${entry.engines?.node}; engines.node says ${pkg.engines.node}`);
  }
  t.ok(checked > 5, `the lock file's runtime engines were read (${checked})`);
});
