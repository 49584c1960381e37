/**
 * `npx tsx scripts/bench-archive.ts [stories]`: seeds a synthetic library (scripts/lib/
 * synthetic-library.ts) in a temporary data folder, exports its archive to a file, restores the
 * archive into a second empty library, and prints the times, sizes and peak memory of both
 * (docs/performance.md has the figures).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { exportLibrary, exportSlots } from '../src/archive/service.js';
import { ArchiveRestore } from '../src/archive/restore.js';
import { applyMigrations, DATABASE_FILE_NAME, openDatabase } from '../src/db/open.js';
import { ImageStore, imagesFolderOf } from '../src/images/store.js';
import { seedLibrary } from './lib/synthetic-library.js';

const quiet = { warn: () => undefined, info: () => undefined };

async function openLibrary(dir: string) {
  const db = openDatabase(path.join(dir, DATABASE_FILE_NAME));
  applyMigrations(db);
  const images = await ImageStore.open(imagesFolderOf(dir), quiet);
  return { db, images };
}

async function main(): Promise<void> {
  const stories = Number(process.argv[2] ?? 10_000);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'storyshelf-bench-archive-'));
  try {
    const source = await openLibrary(path.join(root, 'source'));
    const seeded = await seedLibrary(source.db, { stories, store: source.images });
    let peak = process.memoryUsage().rss;
    const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const archive = path.join(root, 'library.zip');
    const exportStart = performance.now();
    const download = await exportLibrary(exportSlots(), source.db.$client, path.join(root, 'source'), source.images.root, 0x7fffffff);
    await pipeline(download.stream, fs.createWriteStream(archive));
    const exported = await download.finished;
    const exportSeconds = (performance.now() - exportStart) / 1000;
    const exportPeak = peak;

    const target = await openLibrary(path.join(root, 'target'));
    peak = process.memoryUsage().rss;
    const restoreStart = performance.now();
    const restore = await ArchiveRestore.open(target, archive);
    const end = await restore.runToEnd();
    restore.close();
    const restoreSeconds = (performance.now() - restoreStart) / 1000;
    clearInterval(sample);
    process.stdout.write(
      `${JSON.stringify(
        {
          stories,
          seededIn: Number(seeded.seconds.toFixed(1)),
          archiveBytes: fs.statSync(archive).size,
          counts: exported.counts,
          exportSeconds: Number(exportSeconds.toFixed(2)),
          exportPeakRssMiB: Math.round(exportPeak / 2 ** 20),
          restoreSeconds: Number(restoreSeconds.toFixed(2)),
          restorePeakRssMiB: Math.round(peak / 2 ** 20),
          restored: end.done,
          failed: end.failed,
        },
        null,
        2,
      )}\n`,
    );
    source.db.$client.close();
    target.db.$client.close();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench-archive: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
