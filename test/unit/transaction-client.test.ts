/**
 * The connection under a Drizzle transaction (src/db/statements.ts, `sqliteClient`): found
 * through the transaction wrappers, which record it, instead of a private field of Drizzle's
 * session. Statements prepared on it run inside the transaction (they see its uncommitted rows);
 * a transaction opened around the wrappers is refused rather than guessed at.
 */
import path from 'node:path';
import t from 'tap';
import { applyMigrations, closeDatabase, openDatabase } from '../../src/db/open.js';
import { sqliteClient } from '../../src/db/statements.js';
import { bookkeepingTransaction } from '../../src/db/bookkeeping.js';
import { writeTransaction } from '../../src/db/transaction.js';
import { tempDataDir } from '../helpers/app.js';

t.test('each wrapper hands out the connection it opened the transaction on', async (t) => {
  const db = openDatabase(path.join(tempDataDir(t), 'library.db'));
  t.teardown(() => closeDatabase(db));
  applyMigrations(db);
  t.equal(sqliteClient(db), db.$client, 'the database: its public $client');

  const seen = writeTransaction(db, (tx) => {
    const client = sqliteClient(tx);
    client.prepare(`INSERT INTO tags (id, name, name_key, created_at, updated_at) VALUES ('t1', 'Inside', 'inside', '2026-01-01', '2026-01-01')`).run();
    return { client, count: client.prepare('SELECT count(*) FROM tags').pluck().get() };
  });
  t.equal(seen.client, db.$client);
  t.equal(seen.count, 1, 'a statement on it sees the transaction’s own write');

  const rolledBack = () =>
    bookkeepingTransaction(db, (tx) => {
      sqliteClient(tx).prepare("DELETE FROM tags WHERE id = 't1'").run();
      throw new Error('roll back');
    });
  t.throws(rolledBack, /roll back/);
  t.equal(db.$client.prepare('SELECT count(*) FROM tags').pluck().get(), 1, 'a write through it is part of the transaction, rolled back with it');
});

t.test('a transaction not opened by the wrappers is refused loudly', async (t) => {
  const db = openDatabase(path.join(tempDataDir(t), 'library.db'));
  t.teardown(() => closeDatabase(db));
  t.throws(() => db.transaction((tx) => sqliteClient(tx)), /not opened by openTransaction/);
});
