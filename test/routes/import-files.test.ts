import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { JobDto, JobStarted } from '../../src/schemas/job.js';
import { StoryDto } from '../../src/schemas/story.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { fanficEpub, postImport, waitForJob, zipOf } from '../helpers/import.js';
import { assertMatches } from '../helpers/schema.js';

async function storiesOf(ctx: TestContext): Promise<StoryDto[]> {
  const res = await ctx.get('/api/stories?size=100&sort=title,asc');
  return res.json().content as StoryDto[];
}

async function importAndWait(t: Test, ctx: TestContext, files: Parameters<typeof postImport>[1]): Promise<JobDto> {
  const res = await postImport(ctx, files);
  t.equal(res.statusCode, 202, res.body);
  assertMatches(t, JobStarted, res.json());
  const job = await waitForJob(ctx, res.json().jobId);
  assertMatches(t, JobDto, job);
  return job;
}

t.test('a FanFicFare EPUB becomes a story with its title, author, series and volume, tags, summary and source URL', async (t) => {
  const ctx = await buildTestApp(t);
  const job = await importAndWait(t, ctx, [{ filename: 'long-way.epub', data: await fanficEpub() }]);
  t.match(job, { kind: 'import-files', status: 'done', total: 1, done: 1, failed: 0, errors: [] });
  t.ok(job.startedAt !== null && job.finishedAt !== null, 'started and finished stamps');
  const [story] = await storiesOf(ctx);
  t.match(story, {
    title: 'The Long Way Home',
    authorName: 'Quill Writer',
    seriesName: 'Desert Tales',
    volume: 2,
    summary: 'Two friends cross a desert.',
    sourceUrl: 'https://fanfic.example/s/12345/1/',
  });
  t.same(story?.tags.map((tag) => tag.name), ['adventure', 'found family', 'slow burn']);
  t.match(story?.contentHtml, /<h2>Chapter 1: Sand<\/h2>[\s\S]*first chapter[\s\S]*<h2>Chapter 2: Stars<\/h2>[\s\S]*under the stars/);
  t.notMatch(story?.contentHtml, /<img/, 'images inside the EPUB are dropped');
  t.equal(fs.existsSync(path.join(ctx.dataDir, 'jobs', job.id)), false, 'the upload folder is removed when the job ends');
  const search = await ctx.get('/api/stories/search?query=stars');
  t.equal(search.json().results?.[0]?.id, story?.id, 'the story is in the search index');
});
