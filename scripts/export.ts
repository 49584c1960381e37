/**
 * `npm run export -- <file>`: writes the library archive of DATA_DIR (read from the environment,
 * like the server) to <file> (docs/export-format.md), whether or not the service is running. The
 * same ZIP as `GET /api/export`: the database is copied first (one backup step: from another
 * process a stepped copy would restart on every write of the server), then streamed from the copy.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { exportLibrary, exportSlots } from '../src/archive/service.js';
import { loadConfig } from '../src/config.js';
import { DATABASE_FILE_NAME, openDatabase } from '../src/db/open.js';
import { imagesFolderOf } from '../src/images/store.js';

/** Everything in one step (see above). */
const ALL_PAGES = 0x7fffffff;

async function main(): Promise<void> {
  const target = process.argv[2];
  if (target === undefined || target === '') throw new Error('usage: npm run export -- <file.zip>');
  const config = loadConfig();
  const file = path.join(config.dataDir, DATABASE_FILE_NAME);
  if (!fs.existsSync(file)) throw new Error(`no library at ${file} (is DATA_DIR right?)`);
  const output = path.resolve(target);
  const partial = `${output}.partial`;
  const db = openDatabase(file);
  try {
    const download = await exportLibrary(exportSlots(), db.$client, config.dataDir, imagesFolderOf(config.dataDir), ALL_PAGES);
    await pipeline(download.stream, fs.createWriteStream(partial, { flags: 'wx' }));
    const summary = await download.finished;
    fs.renameSync(partial, output);
    for (const missing of summary.missingImages) process.stderr.write(`warning: image ${missing} was missing; its reference is left out\n`);
    process.stdout.write(`${JSON.stringify({ message: 'Library exported', path: output, sizeBytes: fs.statSync(output).size, counts: summary.counts })}\n`);
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  } finally {
    db.$client.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`export: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
