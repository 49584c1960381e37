/**
 * FanFicFare as an optional engine, driven through `POST /api/import/url` with the stand-in
 * command that replays its real output (test/fixtures/fanficfare/replay-fanficfare.mjs), and
 * with hostile stand-ins written here: one that never ends, one that floods its folder, one that
 * logs its arguments.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { JobDto } from '../../src/schemas/job.js';
import type { StoryDto } from '../../src/schemas/story.js';
import { SourcesConfigDto } from '../../src/schemas/sources.js';
import { FANFICFARE_WOULD_HANDLE } from '../../src/sources/fanficfare/service.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { waitForJob } from '../helpers/import.js';
import { assertMatches } from '../helpers/schema.js';
import { buildWebTestApp } from '../helpers/web.js';

const REPLAY = `${process.execPath} ${path.join(import.meta.dirname, '..', 'fixtures', 'fanficfare', 'replay-fanficfare.mjs')}`;

function importUrl(ctx: TestContext, url: string, query = '') {
  return ctx.request({ method: 'POST', url: `/api/import/url${query}`, payload: { url } });
}

async function importAndWait(t: Test, ctx: TestContext, url: string): Promise<JobDto> {
  const res = await importUrl(ctx, url);
  t.equal(res.statusCode, 202, res.body);
  return waitForJob(ctx, res.json().jobId);
}

/** A stand-in command written for one test: `node <script>`. */
function script(t: Test, source: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fff-standin-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'fanficfare.mjs');
  fs.writeFileSync(file, source);
  return `${process.execPath} ${file}`;
}

t.test('an address on a FanFicFare site is downloaded by it and imported as its EPUB: a job, chapters and metadata', async (t) => {
  const ctx = await buildTestApp(t, { FANFICFARE_COMMAND: REPLAY });
  const job = await importAndWait(t, ctx, 'http://test1.com?sid=1');
  t.match(job, { kind: 'import-fanficfare', status: 'done', done: 1, failed: 0, errors: [] });
  const [story] = (await ctx.get('/api/stories')).json().content as StoryDto[];
  t.match(story, { title: 'Test Story Title 1', authorName: 'Test Author aa', sourceUrl: 'http://test1.com/?sid=1', wordCount: 2846 });
  t.match(story?.contentHtml, /<h2>Chapter 8<\/h2>/);
  t.equal(fs.existsSync(path.join(ctx.dataDir, 'jobs', job.id)), false, "the job's folder is removed");
  const again = await importUrl(ctx, 'http://test1.com?sid=1');
  t.equal(again.statusCode, 409, 'the same address again is a duplicate');
  t.equal(again.json().details.storyId, story?.id);
});

t.test('FanFicFare failing is a failed job with its own message; an address not on its sites is not given to it', async (t) => {
  const ctx = await buildTestApp(t, { FANFICFARE_COMMAND: REPLAY });
  const failed = await importAndWait(t, ctx, 'http://test1.com?sid=666');
  t.equal(failed.status, 'failed');
  t.match(JSON.stringify(failed.errors), /FanFicFare failed: .*UnknownSite/);
  t.equal((await ctx.get('/api/stories')).json().totalElements, 0, 'nothing written');
  const other = await importUrl(ctx, 'http://127.0.0.1:1/not-a-fanficfare-site');
  t.equal(other.statusCode, 403, "another site goes to Storyshelf's own import (and its address guard)");
});

t.test('the address never reaches the command as an option; the command runs without a shell', async (t) => {
  const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fff-args-')), 'args.json');
  t.teardown(() => fs.rmSync(path.dirname(log), { recursive: true, force: true }));
  const command = script(
    t,
    `import fs from 'node:fs';
if (process.argv[2] === '--sites-list') { process.stdout.write('\\n#### test1.com\\nExample URLs:\\n  * http://test1.com?sid=1\\n'); process.exit(0); }
fs.writeFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(2)));
process.exit(1);`,
  );
  const ctx = await buildTestApp(t, { FANFICFARE_COMMAND: command });
  t.equal((await importUrl(ctx, '-o=x http://test1.com?sid=1')).statusCode, 400, 'not an http(s) URL: refused before anything runs');
  t.notOk(fs.existsSync(log));
  const job = await importAndWait(t, ctx, 'http://test1.com/?sid=1;$(id)&a=`id`');
  t.equal(job.status, 'failed');
  const args = JSON.parse(fs.readFileSync(log, 'utf8')) as string[];
  t.same(args.slice(0, -1), ['--non-interactive', '-f', 'epub', '-o', 'is_adult=true', '--'], 'options first, then -- before the address');
  t.equal(args.at(-1), 'http://test1.com/?sid=1;$(id)&a=`id`', 'the address as one argument, untouched by a shell');
});

