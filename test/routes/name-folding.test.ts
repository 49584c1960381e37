import path from 'node:path';
import t from 'tap';
import { migrateSafely } from '../../src/plugins/db-migrate.js';
import { closeDatabase, openDatabase } from '../../src/db/open.js';
import { buildTestApp, tempDataDir } from '../helpers/app.js';
import { migrationsCopy } from '../helpers/migrations.js';

t.test('author and series names are unique by a full case fold, not a lowercasing', async (t) => {
  const ctx = await buildTestApp(t);
  for (const route of ['/api/authors', '/api/series']) {
    for (const [first, second] of [['ΣΟΦΟΣ', 'σοφοσ'], ['Straße', 'STRASSE'], ['ﬁne', 'FINE']]) {
      t.equal((await ctx.post(route, { name: first })).statusCode, 201, `${route} ${first}`);
      const clash = await ctx.post(route, { name: second });
      t.equal(clash.statusCode, 409, `${route}: ${second} is the same name as ${first}`);
      t.ok(clash.json().details.name, 'details name the field');
    }
    t.equal((await ctx.post(route, { name: 'İstanbul' })).statusCode, 201);
    t.equal((await ctx.post(route, { name: 'Istanbul' })).statusCode, 201, 'dotted İ keeps its dot: another name');
  }
  const story = await ctx.post('/api/stories', { title: 'Linked', authorName: 'σοφοσ', seriesName: 'strasse' });
  t.equal(story.statusCode, 201);
  t.equal(story.json().authorName, 'ΣΟΦΟΣ', 'authorName finds the existing author by its fold');
  t.equal(story.json().seriesName, 'Straße');
  t.equal((await ctx.get('/api/authors?size=100')).json().totalElements, 5, 'no author was created');
});

t.test('migrating an old library re-keys names; two that now fold alike are both kept', async (t) => {
  const dataDir = tempDataDir(t);
  const db = openDatabase(path.join(dataDir, 'library.db'));
  t.teardown(() => closeDatabase(db));
  const log = { info() {}, warn() {}, error() {}, debug() {} } as never;
  await migrateSafely(db, dataDir, log, migrationsCopy(dataDir, 7));
  const now = '2026-11-21T10:00:00.000Z';
  const later = '2026-11-22T10:00:00.000Z';
  const author = db.$client.prepare('INSERT INTO authors (id, name, name_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
  author.run('a1', 'Straße', 'straße', now, now);
  author.run('a2', 'ΣΟΦΟΣ', 'σοφος', now, now);
  author.run('a3', 'σοφοσ', 'σοφοσ', later, later);
  const series = db.$client.prepare('INSERT INTO series (id, name, name_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
  series.run('s1', 'Straße', 'straße', now, now);
  series.run('s2', '\ufb06rasse', '\ufb06rasse', later, later);
  db.$client.prepare('DELETE FROM search_dirty').run();

  await migrateSafely(db, dataDir, log);
  const keys = (table: string) => Object.fromEntries(db.$client.prepare(`SELECT id, name_key FROM ${table}`).all().map((row) => [(row as { id: string }).id, (row as { name_key: string }).name_key]));
  t.same(keys('authors'), { a1: 'strasse', a2: 'σοφος', a3: 'σοφοσ' }, 'the row already holding the fold keeps it; the other keeps its old key');
  t.same(keys('series'), { s1: 'strasse', s2: '\ufb06rasse' }, 'else the oldest takes it');
  const dirty = db.$client.prepare(`SELECT uid FROM search_dirty WHERE kind = 'author'`).all();
  t.same(dirty, [{ uid: 'a1' }], 'the re-keyed author is indexed again');
});
