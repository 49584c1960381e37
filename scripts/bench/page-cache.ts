/**
 * Reading the library's database file through before each scenario, so every scenario starts
 * with it in the OS page cache, as on a home server that has the RAM for it.
 *
 * Why: the machines the bench runs on page out file cache nobody has touched for about a minute
 * (the kernel's DAMON reclaim: `/sys/kernel/mm/damon/admin/kdamonds/0`, a `pageout` scheme for
 * unmapped file pages aged 12 x 5 s), and a scenario touches only part of a 4.7 GB library. So
 * whichever scenario came after an idle minute read its rows from disk, and the same scenario
 * measured 0.22 x or 0.49 x its ceiling (story by id) depending on what ran before it
 * (docs/performance.md, "Where each miss goes"). `BENCH_COLD=1` skips this, to measure that case.
 */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';

const CHUNK_BYTES = 8 * 1024 * 1024;

/** Reads each existing file once, start to end; returns the seconds it took. */
export function readThrough(files: readonly string[]): number {
  const started = performance.now();
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  for (const file of files) {
    if (!fs.existsSync(file)) continue;
    const fd = fs.openSync(file, 'r');
    try {
      while (fs.readSync(fd, buffer, 0, CHUNK_BYTES, null) > 0);
    } finally {
      fs.closeSync(fd);
    }
  }
  return (performance.now() - started) / 1000;
}
