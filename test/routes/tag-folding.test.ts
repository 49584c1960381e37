/**
 * Tag names are unique, and found, by the full case fold of src/lib/names.ts (docs/decisions.md,
 * "Name keys (case folding)"): the display name stays the stored lowercased name (docs/decisions.md, "Shapes and values"),
 * every lookup goes through the fold key.
 */
import path from 'node:path';
import t from 'tap';
import { migrateSafely } from '../../src/plugins/db-migrate.js';
import { closeDatabase, openDatabase } from '../../src/db/open.js';
import { buildTestApp, tempDataDir, type TestContext } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import { startFakeTypesense } from '../helpers/fake-typesense/index.js';
import { buildTypesenseApp, drained } from '../helpers/fake-typesense/app.js';
import { migrationsCopy } from '../helpers/migrations.js';

interface TagJson {
  id: string;
  name: string;
  storyCount: number;
}

const searchIds = async (ctx: TestContext, tags: string): Promise<string[]> => {
  const res = await ctx.get(`/api/stories/search?query=*&tags=${encodeURIComponent(tags)}`);
  if (res.statusCode !== 200) throw new Error(`search failed: ${res.statusCode} ${res.body}`);
  return (res.json().results as Array<{ id: string }>).map((hit) => hit.id).sort();
};

t.test('tag names are unique by the full case fold; the stored name stays lowercased', async (t) => {
  const ctx = await buildTestApp(t);
  for (const [first, second, stored] of [['ΣΟΦΟΣ', 'σοφοσ', 'σοφος'], ['Straße', 'STRASSE', 'straße'], ['ﬁne', 'FINE', 'ﬁne']] as const) {
    const created = await ctx.post('/api/tags', { name: first });
    t.equal(created.statusCode, 201, first);
    t.equal(created.json().name, stored, 'the display name is the lowercased name');
    const clash = await ctx.post('/api/tags', { name: second });
    t.equal(clash.statusCode, 409, `${second} is the same tag as ${first}`);
    t.ok(clash.json().details.name, 'details name the field');
  }
  t.equal((await ctx.post('/api/tags', { name: 'İstanbul' })).statusCode, 201);
  t.equal((await ctx.post('/api/tags', { name: 'istanbul' })).statusCode, 201, 'dotted İ keeps its dot: another tag');
  t.equal((await ctx.post('/api/tags', { name: 'ISTANBUL' })).statusCode, 409, 'plain I is i');

  const other = (await ctx.post('/api/tags', { name: 'other' })).json() as TagJson;
  const renameClash = await ctx.put(`/api/tags/${other.id}`, { name: 'STRASSE' });
  t.equal(renameClash.statusCode, 409, 'a rename to a name that folds like another tag is a conflict');
  const sofos = ((await ctx.get('/api/tags/search?query=ΣΟΦ')).json().content as TagJson[])[0];
  t.equal(sofos?.name, 'σοφος', 'the name search folds the query');
  const respelt = await ctx.put(`/api/tags/${sofos?.id}`, { name: 'σοφοσ' });
  t.equal(respelt.statusCode, 200, 'a tag can be respelt within its own fold');
  t.equal(respelt.json().name, 'σοφοσ');
  const auto = (await ctx.get('/api/tags/autocomplete?query=STRASS')).json() as TagJson[];
  t.same(auto.map((tag) => tag.name), ['straße'], 'autocomplete folds the prefix');
});

t.test('story tagNames, the tag list and the embedded search go through the fold', async (t) => {
  const ctx = await buildTestApp(t);
  const greek = await createStory(ctx, { tagNames: ['ΣΟΦΟΣ', 'σοφοσ'] });
  const tags = greek.tags as TagJson[];
  t.equal(tags.length, 1, 'two spellings of one name are one tag');
  t.equal(tags[0]?.name, 'σοφος', 'the first spelling is stored');
  const street = await createStory(ctx, { tagNames: ['Straße'] });
  const again = await createStory(ctx, { tagNames: ['STRASSE', 'σοφοσ'] });
  t.same((again.tags as TagJson[]).map((tag) => tag.name).sort(), ['straße', 'σοφος'], 'existing tags are found by their fold');
  t.equal((await ctx.get('/api/tags?size=100')).json().totalElements, 2, 'no tag was created twice');
  t.equal((await ctx.get(`/api/tags/${tags[0]?.id}`)).json().storyCount, 2, 'the maintained count is right');

  const updated = await ctx.put(`/api/stories/${street.id}`, { tagNames: ['strasse', 'STRAßE'] });
  t.equal(updated.statusCode, 200);
  t.same((updated.json().tags as TagJson[]).map((tag) => tag.name), ['straße']);

  for (const spelling of ['σοφοσ', 'ΣΟΦΟΣ', 'σοφος']) {
    const list = await ctx.get(`/api/stories/tags/${encodeURIComponent(spelling)}`);
    t.equal(list.statusCode, 200, `the tag list finds ${spelling}`);
    t.same((list.json().content as Array<{ id: string }>).map((story) => story.id).sort(), [greek.id, again.id].sort());
    t.same(await searchIds(ctx, spelling), [greek.id, again.id].sort(), `the search tag filter finds ${spelling}`);
  }
  t.same(await searchIds(ctx, 'STRASSE'), [street.id, again.id].sort());
  t.same(await searchIds(ctx, 'strasse,σοφοσ'), [again.id], 'every listed tag must match');
  t.equal((await ctx.get(`/api/stories/tags/${encodeURIComponent('İstanbul')}`)).statusCode, 404);
});

