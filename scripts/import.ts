/**
 * `npm run import -- <folder>`: imports every story file under a folder on this machine into the
 * library in DATA_DIR, through the same import job as an upload (docs/decisions.md, "File
 * import"), run here in this process, with a progress line. It may run while the service runs
 * (WAL: each write waits for the other's). Run again on the same folder after an interruption, it
 * resumes that folder's unfinished job instead of starting over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { closeDatabase, DATABASE_FILE_NAME, openDatabase, type Db } from '../src/db/open.js';
import { folderImportHandler, IMPORT_FOLDER_KIND, type ImportFile, type ImportParams } from '../src/import/job.js';
import { formatOf } from '../src/import/formats.js';
import { ImageStore, imagesFolderOf } from '../src/images/store.js';
import { findJob, unfinishedJobsOfKind } from '../src/jobs/repository.js';
import { JobRunner } from '../src/jobs/runner.js';
import { pendingMigrations } from '../src/plugins/db-migrate.js';
import { onSearchChanges } from '../src/search/embedded/sync.js';
import { enqueueChanges } from '../src/search/typesense/outbox.js';

/** Files one folder import lists at most (its list is kept in the job's params). */
const FOLDER_FILES_MAX = 100_000;

/** Every importable file under `folder`, sorted, as paths relative to it; links are not followed. */
function listFolder(folder: string): ImportFile[] {
  const files: ImportFile[] = [];
  for (const entry of fs.readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || formatOf(entry.name) === undefined || entry.name.startsWith('.')) continue;
    const relative = path.relative(folder, path.join(entry.parentPath, entry.name));
    files.push({ name: relative, path: relative });
    if (files.length > FOLDER_FILES_MAX) throw new Error(`more than ${FOLDER_FILES_MAX} files: import the folder in parts`);
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The unfinished job for this folder (to resume), else a new one. */
function jobFor(db: Db, runner: JobRunner, folder: string): { id: string; resumed: boolean } {
  const unfinished = unfinishedJobsOfKind(db, IMPORT_FOLDER_KIND).find((row) => (JSON.parse(row.params) as ImportParams).folder === folder);
  if (unfinished !== undefined) return { id: unfinished.id, resumed: true };
  const files = listFolder(folder);
  if (files.length === 0) throw new Error(`no .html, .htm, .txt, .md, .epub or .zip files under ${folder}`);
  const params: ImportParams = { folder, files };
  return { id: runner.enqueue(IMPORT_FOLDER_KIND, params, { total: files.length }), resumed: false };
}

function progressLine(db: Db, id: string): string {
  const job = findJob(db, id);
  if (job === undefined) return '';
  return `\r${job.status}: ${job.done + job.failed} of ${job.total} (${job.done} imported, ${job.failed} failed)   `;
}

async function main(): Promise<void> {
  const argument = process.argv[2];
  if (argument === undefined || argument.startsWith('-')) throw new Error('usage: npm run import -- <folder>');
  const folder = path.resolve(argument);
  if (!fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`${folder} is not a folder`);
  const config = loadConfig();
  const file = path.join(config.dataDir, DATABASE_FILE_NAME);
  if (!fs.existsSync(file)) throw new Error(`no library at ${file} (is DATA_DIR right? start the service once to create it)`);
  const db = openDatabase(file);
  try {
    if (pendingMigrations(db).length > 0) throw new Error('the library needs an upgrade: start the service once first');
    // With Typesense, the service delivers what this process queues in its outbox.
    if (config.typesense !== undefined) onSearchChanges(db, (tx, changes) => enqueueChanges(tx, changes));
    const log = { info: () => {}, warn: () => {}, error: (details: object, message: string) => process.stderr.write(`\n${message}: ${JSON.stringify(details)}\n`) };
    const runner = new JobRunner(db, log);
    // The pictures inside the files go to the library's image store, as the service's imports do.
    const images = await ImageStore.open(imagesFolderOf(config.dataDir), log);
    runner.register(IMPORT_FOLDER_KIND, folderImportHandler({ db, images }));
    const { id, resumed } = jobFor(db, runner, folder);
    process.stdout.write(`${resumed ? 'Resuming' : 'Started'} job ${id} for ${folder}\n`);
    const stop = () => void runner.stop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const timer = setInterval(() => process.stdout.write(progressLine(db, id)), 250);
    runner.start();
    await runner.idle();
    clearInterval(timer);
    process.stdout.write(`${progressLine(db, id)}\n`);
    const job = findJob(db, id);
    for (const entry of JSON.parse(job?.errors ?? '[]') as Array<{ file: string; error: string }>) {
      process.stdout.write(`  ${entry.file || '(job)'}: ${entry.error}\n`);
    }
    if (job?.status === 'queued') process.stdout.write('Stopped; run the same command again to carry on.\n');
    if (job?.status !== 'done') process.exitCode = 1;
  } finally {
    closeDatabase(db);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`import: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
