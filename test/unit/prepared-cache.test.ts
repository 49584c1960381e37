import path from 'node:path';
import t from 'tap';
import { closeDatabase, openDatabase } from '../../src/db/open.js';
import type Database from 'better-sqlite3';
import { defineStatementShapes, estimatedStatementBytes, PREPARED_BYTES_MAX, PREPARED_MAX } from '../../src/db/statements.js';
import { tempDataDir } from '../helpers/app.js';

const prepared = defineStatementShapes();

t.test('prepared() keeps at most PREPARED_MAX statements per connection, dropping the least recently used', async (t) => {
  const db = openDatabase(path.join(tempDataDir(t), 'library.db'));
  t.teardown(() => closeDatabase(db));
  const builds = new Map<string, number>();
  const statement = (key: string) =>
    prepared(db, key, () => {
      builds.set(key, (builds.get(key) ?? 0) + 1);
      return db.$client.prepare('SELECT 1');
    });

  statement('kept');
  for (let i = 0; i < PREPARED_MAX + 50; i += 1) {
    statement(`shape:${i}`);
    statement('kept'); // used all along, never the least recently used
  }
  t.equal(builds.get('kept'), 1, 'a statement in use is built once');
  statement(`shape:${PREPARED_MAX + 49}`);
  t.equal(builds.get(`shape:${PREPARED_MAX + 49}`), 1, 'a recent one is still cached');
  statement('shape:0');
  t.equal(builds.get('shape:0'), 2, 'the oldest one was dropped, and is built again');
});

t.test('a shape family keeps at most PREPARED_BYTES_MAX estimated bytes, so large statements are kept fewer', async (t) => {
  const db = openDatabase(path.join(tempDataDir(t), 'library.db'));
  t.teardown(() => closeDatabase(db));
  const family = defineStatementShapes<Database.Statement>();
  // A 100-tag search spells out ~9,000 characters: the same text length here.
  const large = (i: number) => `SELECT ${i} AS shape WHERE 1 IN (${Array.from({ length: 4500 }, () => '1').join(',')})`;
  const largeBytes = estimatedStatementBytes(db.$client.prepare(large(0)), '');
  t.ok(largeBytes > 50_000, `a large statement is estimated at ${largeBytes} bytes`);
  for (let i = 0; i < PREPARED_MAX; i += 1) family(db, `large:${i}`, () => db.$client.prepare(large(i)));
  t.ok(family.bytes(db) <= PREPARED_BYTES_MAX, `${family.bytes(db)} bytes kept, the bound is ${PREPARED_BYTES_MAX}`);
  t.equal(family.count(db), Math.floor(PREPARED_BYTES_MAX / largeBytes), 'as many large statements as fit in the bound');

  const small = defineStatementShapes<Database.Statement>();
  for (let i = 0; i < PREPARED_MAX; i += 1) small(db, `small:${i}`, () => db.$client.prepare(`SELECT ${i}`));
  t.equal(small.count(db), PREPARED_MAX, 'small statements are bounded by the count first');
});
