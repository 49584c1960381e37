/**
 * The settings page's reindex is a job kind (src/search/reindex-job.ts): `GET /api/jobs` shows
 * it and its rows, the page shows the same job, and a failure or a cancel reaches both.
 */
import t from 'tap';
import { createStory } from '../helpers/factories.js';
import { buildWebTestApp, holdReindex, parseHtml, type WebTestContext } from '../helpers/web.js';
import type { ReindexOutcome } from '../../src/search/engine.js';
import type { JobDto } from '../../src/schemas/job.js';
import { rebuildRowCount } from '../../src/search/embedded/rebuild.js';

async function reindexJobs(ctx: WebTestContext): Promise<JobDto[]> {
  const res = await ctx.get('/api/jobs');
  t.equal(res.statusCode, 200);
  return (res.json() as { jobs: JobDto[] }).jobs.filter((job) => job.kind === 'search-reindex');
}

async function until(ctx: WebTestContext, id: string, done: (job: JobDto) => boolean): Promise<JobDto> {
  let job = (await ctx.get(`/api/jobs/${id}`)).json() as JobDto;
  for (let i = 0; i < 200 && !done(job); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    job = (await ctx.get(`/api/jobs/${id}`)).json() as JobDto;
  }
  return job;
}

t.test('a reindex from the page is a job at /api/jobs: running while it runs, then done with every row counted', async (t) => {
  const ctx = await buildWebTestApp(t);
  const finish = holdReindex(t, ctx);
  for (const title of ['One', 'Two', 'Three']) await createStory(ctx, { title, tagNames: ['tagged'] });
  t.same(await reindexJobs(ctx), [], 'no reindex job before the button');

  t.equal((await ctx.form('/settings/reindex', {})).statusCode, 303);
  const [queued, ...others] = await reindexJobs(ctx);
  t.ok(queued, 'the reindex is listed');
  t.same(others, [], 'one job');
  const running = await until(ctx, queued!.id, (job) => job.status === 'running');
  t.equal(running.status, 'running', 'the runner runs it');
  t.equal((await ctx.form('/settings/reindex', {})).headers.location, '/settings?reindex=running#reindex');
  t.equal((await reindexJobs(ctx)).length, 1, 'a second press queues no second job');

  finish();
  const done = await until(ctx, queued!.id, (job) => job.status === 'done');
  t.equal(done.status, 'done');
  t.equal(done.total, rebuildRowCount(ctx.app.db), 'every story, author, series and tag row');
  t.ok(done.total >= 4, `three stories and a tag (${done.total})`);
  t.equal(done.done, done.total);
  t.same(done.errors, []);
  const status = parseHtml((await ctx.page('/settings/reindex/status')).body);
  t.match(status.text('p'), /^Search index rebuilt: 3 stories indexed \(finished \d{4}-\d\d-\d\d \d\d:\d\d UTC\)\.$/);
  t.equal((await ctx.get('/api/stories/search?query=Three')).json().totalHits, 1, 'the index answers');

  t.equal((await ctx.form('/settings/reindex', {})).headers.location, '/settings?reindex=started#reindex', 'once done, another may start');
});

t.test('a reindex that fails is a failed job with its reason, and the page says why', async (t) => {
  const ctx = await buildWebTestApp(t);
  const engine = ctx.app.searchEngine;
  const real = engine.reindex.bind(engine);
  engine.reindex = async (): Promise<ReindexOutcome> => {
    throw new Error('the disk is full <b>now</b>');
  };
  t.teardown(() => {
    engine.reindex = real;
  });
  t.equal((await ctx.form('/settings/reindex', {})).statusCode, 303);
  const [job] = await reindexJobs(ctx);
  const failed = await until(ctx, job!.id, (found) => found.status === 'failed');
  t.equal(failed.status, 'failed');
  t.same(failed.errors, [{ file: '', error: 'the disk is full <b>now</b>' }]);
  const res = await ctx.page('/settings');
  t.notOk(res.body.includes('<b>now</b>'), 'escaped');
  const page = parseHtml(res.body);
  t.equal(page.text('#reindex-status p'), 'The last reindex failed: the disk is full <b>now</b>');
  t.ok(page.one('#reindex-status .reindex-status__text--failed'));
  t.notOk(page.one('#reindex-status [hx-trigger]'), 'nothing to poll');
});

t.test('a cancelled reindex still finishes its rebuild, and the page says it was cancelled', async (t) => {
  const ctx = await buildWebTestApp(t);
  const finish = holdReindex(t, ctx);
  await createStory(ctx, { title: 'Kept whole' });
  t.equal((await ctx.form('/settings/reindex', {})).statusCode, 303);
  const [job] = await reindexJobs(ctx);
  await until(ctx, job!.id, (found) => found.status === 'running');
  const cancel = await ctx.del(`/api/jobs/${job!.id}`);
  t.equal(cancel.statusCode, 200);
  t.equal(((await ctx.get(`/api/jobs/${job!.id}`)).json() as JobDto).status, 'cancelled', 'cancelled at once');
  const status = parseHtml((await ctx.page('/settings/reindex/status')).body);
  t.match(status.text('p'), /^The last reindex was cancelled \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)\.$/);
  t.notOk(status.one('[hx-trigger]'), 'nothing to poll');
  finish();
  // The runner is free again once the rebuild has ended: a new reindex then runs to the end.
  t.equal((await ctx.form('/settings/reindex', {})).headers.location, '/settings?reindex=started#reindex');
  const [next] = await reindexJobs(ctx);
  t.not(next!.id, job!.id);
  t.equal((await until(ctx, next!.id, (found) => found.status === 'done')).status, 'done');
  t.equal(((await ctx.get(`/api/jobs/${job!.id}`)).json() as JobDto).status, 'cancelled', 'the first stays cancelled');
  t.equal((await ctx.get('/api/stories/search?query=Kept')).json().totalHits, 1, 'the index is whole');
});
