/**
 * Polite fetching and the hostile sources (docs/decisions.md, "Sources"): one request at a time
 * per site with a pause between them, `Retry-After` honoured, back-off after failures, the
 * Storyshelf User-Agent, and every hostile source ending in a clear error in bounded time.
 */
import fs from 'node:fs';
import t, { type Test } from 'tap';
import { HttpError } from '../../src/errors.js';
import { ExtractPool } from '../../src/import/url/extract-pool.js';
import { SiteQueue } from '../../src/import/url/site-queue.js';
import { fetchPage, readAddress, type SourceReadDeps } from '../../src/import/url/source.js';
import { parseAllowHosts } from '../../src/lib/allow-hosts.js';
import { fixtureSite, redirect, serve } from '../helpers/fixture-site.js';

const allow = parseAllowHosts('127.0.0.1,localhost').allow;
const fixture = (name: string): string => fs.readFileSync(new URL(`../fixtures/otwarchive/${name}`, import.meta.url), 'utf8');

function deps(t: Test, overrides: Partial<SourceReadDeps> = {}): SourceReadDeps {
  const pool = new ExtractPool();
  t.teardown(() => pool.close());
  return { pool, allow, queue: new SiteQueue({ delayMs: 0 }), maxChapters: 3000, sourcePageTimeoutMs: 10_000, ...overrides };
}

async function failure(promise: Promise<unknown>): Promise<HttpError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  if (!(error instanceof HttpError)) throw new Error(`expected an HttpError, got ${String(error)}`);
  return error;
}

