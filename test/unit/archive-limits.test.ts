/**
 * The archive reader's caps (docs/decisions.md, "Library archive"): too many entries or too many
 * bytes refuse the whole archive before anything is written; a story or a list line over its cap
 * is skipped as a bad entry while the others are restored.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { manifestJson, zipOf } from '../helpers/archive.js';
import { ArchiveRejected, DEFAULT_LIMITS } from '../../src/archive/reader.js';
import { ArchiveRestore, initialRestoreState, type RestoreCommit, type RestoreState } from '../../src/archive/restore.js';
import { writeTransaction } from '../../src/db/transaction.js';

const manifest = manifestJson({ tags: 2, stories: 1 });

function story(id: string, contentHtml: string): string {
  return JSON.stringify({
    id, title: `Story ${id.slice(0, 4)}`, summary: null, description: null, contentHtml, sourceUrl: null, rating: null, volume: null,
    authorId: null, seriesId: null, tagNames: [], coverPath: null, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
  });
}

const SMALL = 'aaaaaaaa-0000-4000-8000-000000000001';
const BIG = 'bbbbbbbb-0000-4000-8000-000000000002';

t.test('the caps refuse or skip, as each says', async (t) => {
  const ctx = await buildTestApp(t);
  const deps = { db: ctx.app.db, images: ctx.app.images };
  const file = path.join(ctx.dataDir, 'limits.zip');
  fs.writeFileSync(
    file,
    await zipOf({
      'manifest.json': manifest,
      'tags.jsonl': `{"id":"cccccccc-0000-4000-8000-000000000003","name":"fine","createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z"}\n{"id":"${'x'.repeat(5000)}"}\n`,
      [`stories/${SMALL}.json`]: story(SMALL, '<p>Small.</p>'),
      // Deflates to a few KB: its declared size is what counts.
      [`stories/${BIG}.json`]: story(BIG, `<p>${'a'.repeat(200_000)}</p>`),
    }),
  );

  await t.rejects(ArchiveRestore.open(deps, file, { ...DEFAULT_LIMITS, maxEntries: 3 }), new ArchiveRejected('too many entries: 4 (at most 3)'));
  await t.rejects(ArchiveRestore.open(deps, file, { ...DEFAULT_LIMITS, maxTotalBytes: 100_000 }), /more than 100000 bytes uncompressed/);
  await t.rejects(ArchiveRestore.open(deps, file, { ...DEFAULT_LIMITS, maxListBytes: 100 }), /tags.jsonl holds more than 100 bytes/);

  const restore = await ArchiveRestore.open(deps, file, { ...DEFAULT_LIMITS, maxStoryBytes: 100_000, maxLineBytes: 1000 });
  t.teardown(() => restore.close());
  const end = await restore.runToEnd();
  t.equal(end.state.phase, 'done');
  t.same(
    end.errors.map((error) => error.file),
    ['tags.jsonl:2', `stories/${BIG}.json`],
  );
  t.match(end.errors[1]?.error, /more than 100000/);
  const titles = ctx.app.db.$client.prepare('SELECT title FROM stories').pluck().all();
  t.same(titles, ['Story aaaa'], 'the story under the cap is restored');
  t.same(ctx.app.db.$client.prepare('SELECT name FROM tags').pluck().all(), ['fine']);

  const again = await restore.runToEnd();
  t.same(ctx.app.db.$client.prepare('SELECT count(*) FROM stories').pluck().get(), 1, 'a second run adds nothing');
  t.equal(again.failed, 2);
});

t.test('a restore resumes from its saved state in a new process', async (t) => {
  const ctx = await buildTestApp(t);
  const deps = { db: ctx.app.db, images: ctx.app.images };
  const file = path.join(ctx.dataDir, 'resume.zip');
  fs.writeFileSync(file, await zipOf({ 'manifest.json': manifest, [`stories/${SMALL}.json`]: story(SMALL, '<p>Resumed.</p>'), [`stories/${BIG}.json`]: story(BIG, '<p>Too.</p>') }));
  const first = await ArchiveRestore.open(deps, file);
  let saved = JSON.stringify(initialRestoreState());
  const commit: RestoreCommit = (step, write) => {
    if (write !== undefined) writeTransaction(ctx.app.db, write);
    saved = JSON.stringify(step.state);
  };
  while ((JSON.parse(saved) as RestoreState).phase !== 'stories') await first.step(JSON.parse(saved) as RestoreState, commit);
  first.close();
  t.equal(ctx.app.db.$client.prepare('SELECT count(*) FROM stories').pluck().get(), 0, 'interrupted before the stories');

  const second = await ArchiveRestore.open(deps, file);
  t.teardown(() => second.close());
  const end = await second.runToEnd(JSON.parse(saved) as RestoreState);
  t.equal(end.state.phase, 'done');
  t.equal(end.done, 2);
  t.same(ctx.app.db.$client.prepare('SELECT title FROM stories ORDER BY title').pluck().all(), ['Story aaaa', 'Story bbbb']);
});
