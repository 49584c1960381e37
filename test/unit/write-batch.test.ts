import path from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { sql } from 'drizzle-orm';
import { batchedWrite, WRITES_PER_BATCH } from '../../src/db/write-batch.js';
import { buildTestApp } from '../helpers/app.js';
import { DATABASE_FILE_NAME } from '../../src/db/open.js';

// Group commit (src/db/write-batch.ts) on a real migrated library: writes handed over in one turn
// commit together, each all or nothing on its own.

async function world(t: Test) {
  const ctx = await buildTestApp(t);
  const db = ctx.app.db;
  db.$client.exec('CREATE TABLE batch_rows (name TEXT PRIMARY KEY)');
  // Another connection sees only what committed.
  const reader = new Database(path.join(ctx.dataDir, DATABASE_FILE_NAME), { readonly: true });
  t.teardown(() => reader.close());
  const committed = () => (reader.prepare('SELECT name FROM batch_rows ORDER BY name').pluck().all() as string[]);
  const insert = (name: string) => batchedWrite(db, (tx) => {
    tx.run(sql`INSERT INTO batch_rows (name) VALUES (${name})`);
    return name;
  });
  return { db, committed, insert };
}

t.test('writes handed over in one turn run in order in one transaction, and resolve after it commits', async (t) => {
  const { db, committed, insert } = await world(t);
  const seenUncommitted: string[][] = [];
  const first = insert('a');
  const second = batchedWrite(db, (tx) => {
    // The first write is visible here (same transaction) but not yet committed for anyone else.
    seenUncommitted.push(committed());
    const here = tx.all<{ name: string }>(sql`SELECT name FROM batch_rows`).map((row) => row.name);
    tx.run(sql`INSERT INTO batch_rows (name) VALUES ('b')`);
    return here;
  });
  t.same(committed(), [], 'nothing ran before the turn ended');
  t.same(await Promise.all([first, second]), ['a', ['a']], 'each write resolves with its own result; the second saw the first');
  t.same(seenUncommitted, [[]], 'while the second ran, the first was not committed: they share one transaction');
  t.same(committed(), ['a', 'b'], 'both committed');
});

t.test('a write that throws is rolled back alone and rejects with its own error', async (t) => {
  const { db, committed, insert } = await world(t);
  const failing = batchedWrite(db, (tx) => {
    tx.run(sql`INSERT INTO batch_rows (name) VALUES ('half')`);
    throw new Error('this write fails after changing a row');
  });
  const results = await Promise.allSettled([insert('a'), failing, insert('c'), insert('a')]);
  t.equal(results[0]!.status, 'fulfilled');
  t.match(results[1], { status: 'rejected', reason: { message: 'this write fails after changing a row' } });
  t.equal(results[2]!.status, 'fulfilled');
  t.match(results[3], { status: 'rejected', reason: { cause: { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' } } }, 'a constraint failure is that write\'s own');
  t.same(committed(), ['a', 'c'], 'the failed writes left nothing, the others committed');
});

t.test('a batch whose commit fails rejects every write and leaves nothing', async (t) => {
  const { db, committed, insert } = await world(t);
  // A deferred foreign key is checked at COMMIT: a dangling row fails the whole transaction there.
  db.$client.exec('CREATE TABLE batch_parents (id TEXT PRIMARY KEY); CREATE TABLE batch_children (parent TEXT REFERENCES batch_parents(id) DEFERRABLE INITIALLY DEFERRED)');
  const dangling = batchedWrite(db, (tx) => tx.run(sql`INSERT INTO batch_children (parent) VALUES ('nobody')`));
  const results = await Promise.allSettled([insert('a'), dangling, insert('b')]);
  t.same(results.map((result) => result.status), ['rejected', 'rejected', 'rejected']);
  t.match(results[0], { status: 'rejected', reason: { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' } });
  t.same(committed(), [], 'none of the batch committed');
  t.equal(db.$client.inTransaction, false, 'the connection is out of the transaction');
  await insert('after');
  t.same(committed(), ['after'], 'the next batch writes normally');
});

t.test(`a batch holds at most ${WRITES_PER_BATCH} writes; the rest commit in the next turn`, async (t) => {
  const { db, committed, insert } = await world(t);
  const names = Array.from({ length: WRITES_PER_BATCH + 3 }, (_, index) => `n${String(index).padStart(3, '0')}`);
  let committedWhenLastRan: string[] = [];
  const writes = names.map((name, index) =>
    index === names.length - 1
      ? batchedWrite(db, (tx) => {
          committedWhenLastRan = committed();
          tx.run(sql`INSERT INTO batch_rows (name) VALUES (${name})`);
        })
      : insert(name),
  );
  await Promise.all(writes);
  t.same(committedWhenLastRan, names.slice(0, WRITES_PER_BATCH), 'the first batch had committed before the overflow ran');
  t.same(committed(), names);
});
