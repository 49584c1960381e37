/**
 * A tag on more than a thousand stories pages by walking the order's own index
 * (src/stories/page-queries.ts, WIDE_TAG_STORIES): every page, in every order, must list exactly
 * what the plain plan lists, and the total must be the tag's count. In the default order
 * (created_at) any tag's pages walk `story_tags_tag_created_idx`, whose created_at the triggers of
 * drizzle/0013 keep equal to the story's.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import t from 'tap';
import { closeDatabase, openDatabase } from '../../src/db/open.js';
import { migrateSafely } from '../../src/plugins/db-migrate.js';
import { buildTestApp, tempDataDir } from '../helpers/app.js';
import { createStory, createTag } from '../helpers/factories.js';
import { migrationsCopy } from '../helpers/migrations.js';

const WIDE = 1_050;

t.test('every page of a wide tag, in four orders, matches the order computed from the rows', async (t) => {
  const ctx = await buildTestApp(t);
  const tag = await createTag(ctx, 'everywhere');
  await createStory(ctx, { title: 'Not tagged' });
  const client = ctx.app.db.$client;
  const insertStory = client.prepare(
    'INSERT INTO stories (id, title, word_count, rating, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const link = client.prepare('INSERT INTO story_tags (story_id, tag_id) VALUES (?, ?)');
  const rows: { id: string; title: string; wordCount: number; rating: number | null; createdAt: string }[] = [];
  client.transaction(() => {
    for (let i = 0; i < WIDE; i++) {
      // Repeated keys on purpose: ties must fall back to the id as in the plain plan.
      const row = {
        id: randomUUID(),
        title: `Story ${(i * 7919) % 500}`,
        wordCount: (i * 31) % 97,
        rating: i % 4 === 0 ? null : (i % 5) + 1,
        createdAt: new Date(Date.UTC(2026, 0, 1) + ((i * 104729) % 800) * 60_000).toISOString(),
      };
      insertStory.run(row.id, row.title, row.wordCount, row.rating, row.createdAt, row.createdAt);
      link.run(row.id, tag.id);
      rows.push(row);
    }
  })();

  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const expected: Record<string, string[]> = {
    createdAt: [...rows].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : -byId(a, b))).map((r) => r.id),
    wordCount: [...rows].sort((a, b) => a.wordCount - b.wordCount || byId(a, b)).map((r) => r.id),
    title: [...rows].sort((a, b) => (a.title.toLowerCase() < b.title.toLowerCase() ? -1 : a.title.toLowerCase() > b.title.toLowerCase() ? 1 : byId(a, b))).map((r) => r.id),
    rating: [
      ...rows.filter((r) => r.rating !== null).sort((a, b) => b.rating! - a.rating! || -byId(a, b)),
      ...rows.filter((r) => r.rating === null).sort((a, b) => -byId(a, b)),
    ].map((r) => r.id),
  };
  const directions: Record<string, string> = { createdAt: 'desc', wordCount: 'asc', title: 'asc', rating: 'desc' };
  for (const [sortBy, ids] of Object.entries(expected)) {
    const seen: string[] = [];
    for (let page = 0; page * 100 < WIDE; page++) {
      const res = await ctx.get(`/api/stories/tags/everywhere?sortBy=${sortBy}&sortDir=${directions[sortBy]}&size=100&page=${page}`);
      t.equal(res.statusCode, 200);
      const body = res.json() as { content: { id: string }[]; totalElements: number };
      if (page === 0) t.equal(body.totalElements, WIDE, `${sortBy}: the total is the tag's count`);
      seen.push(...body.content.map((story) => story.id));
    }
    t.same(seen, ids, `${sortBy}: every page in order`);
  }
});

t.test("a tag's pages newest first and oldest first follow each story's created_at, kept on its links", async (t) => {
  const ctx = await buildTestApp(t);
  const tag = await createTag(ctx, 'kept');
  const client = ctx.app.db.$client;
  const at = (minute: number) => new Date(Date.UTC(2026, 0, 1) + minute * 60_000).toISOString();
  const insertStory = client.prepare('INSERT INTO stories (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)');
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) {
    const id = randomUUID();
    // Two stories share each minute: ties fall back to the id, as in the stories' own index.
    insertStory.run(id, `Story ${i}`, at(Math.floor(i / 2)), at(0));
    ids.push(id);
  }
  const linked = [...ids].reverse();
  for (const id of linked) t.equal((await ctx.post(`/api/stories/${id}/tags/${tag.id}`)).statusCode, 200);
  const stored = client.prepare('SELECT story_id, story_created_at FROM story_tags WHERE tag_id = ?').all(tag.id) as { story_id: string; story_created_at: string }[];
  t.equal(stored.length, 7, 'every story linked through the API');
  t.ok(stored.every((link) => link.story_created_at === client.prepare('SELECT created_at FROM stories WHERE id = ?').pluck().get(link.story_id)), "each link holds its story's created_at");

  const createdOrder = () =>
    (client.prepare('SELECT id, created_at FROM stories WHERE id IN (SELECT story_id FROM story_tags WHERE tag_id = ?)').all(tag.id) as { id: string; created_at: string }[])
      .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1))
      .map((row) => row.id);
  const pages = async (dir: 'asc' | 'desc') => {
    const seen: string[] = [];
    for (let page = 0; page < 3; page++) {
      const res = await ctx.get(`/api/stories/tags/kept?sortBy=createdAt&sortDir=${dir}&size=3&page=${page}`);
      t.equal(res.statusCode, 200);
      seen.push(...(res.json() as { content: { id: string }[] }).content.map((story) => story.id));
    }
    return seen;
  };
  t.same(await pages('asc'), createdOrder(), 'oldest first, ties by id, over every page');
  t.same(await pages('desc'), createdOrder().reverse(), 'newest first');

  // A story whose created_at changes (an archive restore can set it) moves in its tags' order.
  client.prepare('UPDATE stories SET created_at = ? WHERE id = ?').run(at(-60), ids[6]);
  t.equal(client.prepare('SELECT story_created_at FROM story_tags WHERE story_id = ?').pluck().get(ids[6]), at(-60), 'the link follows its story');
  t.same(await pages('asc'), createdOrder(), 'and the pages follow it');
  t.equal((await pages('asc'))[0], ids[6], 'now the oldest');
});

t.test('the migration fills the created_at of links made before it', async (t) => {
  const dataDir = tempDataDir(t);
  const db = openDatabase(path.join(dataDir, 'library.db'));
  const log = { info() {}, warn() {}, error() {}, debug() {} } as never;
  await migrateSafely(db, dataDir, log, migrationsCopy(dataDir, 13));
  const columns = db.$client.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('story_tags');
  t.notOk(columns.includes('story_created_at'), 'the old schema has no story_created_at');
  const tagId = randomUUID();
  db.$client.prepare("INSERT INTO tags (id, name, name_key, created_at, updated_at) VALUES (?, 'old', 'old', ?, ?)").run(tagId, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
  const made: string[] = [];
  for (let i = 0; i < 3; i++) {
    const id = randomUUID();
    const created = `2026-02-0${i + 1}T00:00:00.000Z`;
    db.$client.prepare('INSERT INTO stories (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)').run(id, `Old ${i}`, created, created);
    db.$client.prepare('INSERT INTO story_tags (story_id, tag_id) VALUES (?, ?)').run(id, tagId);
    made.push(id);
  }
  closeDatabase(db);

  const ctx = await buildTestApp(t, { DATA_DIR: dataDir });
  t.equal(ctx.app.db.$client.prepare('SELECT count(*) FROM story_tags WHERE story_created_at IS NULL').pluck().get(), 0, 'every old link filled');
  const res = await ctx.get('/api/stories/tags/old?sortBy=createdAt&sortDir=desc');
  t.same((res.json() as { content: { id: string }[] }).content.map((story) => story.id), [...made].reverse(), 'newest first');
});
