import path from 'node:path';
import t from 'tap';
import { applyMigrations, closeDatabase, DATABASE_FILE_NAME, openDatabase } from '../../src/db/open.js';
import { foldSuggestion, rankBucket, suggestionKeys } from '../../src/search/embedded/suggestions.js';
import { buildTestApp, tempDataDir } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import { migrationsCopy } from '../helpers/migrations.js';

t.test('rank buckets: exact below 32, then 16 per doubling, never out of order', async (t) => {
  for (let weight = 0; weight < 32; weight += 1) t.equal(rankBucket(weight), weight);
  t.same([32, 33, 34, 63, 64].map(rankBucket), [32, 32, 33, 47, 48]);
  t.same([1023, 1024, 1087, 1088].map(rankBucket), [111, 112, 112, 113]);
  let previous = -1;
  let widest = 0;
  let runStart = 0;
  for (let weight = 0; weight <= 2_000_000; weight += 1) {
    const bucket = rankBucket(weight);
    if (bucket < previous || bucket > previous + 1) {
      t.fail(`bucket ${bucket} after ${previous} at weight ${weight}`);
      return;
    }
    if (bucket !== previous) runStart = weight;
    else widest = Math.max(widest, (weight - runStart + 1) / runStart);
    previous = bucket;
  }
  t.ok(widest <= 1 / 16, `a bucket spans at most 1/16 of its weights (widest: ${widest.toFixed(4)})`);
});

/** Migration 0005: a library whose keys hold exact weights from 32 up gets them re-keyed at startup. */
t.test('a library from before rank buckets is re-keyed by the migration and the first sync', async (t) => {
  const dataDir = tempDataDir(t);
  const db = openDatabase(path.join(dataDir, DATABASE_FILE_NAME));
  applyMigrations(db, migrationsCopy(dataDir, 5)); // up to 0004: keys ordered by the exact weight
  const client = db.$client;
  const tagId = 'tag-heavy';
  const stamp = '2026-11-01T00:00:00.000Z';
  client.prepare('INSERT INTO tags (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run(tagId, 'heavy tag', stamp, stamp);
  for (let i = 0; i < 40; i += 1) {
    client.prepare('INSERT INTO stories (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)').run(`story-${i}`, `Story ${i}`, stamp, stamp);
    client.prepare('INSERT INTO story_tags (story_id, tag_id) VALUES (?, ?)').run(`story-${i}`, tagId);
  }
  // What 0004's sync had stored for the tag: its keys under the exact weight, 40.
  client.prepare('DELETE FROM search_dirty').run();
  const folded = foldSuggestion('heavy tag');
  const id = Number(
    client.prepare(`INSERT INTO search_suggestions (kind, ref, text, folded, weight) VALUES ('tag', ?, 'heavy tag', ?, 40) RETURNING id`).pluck().get(tagId, folded),
  );
  for (const [key, tie] of suggestionKeys(folded)) {
    client.prepare('INSERT INTO search_suggestion_keys (key, weight, tie, suggestion_id) VALUES (?, 40, ?, ?)').run(key, tie, id);
  }
  closeDatabase(db);

  const ctx = await buildTestApp(t, { DATA_DIR: dataDir });
  const suggest = async (text: string) => (await ctx.get(`/api/stories/search/suggestions?query=${encodeURIComponent(text)}`)).json() as string[];
  const buckets = () =>
    ctx.app.db.$client
      .prepare(`SELECT k.rank_bucket FROM search_suggestion_keys k JOIN search_suggestions s ON s.id = k.suggestion_id WHERE s.kind = 'tag' AND s.ref = ?`)
      .pluck()
      .all(tagId) as number[];
  t.same(await suggest('heav'), ['heavy tag']);
  t.same(new Set(buckets()), new Set([rankBucket(40)]), 'every key of the tag is under its bucket, none under the old exact weight');
  t.equal(buckets().length, suggestionKeys(folded).size, 'one key per prefix, no stale copies');

  await createStory(ctx, { title: 'One more', tagNames: ['heavy tag'] });
  t.same(await suggest('tag'), ['heavy tag']);
  t.equal(buckets().length, suggestionKeys(folded).size);
  t.equal(ctx.app.db.$client.prepare(`SELECT weight FROM search_suggestions WHERE kind = 'tag' AND ref = ?`).pluck().get(tagId), 41, 'the exact weight follows the count');
});
