/**
 * Times the re-derivation of stored stories' plain text (src/stories/text-rederive.ts) on a
 * generated library: seeds BENCH_STORIES stories (20,000 by default) in a temporary folder, makes
 * every stored plain text stale (as texts derived by older rules are), lists them with the
 * migration's own SQL, then works through the list as the service does after start-up, and
 * reports the time, the CPU time, the longest batch (with the yields inside it) and the peak RSS.
 *
 *   npx tsx scripts/bench-text-rederive.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applyMigrations, closeDatabase, DATABASE_FILE_NAME, findMigrationsFolder, openDatabase } from '../src/db/open.js';
import { rederiveBatch } from '../src/stories/text-rederive.js';
import { seedLibrary } from './lib/synthetic-library.js';

async function main(): Promise<void> {
  const stories = Number(process.env.BENCH_STORIES ?? 20_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storyshelf-rederive-'));
  try {
    const db = openDatabase(path.join(dir, DATABASE_FILE_NAME));
    applyMigrations(db);
    await seedLibrary(db, { stories });
    const client = db.$client;
    client.pragma('synchronous = NORMAL');
    // Stale texts without touching the index (as after an upgrade), then the migration's list.
    client.exec(`UPDATE stories SET content_plain = content_plain || ' stale'; DELETE FROM search_dirty; DROP TABLE story_text_rederive;`);
    const migration = fs.readFileSync(path.join(findMigrationsFolder(), '0015_story-text-rederive.sql'), 'utf8');
    for (const statement of migration.split('--> statement-breakpoint')) client.exec(statement);
    const listed = Number(client.prepare('SELECT count(*) FROM story_text_rederive').pluck().get());
    const htmlMiB = Number(client.prepare('SELECT sum(length(content_html)) FROM stories').pluck().get()) / 1024 ** 2;

    let peakRss = process.memoryUsage().rss;
    const rssBefore = peakRss;
    let longest = 0;
    const cpuBefore = process.cpuUsage();
    let batches = 0;
    let updated = 0;
    const started = performance.now();
    for (;;) {
      const batchStarted = performance.now();
      const batch = await rederiveBatch(db);
      if (batch.listed === 0) break;
      longest = Math.max(longest, performance.now() - batchStarted);
      batches += 1;
      updated += batch.updated;
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    console.log(
      `${listed} stories listed (${htmlMiB.toFixed(0)} MiB of HTML), ${updated} updated in ${batches} batches: ` +
        `${seconds.toFixed(1)} s (${Math.round(listed / seconds)} stories/s; ${cpuSeconds.toFixed(1)} s of CPU), longest batch ${longest.toFixed(0)} ms, ` +
        `RSS ${(rssBefore / 1024 ** 2).toFixed(0)} -> peak ${(peakRss / 1024 ** 2).toFixed(0)} MiB; load ${os.loadavg()[0]?.toFixed(2)} on ${os.cpus().length} CPUs`,
    );
    closeDatabase(db);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
