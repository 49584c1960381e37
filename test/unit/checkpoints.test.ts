/**
 * WAL checkpoints from a worker thread (src/db/checkpoints.ts): committed pages reach the
 * database file while the main connection never checkpoints, the WAL starts over once it passes
 * its limit, and the main connection checkpoints itself again when the worker stops or dies.
 */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { startCheckpointer } from '../../src/db/checkpoints.js';
import { closeDatabase, openDatabase } from '../../src/db/open.js';
import { tempDataDir } from '../helpers/app.js';

const silent = { warn: () => undefined };
const autocheckpoint = (db: ReturnType<typeof openDatabase>) => Number(db.$client.pragma('wal_autocheckpoint', { simple: true }));

async function writeBlobs(db: ReturnType<typeof openDatabase>, file: string, count: number): Promise<number> {
  const insert = db.$client.prepare('INSERT INTO blobs (data) VALUES (?)');
  let largestWal = 0;
  for (let i = 0; i < count; i += 1) {
    // A read, then a write, in one deferred transaction: what a request's write does.
    db.$client.transaction(() => {
      db.$client.prepare('SELECT count(*) FROM blobs').get();
      insert.run(Buffer.alloc(16 * 1024, i));
    })();
    largestWal = Math.max(largestWal, fs.statSync(`${file}-wal`).size);
    await sleep(2);
  }
  return largestWal;
}

t.test('the worker copies commits into the database file while the main connection does not checkpoint', async (t) => {
  const file = path.join(tempDataDir(t), 'library.db');
  const db = openDatabase(file);
  db.$client.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB)');
  const checkpointer = startCheckpointer(db, file, silent, { intervalMs: 20, restartBytes: 64 * 1024 * 1024 });
  t.teardown(async () => {
    await checkpointer.stop();
    closeDatabase(db);
  });
  t.equal(autocheckpoint(db), 16384, 'the main connection checkpoints only past 64 MiB of WAL');

  const before = fs.statSync(file).size;
  await writeBlobs(db, file, 200);
  // 200 x 16 KiB = 3.2 MiB written, far below the main connection's threshold.
  for (let i = 0; i < 100 && fs.statSync(file).size < before + 3 * 1024 * 1024; i += 1) await sleep(20);
  t.ok(fs.statSync(file).size >= before + 3 * 1024 * 1024, 'the rows reached the database file through the worker');
  t.equal(db.$client.prepare('SELECT count(*) FROM blobs').pluck().get(), 200);

  await checkpointer.stop();
  t.equal(autocheckpoint(db), 1000, 'stopped: the main connection checkpoints every 1,000 pages again');
});

t.test('the WAL starts over past its threshold, and read-then-write transactions never fail on a lock', async (t) => {
  const file = path.join(tempDataDir(t), 'library.db');
  const db = openDatabase(file);
  db.$client.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB)');
  const checkpointer = startCheckpointer(db, file, silent, { intervalMs: 1, restartBytes: 512 * 1024 });
  t.teardown(async () => {
    await checkpointer.stop();
    closeDatabase(db);
  });
  const largestWal = await writeBlobs(db, file, 400);
  t.ok(largestWal < 2 * 1024 * 1024, `the WAL started over instead of growing (largest ${largestWal} bytes for 6.4 MiB written)`);
  t.equal(db.$client.prepare('SELECT count(*) FROM blobs').pluck().get(), 400, 'every transaction committed');
});

t.test('a worker that cannot run hands checkpoints back to the main connection', async (t) => {
  const dir = tempDataDir(t);
  const db = openDatabase(path.join(dir, 'library.db'));
  t.teardown(() => closeDatabase(db));
  const warnings: string[] = [];
  const checkpointer = startCheckpointer(db, path.join(dir, 'missing', 'library.db'), { warn: (_details, message) => warnings.push(message) });
  for (let i = 0; i < 250 && autocheckpoint(db) !== 1000; i += 1) await sleep(20);
  t.equal(autocheckpoint(db), 1000, 'the main connection checkpoints again');
  t.ok(warnings.length > 0, 'and the failure is logged');
  await checkpointer.stop();
});
