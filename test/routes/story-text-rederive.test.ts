import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { sqliteClient } from '../../src/db/statements.js';
import { writeTransaction } from '../../src/db/transaction.js';
import { rederiveBatch } from '../../src/stories/text-rederive.js';
import { buildTestApp, tempDataDir, type TestContext } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';

const MIGRATION = path.join(import.meta.dirname, '../../drizzle/0015_story-text-rederive.sql');

/** Stores the text the old rules derived (cells glued), through a write transaction so the search index holds it too. */
function storeOldText(ctx: TestContext, id: string, plain: string, words: number): void {
  writeTransaction(ctx.app.db, (tx) => {
    sqliteClient(tx).prepare('UPDATE stories SET content_plain = ?, word_count = ? WHERE id = ?').run(plain, words, id);
  });
}

/** Runs the migration's SQL again on this library, as an upgrade from before it would. */
function runMigrationAgain(ctx: TestContext): void {
  const client = sqliteClient(ctx.app.db);
  client.exec('DROP TABLE story_text_rederive');
  for (const statement of fs.readFileSync(MIGRATION, 'utf8').split('--> statement-breakpoint')) client.exec(statement);
}

async function searchTitles(ctx: TestContext, query: string): Promise<string[]> {
  return (await ctx.get(`/api/stories/search?query=${query}`)).json().results.map((hit: { title: string }) => hit.title);
}

t.test('the migration lists stored stories and the next start derives their text, word count and search document again', async (t) => {
  const dataDir = tempDataDir(t);
  const before = await buildTestApp(t, { DATA_DIR: dataDir });
  const story = await createStory(before, { title: 'Harbour log', contentHtml: '<table><tr><td>Tide</td><td>Highwater</td></tr></table><section>Sea</section>' });
  const empty = await createStory(before, { title: 'No body' });
  storeOldText(before, story.id, 'TideHighwater\n\nSea', 2);
  t.same(await searchTitles(before, 'highwater'), [], 'the old text: the glued word is not found');
  runMigrationAgain(before);
  t.equal(sqliteClient(before.app.db).prepare('SELECT count(*) FROM story_text_rederive').pluck().get(), 1, 'only the story with a body is listed');
  await before.app.close();

  const after = await buildTestApp(t, { DATA_DIR: dataDir });
  const client = sqliteClient(after.app.db);
  for (let waited = 0; client.prepare('SELECT count(*) FROM story_text_rederive').pluck().get() !== 0 && waited < 10_000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const res = await after.get(`/api/stories/${story.id}`);
  t.match(res.json(), { contentPlain: 'Tide Highwater\n\nSea', wordCount: 3, updatedAt: story.updatedAt }, 'derived again; the story was not "updated"');
  t.same(await searchTitles(after, 'highwater'), ['Harbour log'], 'the search index follows in the same transaction');
  t.equal((await after.get(`/api/stories/${empty.id}`)).json().contentPlain, null);
});

t.test('a batch rewrites only texts that change, and takes deleted stories off the list', async (t) => {
  const ctx = await buildTestApp(t);
  const right = await createStory(ctx, { title: 'Right', contentHtml: '<p>New text</p>' });
  const old = await createStory(ctx, { title: 'Old', contentHtml: '<p>a</p><table><tr><td>b</td><td>c</td></tr></table>' });
  const gone = await createStory(ctx, { title: 'Gone', contentHtml: '<p>x</p>' });
  storeOldText(ctx, old.id, 'a\n\nbc', 2);
  const client = sqliteClient(ctx.app.db);
  client.prepare('INSERT INTO story_text_rederive (seq) SELECT seq FROM stories').run();
  t.equal((await ctx.del(`/api/stories/${gone.id}`)).statusCode, 200);
  t.same(await rederiveBatch(ctx.app.db), { listed: 3, updated: 1 }, 'one text changed; the deleted story is only unlisted');
  t.match((await ctx.get(`/api/stories/${old.id}`)).json(), { contentPlain: 'a\n\nb c', wordCount: 3 });
  t.match((await ctx.get(`/api/stories/${right.id}`)).json(), { contentPlain: 'New text', updatedAt: right.updatedAt });
  t.same(await rederiveBatch(ctx.app.db), { listed: 0, updated: 0 }, 'the list is empty');
});
