/**
 * Every job keeps its files in `DATA_DIR/jobs/<id>/` (src/jobs/folders.ts), the archive restore
 * included; before that convention the restore kept its upload in `DATA_DIR/imports/<id>.zip`.
 * A data folder from then is tidied by the one start-up sweep: an unfinished restore's archive
 * moves into its job's folder and the job resumes from it; everything else under `imports/`
 * goes, links removed without being followed.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { jobs } from '../../src/db/schema.js';
import { buildTestApp, tempDataDir } from '../helpers/app.js';
import { manifestJson, zipOf } from '../helpers/archive.js';
import { waitForJob } from '../helpers/import.js';

const JOB_ID = 'aaaaaaaa-0000-4000-8000-00000000000a';
const STORY_ID = 'bbbbbbbb-0000-4000-8000-00000000000b';

const manifest = manifestJson({ stories: 1 });
const story = JSON.stringify({
  id: STORY_ID, title: 'Queued before the upgrade', summary: null, description: null, contentHtml: '<p>Kept.</p>', sourceUrl: null, rating: null, volume: null,
  authorId: null, seriesId: null, tagNames: [], coverPath: null, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
});

t.test('an archive left in imports/ by a queued restore moves into its job folder and is restored; the rest of imports/ is removed', async (t) => {
  const dataDir = tempDataDir(t);
  const first = await buildTestApp(t, { DATA_DIR: dataDir });
  first.app.db
    .insert(jobs)
    .values({ id: JOB_ID, kind: 'archive-restore', status: 'queued', params: JSON.stringify({ archive: `${JOB_ID}.zip` }), total: 1, createdAt: '2026-11-24T00:00:00.000Z' })
    .run();
  await first.app.close();

  const imports = path.join(dataDir, 'imports');
  const outside = path.join(tempDataDir(t), 'not-ours.zip');
  fs.writeFileSync(outside, 'outside the data folder');
  fs.mkdirSync(path.join(imports, 'stray-folder'), { recursive: true });
  fs.writeFileSync(path.join(imports, `${JOB_ID}.zip`), await zipOf({ 'manifest.json': manifest, [`stories/${STORY_ID}.json`]: story }));
  fs.writeFileSync(path.join(imports, '11111111-0000-4000-8000-000000000001.zip'), 'a finished job’s leftover');
  fs.writeFileSync(path.join(imports, 'stray-folder', 'x'), 'x');
  fs.symlinkSync(outside, path.join(imports, 'link.zip'));

  const second = await buildTestApp(t, { DATA_DIR: dataDir });
  await second.app.ready();
  t.notOk(fs.existsSync(imports), 'imports/ is gone');
  t.equal(fs.readFileSync(outside, 'utf8'), 'outside the data folder', 'a link was removed, not followed');

  const job = await waitForJob(second, JOB_ID);
  t.match(job, { status: 'done', done: 1, failed: 0 });
  const stories = (await second.get('/api/stories')).json() as { content: { title: string }[] };
  t.same(stories.content.map((entry) => entry.title), ['Queued before the upgrade'], 'the restore resumed from the moved archive');
  t.same(fs.readdirSync(path.join(dataDir, 'jobs')), [], 'its folder is removed when the job ends');
});
