/**
 * Scheduled checks of followed sources (docs/decisions.md, "Sources"): due stories are refreshed
 * by a `source-check` job, a failing source never stops the others, complete works and a schedule
 * turned off check nothing, and a tick costs the same at 10,000 followed stories.
 */
import fs from 'node:fs';
import t from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { waitForJob } from '../helpers/import.js';
import { fixtureSite, serve } from '../helpers/fixture-site.js';

const fixture = (name: string): string => fs.readFileSync(new URL(`../fixtures/otwarchive/${name}`, import.meta.url), 'utf8');

function nextCheck(ctx: TestContext, storyId: string): string | null {
  return (ctx.app.db.$client.prepare('SELECT next_check_at AS at FROM story_sources WHERE story_id = ?').get(storyId) as { at: string | null }).at;
}

function makeDue(ctx: TestContext, storyId: string): void {
  ctx.app.db.$client.prepare("UPDATE story_sources SET next_check_at = '2000-01-01T00:00:00.000Z' WHERE story_id = ?").run(storyId);
}

t.test('a due story is refreshed by the schedule; a failing source does not stop the others', async (t) => {
  const ctx = await buildTestApp(t, { IMPORT_ALLOW_HOSTS: '127.0.0.1' });
  const growing = { html: fixture('work-growing-v1.html') };
  const site = await fixtureSite(t, {
    '/works/1003': (request, response) => serve(growing.html)(request, response),
    '/works/1006': serve(fixture('work-coauthored.html')),
    '/works/1001': serve(fixture('work-multi-chapter.html')),
  });
  const story = (await ctx.post('/api/import/url', { url: `${site.origin}/works/1003` })).json();
  const broken = (await ctx.post('/api/import/url', { url: `${site.origin}/works/1006` })).json();
  const complete = (await ctx.post('/api/import/url', { url: `${site.origin}/works/1001` })).json();
  const first = nextCheck(ctx, story.id) as string;
  t.ok(Date.parse(first) > Date.now() && Date.parse(first) <= Date.now() + 24 * 3600 * 1000, 'the first check falls within the interval');
  t.equal(nextCheck(ctx, complete.id), null, 'a complete work is not checked on a schedule');
  t.equal(ctx.app.sourceSchedule.tick(), undefined, 'nothing due yet');

  growing.html = fixture('work-growing-v2.html');
  makeDue(ctx, broken.id);
  makeDue(ctx, story.id);
  ctx.app.db.$client.prepare('UPDATE story_sources SET url = ? WHERE story_id = ?').run(`${site.origin}/works/404`, broken.id);
  const jobId = ctx.app.sourceSchedule.tick() as string;
  t.type(jobId, 'string');
  t.equal(ctx.app.sourceSchedule.tick(), undefined, 'no second job while one waits or runs, and the due rows were claimed');
  const job = await waitForJob(ctx, jobId);
  t.equal(job.kind, 'source-check');
  t.equal(job.done, 1);
  t.equal(job.failed, 1);
  t.match(job.errors, [{ file: broken.id, error: /HTTP 404/ }]);
  t.equal((await ctx.get(`/api/stories/${story.id}`)).json().chapterCount, 4, 'the working source was refreshed');
  t.same(
    (await ctx.get(`/api/stories/${story.id}/updates`)).json().updates.map((update: { origin: string }) => update.origin),
    ['schedule', 'import'],
  );
  t.ok(Date.parse(nextCheck(ctx, story.id) as string) > Date.now() + 23 * 3600 * 1000, 'checked again one interval later');
  const failing = ctx.app.db.$client.prepare('SELECT failures, next_check_at AS at FROM story_sources WHERE story_id = ?').get(broken.id) as { failures: number; at: string };
  t.equal(failing.failures, 1);
  t.ok(Date.parse(failing.at) > Date.now() + 47 * 3600 * 1000, 'a failure pushes the next check back');
});

t.test('SOURCE_CHECK_INTERVAL_HOURS=0 schedules nothing', async (t) => {
  const ctx = await buildTestApp(t, { IMPORT_ALLOW_HOSTS: '127.0.0.1', SOURCE_CHECK_INTERVAL_HOURS: '0' });
  const site = await fixtureSite(t, { '/works/1003': serve(fixture('work-growing-v1.html')) });
  const story = (await ctx.post('/api/import/url', { url: `${site.origin}/works/1003` })).json();
  t.equal(nextCheck(ctx, story.id), null);
  makeDue(ctx, story.id);
  t.equal(ctx.app.sourceSchedule.tick(), undefined);
});

t.test('a tick costs the same whatever the number of followed stories', async (t) => {
  const ctx = await buildTestApp(t);
  const client = ctx.app.db.$client;
  client.pragma('foreign_keys = OFF');
  const insert = client.prepare("INSERT INTO story_sources (story_id, engine, url, uid, site, follow, next_check_at, created_at) VALUES (?, 'otwarchive', ?, ?, 'archive.example', 1, ?, '2026-01-01T00:00:00.000Z')");
  const far = new Date(Date.now() + 3600_000).toISOString();
  client.transaction(() => {
    for (let n = 0; n < 10_000; n += 1) insert.run(`00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, `https://archive.example/works/${n}`, `otwarchive:archive.example:${n}`, far);
  })();
  client.pragma('foreign_keys = ON');
  const started = process.cpuUsage();
  const rounds = 200;
  for (let n = 0; n < rounds; n += 1) ctx.app.sourceSchedule.tick();
  const cpu = process.cpuUsage(started);
  const perTickMs = (cpu.user + cpu.system) / 1000 / rounds;
  t.ok(perTickMs < 6, `a tick over 10,000 followed stories with none due: ${perTickMs.toFixed(3)} ms of CPU, once a minute (under 1 % of a core is 600 ms)`);
});
