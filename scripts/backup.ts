/**
 * `npm run backup`: writes a consistent snapshot of DATA_DIR (read from the environment, like
 * the server) into DATA_DIR/backups/<UTC timestamp>/, whether or not the service is running.
 */
import path from 'node:path';
import fs from 'node:fs';
import { createBackup } from '../src/backup/snapshot.js';
import { loadConfig } from '../src/config.js';
import { DATABASE_FILE_NAME, openDatabase } from '../src/db/open.js';

/** Everything in one step: from another process a stepped backup would restart on each write. */
const ALL_PAGES = 0x7fffffff;

async function main(): Promise<void> {
  const config = loadConfig();
  const file = path.join(config.dataDir, DATABASE_FILE_NAME);
  if (!fs.existsSync(file)) throw new Error(`no library at ${file} (is DATA_DIR right?)`);
  const db = openDatabase(file);
  try {
    const result = await createBackup(db.$client, config.dataDir, { pagesPerStep: ALL_PAGES });
    for (const missing of result.missingImages) process.stderr.write(`warning: image ${missing} was missing; its reference is cleared in the copy\n`);
    process.stdout.write(`${JSON.stringify({ message: 'Backup created', path: result.path, sizeBytes: result.sizeBytes })}\n`);
  } finally {
    db.$client.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`backup: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
