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

t.test('the worker copies commits into the database file and keeps the WAL bounded', async (t) => {
  const file = path.join(tempDataDir(t), 'library.db');
  const db = openDatabase(file);
  db.$client.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB)');
  const checkpointer = startCheckpointer(db, file, silent, { intervalMs: 20, restartBytes: 512 * 1024 });
  t.teardown(async () => {
    await checkpointer.stop();
    closeDatabase(db);
  });
  t.equal(autocheckpoint(db), 0, 'the main connection no longer checkpoints');

  const before = fs.statSync(file).size;
  const insert = db.$client.prepare('INSERT INTO blobs (data) VALUES (?)');
  let largestWal = 0;
  for (let i = 0; i < 200; i += 1) {
    db.$client.transaction(() => insert.run(Buffer.alloc(16 * 1024, i)))();
    largestWal = Math.max(largestWal, fs.statSync(`${file}-wal`).size);
    await sleep(2);
  }
  // 200 x 16 KiB = 3.2 MiB written; give the worker a few intervals to catch up.
  for (let i = 0; i < 100 && fs.statSync(file).size < before + 3 * 1024 * 1024; i += 1) await sleep(20);
  t.ok(fs.statSync(file).size >= before + 3 * 1024 * 1024, 'the rows reached the database file without the main connection checkpointing');
  t.ok(largestWal < 2 * 1024 * 1024, `the WAL started over instead of growing (largest ${largestWal} bytes)`);
  t.equal(db.$client.prepare('SELECT count(*) FROM blobs').pluck().get(), 200);

  await checkpointer.stop();
  t.equal(autocheckpoint(db), 1000, 'stopped: the main connection checkpoints itself again');
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