t.test('one request at a time per site, the delay between them; another site does not wait', async (t) => {
  let active = 0;
  let most = 0;
  const starts: number[] = [];
  const site = await fixtureSite(t, {
    '/p': (request, response) => {
      starts.push(Date.now());
      active += 1;
      most = Math.max(most, active);
      setTimeout(() => {
        active -= 1;
        response.writeHead(200, { 'Content-Type': 'text/html' }).end(`<p>${request.headers['user-agent']}</p>`);
      }, 50);
    },
  });
  const d = deps(t, { queue: new SiteQueue({ delayMs: 300 }) });
  const url = new URL(`${site.origin}/p`);
  const began = Date.now();
  const pages = await Promise.all([fetchPage(d, url, 'source'), fetchPage(d, url, 'source'), fetchPage(d, url, 'page')]);
  t.equal(most, 1, 'never two requests to the site at once');
  for (let n = 1; n < starts.length; n += 1) t.ok((starts[n] as number) - (starts[n - 1] as number) >= 340, `request ${n + 1} started 50 ms + 300 ms after the one before`);
  t.match(pages[0]?.body.toString(), /^<p>Storyshelf\/\S+ \(self-hosted story library/, 'a source is fetched naming Storyshelf');
  t.match(pages[2]?.body.toString(), /^<p>Mozilla\/5\.0/, 'an ordinary page keeps the browser User-Agent');
  t.ok(Date.now() - began >= 700);

  // Another host of the same server, behind a pause far longer than any fetch under load (a
  // 300 ms bound failed once on a busy 2-core machine): waiting for it would take 60 s.
  const other = new URL(`http://localhost:${site.port}/p`);
  const paused = deps(t, { queue: new SiteQueue({ delayMs: 60_000 }) });
  await fetchPage(paused, url, 'page');
  const otherStarted = Date.now();
  await fetchPage(paused, other, 'page');
  t.ok(Date.now() - otherStarted < 30_000, 'another host has its own turn, not this one’s pause');
});

t.test('429 with Retry-After is waited out and retried; a pause too long for a request is 503 at once', async (t) => {
  const times: number[] = [];
  let calls = 0;
  const site = await fixtureSite(t, {
    '/busy': (_request, response) => {
      times.push(Date.now());
      calls += 1;
      if (calls === 1) response.writeHead(429, { 'Retry-After': '1' }).end();
      else response.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>ok</p>');
    },
    '/closed': (_request, response) => response.writeHead(429, { 'Retry-After': '7200' }).end(),
  });
  const d = deps(t);
  const page = await fetchPage(d, new URL(`${site.origin}/busy`), 'source');
  t.equal(page.body.toString(), '<p>ok</p>');
  t.equal(times.length, 2);
  t.ok((times[1] as number) - (times[0] as number) >= 990, 'the second try waited the second the site asked for');

  const started = Date.now();
  const error = await failure(fetchPage(d, new URL(`${site.origin}/closed`), 'source'));
  t.equal(error.statusCode, 503);
  t.match(error.details?.url, /pause of 7200 s/);
  t.ok(Date.now() - started < 30_000, 'refused without waiting two hours');
  const next = await failure(fetchPage(d, new URL(`${site.origin}/busy`), 'source'));
  t.equal(next.statusCode, 503, 'and the next request to that site is refused too: the site asked for the pause');
});

t.test('failures in a row double the pause before the next request to the site', async (t) => {
  const times: number[] = [];
  const site = await fixtureSite(t, {
    '/down': (_request, response) => {
      times.push(Date.now());
      response.writeHead(500).end();
    },
  });
  const d = deps(t, { queue: new SiteQueue({ delayMs: 100 }) });
  for (let n = 0; n < 3; n += 1) t.equal((await failure(fetchPage(d, new URL(`${site.origin}/down`), 'source'))).statusCode, 502);
  const first = (times[1] as number) - (times[0] as number);
  const second = (times[2] as number) - (times[1] as number);
  t.ok(first >= 190, `after one failure 200 ms (${first})`);
  t.ok(second >= 390, `after two 400 ms (${second})`);
});

t.test('hostile sources end in a clear error, in bounded time', async (t) => {
  const chapterBlock = (n: number) => `<div class="chapter" id="chapter-${n}"><div class="chapter preface group"><h3 class="title"><a href="/works/1/chapters/${n}">Chapter ${n}</a></h3></div><div class="userstuff module" role="article"><p>x</p></div></div>`;
  const huge = fixture('work-multi-chapter.html').replace(/<div id="chapters" role="article">[\s\S]*<!--\/chapter-->/, `<div id="chapters" role="article">${Array.from({ length: 10_000 }, (_, n) => chapterBlock(n + 1)).join('')}</div>\n<!--/chapter-->`).replace('3/3', '10,000/10,000');
  const seriesPage = (page: number) => fixture('series.html').replace('<!--/content-->', `<ol class="pagination actions"><li class="next"><a rel="next" href="/series/9?page=${page + 1}">Next</a></li></ol>`);
  const site = await fixtureSite(t, {
    '/works/1': serve(huge),
    '/series/9': (request, response) => {
      const page = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('page') ?? '1');
      response.writeHead(200, { 'Content-Type': 'text/html' }).end(seriesPage(page));
    },
    '/works/2': (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html' });
      const block = Buffer.alloc(1024 * 1024, 'x');
      let sent = 0;
      const pump = () => {
        while (sent < 50 && response.write(block)) sent += 1;
        if (sent < 50) response.once('drain', pump);
        else response.end();
      };
      pump();
    },
    '/works/3': redirect('http://169.254.169.254/latest/meta-data/'),
    '/works/4': (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html' });
      const timer = setInterval(() => response.write('<'), 1000);
      response.on('close', () => clearInterval(timer));
    },
    '/works/5': redirect('/users/login?restricted=true&return_to=%2Fworks%2F5'),
    '/users/login': serve(fixture('restricted-login.html')),
  });
  const d = deps(t, { sourcePageTimeoutMs: 4000 });
  const cases: Array<[string, number, RegExp]> = [
    ['/works/1', 422, /has 10000 chapters; at most 3000/],
    ['/series/9', 422, /more than 25 pages/],
    ['/works/2', 422, /larger than 33554432 bytes/],
    ['/works/3', 403, /169\.254\.169\.254 is a private/],
    ['/works/4', 504, /within 4 s/],
    ['/works/5', 422, /logged-in users/],
  ];
  for (const [path, status, detail] of cases) {
    const started = Date.now();
    const rssBefore = process.memoryUsage().rss;
    const error = await failure(readAddress(d, new URL(`${site.origin}${path}`), 50));
    t.equal(error.statusCode, status, `${path}: ${error.message}`);
    t.match(error.details?.url, detail);
    t.ok(Date.now() - started < 15_000, `${path} ended in ${Date.now() - started} ms`);
    t.ok(process.memoryUsage().rss - rssBefore < 200 * 1024 * 1024, `${path} held no unbounded memory`);
  }
});
