import path from 'node:path';
import t from 'tap';
import { closeDatabase, openDatabase } from '../../src/db/open.js';
import { defineStatementShapes, PREPARED_MAX } from '../../src/db/statements.js';
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