t.test('the Typesense engine filters tags by the fold too', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake);
  const greek = await createStory(ctx, { tagNames: ['ΣΟΦΟΣ'] });
  const street = await createStory(ctx, { tagNames: ['Straße'] });
  await drained(ctx);
  const searches = () => fake.requests.filter((r) => r.path.endsWith('/documents/search')).length;
  for (const [spelling, expected] of [['σοφοσ', [greek.id]], ['STRASSE', [street.id]], ['strasse', [street.id]], ['nosuchtag', []]] as const) {
    const before = searches();
    t.same(await searchIds(ctx, spelling), expected, `Typesense finds ${spelling}`);
    t.equal(searches(), before + 1, 'the search went to Typesense');
  }
});

t.test('migrating an old library merges tags that now fold alike', async (t) => {
  const dataDir = tempDataDir(t);
  const db = openDatabase(path.join(dataDir, 'library.db'));
  t.teardown(() => closeDatabase(db));
  const log = { info() {}, warn() {}, error() {}, debug() {} } as never;
  await migrateSafely(db, dataDir, log, migrationsCopy(dataDir, 8));
  const sql = db.$client;
  const now = '2026-11-21T10:00:00.000Z';
  const later = '2026-11-22T10:00:00.000Z';
  const tag = sql.prepare('INSERT INTO tags (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)');
  tag.run('t1', 'σοφοσ', now, now);
  tag.run('t2', 'σοφος', later, later);
  tag.run('t3', 'straße', now, now);
  tag.run('t4', 'strasse', later, later);
  tag.run('t5', 'alone', now, now);
  tag.run('t6', '\ufb01ne', now, now);
  tag.run('t7', 'fine', later, later);
  const story = sql.prepare('INSERT INTO stories (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)');
  for (const id of ['s1', 's2', 's3', 's4']) story.run(id, id, now, now);
  const link = sql.prepare('INSERT INTO story_tags (story_id, tag_id) VALUES (?, ?)');
  for (const [storyId, tagId] of [['s1', 't1'], ['s4', 't1'], ['s1', 't2'], ['s2', 't2'], ['s3', 't2'], ['s3', 't4'], ['s1', 't5']]) link.run(storyId, tagId);
  sql.prepare('DELETE FROM search_dirty').run();

  await migrateSafely(db, dataDir, log);
  const rows = sql.prepare('SELECT id, name, name_key AS key, story_count AS count FROM tags ORDER BY id').all();
  t.same(
    rows,
    [
      { id: 't2', name: 'σοφος', key: 'σοφοσ', count: 4 },
      { id: 't4', name: 'strasse', key: 'strasse', count: 1 },
      { id: 't5', name: 'alone', key: 'alone', count: 1 },
      { id: 't6', name: '\ufb01ne', key: 'fine', count: 0 },
    ],
    'the most used tag of each fold (else the oldest) keeps its id and name; counts are exact',
  );
  const links = sql.prepare('SELECT story_id AS story, tag_id AS tag FROM story_tags ORDER BY story_id, tag_id').all();
  t.same(
    links,
    [
      { story: 's1', tag: 't2' },
      { story: 's1', tag: 't5' },
      { story: 's2', tag: 't2' },
      { story: 's3', tag: 't2' },
      { story: 's3', tag: 't4' },
      { story: 's4', tag: 't2' },
    ],
    'the links moved to the kept tag, without duplicates',
  );
  const dirty = sql.prepare(`SELECT kind, uid FROM search_dirty ORDER BY kind, uid`).all();
  t.same(
    dirty,
    [
      { kind: 'story', uid: 's1' },
      { kind: 'story', uid: 's4' },
      { kind: 'tag', uid: 't1' },
      { kind: 'tag', uid: 't2' },
      { kind: 'tag', uid: 't3' },
      { kind: 'tag', uid: 't7' },
    ],
    'the stories whose tags changed are indexed again (and queued for Typesense), the suggestions follow',
  );
  const insertKeyed = sql.prepare('INSERT INTO tags (id, name, name_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
  t.throws(() => insertKeyed.run('t8', 'STRASSE', 'strasse', now, now), 'the fold key is unique');
});