t.test('a FanFicFare that never ends is stopped at FANFICFARE_TIMEOUT_SECONDS; one that floods its folder at the book size bound', async (t) => {
  const sites = `if (process.argv[2] === '--sites-list') { process.stdout.write('#### test1.com\\n'); process.exit(0); }`;
  const hang = script(t, `${sites}\nsetInterval(() => process.stdout.write('x'.repeat(100000)), 10);`);
  const ctx = await buildTestApp(t, { FANFICFARE_COMMAND: hang, FANFICFARE_TIMEOUT_SECONDS: '1' });
  const started = Date.now();
  const job = await importAndWait(t, ctx, 'http://test1.com?sid=1');
  t.equal(job.status, 'failed');
  t.match(JSON.stringify(job.errors), /took longer than 1 s and was stopped/);
  t.ok(Date.now() - started < 10_000, 'stopped within its bound');

  const flood = script(t, `${sites}\nimport fs from 'node:fs';\nconst fd = fs.openSync('big.epub', 'w');\nconst block = Buffer.alloc(8 * 1024 * 1024);\nsetInterval(() => fs.writeSync(fd, block), 50);`);
  const floodCtx = await buildTestApp(t, { FANFICFARE_COMMAND: flood, FANFICFARE_TIMEOUT_SECONDS: '60' });
  const flooded = await importAndWait(t, floodCtx, 'http://test1.com?sid=1');
  t.equal(flooded.status, 'failed');
  t.match(JSON.stringify(flooded.errors), /wrote more than 104857600 bytes and was stopped/);
  t.equal(fs.existsSync(path.join(floodCtx.dataDir, 'jobs', flooded.id)), false, 'what it wrote is removed');
});

t.test('GET /api/config/sources and /settings show its version and whether it answers', async (t) => {
  const ctx = await buildWebTestApp(t, { FANFICFARE_COMMAND: REPLAY });
  const res = await ctx.get('/api/config/sources');
  t.equal(res.statusCode, 200);
  assertMatches(t, SourcesConfigDto, res.json());
  t.match(res.json().fanficfare, { configured: true, answers: true, version: '4.59.9', error: null });
  const page = (await ctx.page('/settings')).body;
  t.match(page, /<h2 id="fanficfare-heading">FanFicFare<\/h2>[\s\S]*Answers[\s\S]*4\.59\.9/);

  const broken = await buildTestApp(t, { FANFICFARE_COMMAND: '/nonexistent/fanficfare' });
  t.match((await broken.get('/api/config/sources')).json().fanficfare, { configured: true, answers: false, version: null, error: /could not be started/ });
  const off = await buildWebTestApp(t);
  t.same((await off.get('/api/config/sources')).json().fanficfare, { configured: false, command: null, answers: false, version: null, error: null });
  t.match((await off.page('/settings')).body, /FanFicFare<\/h2>\s*<p>Off\./);
});

t.test('which engine an address goes to; without FanFicFare, an address on one of its sites says FanFicFare would handle it', async (t) => {
  const off = await buildTestApp(t);
  const ao3 = await off.get(`/api/import/url/engine?url=${encodeURIComponent('https://archiveofourown.org/works/123/chapters/456')}`);
  t.equal(ao3.statusCode, 200);
  t.same(ao3.json(), { engine: 'storyshelf', fanficfareKnowsSite: true, message: FANFICFARE_WOULD_HANDLE });
  t.same((await off.get(`/api/import/url/engine?url=${encodeURIComponent('https://www.fanfiction.net/s/1/1/')}`)).json().fanficfareKnowsSite, true, 'www. and subdomains count');
  t.same((await off.get(`/api/import/url/engine?url=${encodeURIComponent('https://blog.example/post')}`)).json(), { engine: 'storyshelf', fanficfareKnowsSite: false, message: null });
  t.equal((await off.get('/api/import/url/engine?url=-x')).statusCode, 400);
  const on = await buildTestApp(t, { FANFICFARE_COMMAND: REPLAY });
  t.same((await on.get(`/api/import/url/engine?url=${encodeURIComponent('http://test4.com?sid=40')}`)).json(), { engine: 'fanficfare', fanficfareKnowsSite: true, message: null });
  t.equal((await on.get(`/api/import/url/engine?url=${encodeURIComponent('https://archiveofourown.org/works/1')}`)).json().engine, 'storyshelf', "the installed FanFicFare's own site list decides (the stand-in knows two test sites)");
});
