import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import t, { type Test } from 'tap';
import { StoryDto } from '../../src/schemas/story.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { fixtureSite, redirect, serve, storyParagraphs, windows1251, type FixtureHandler, type FixtureSite } from '../helpers/fixture-site.js';
import { imageFolderFiles, png } from '../helpers/images.js';
import { assertMatches } from '../helpers/schema.js';

const STORY_BODY = storyParagraphs(['the', 'lighthouse', 'keeper', 'watched', 'the', 'grey', 'sea', 'roll', 'in']);

function storyPage(origin: string): string {
  return `<!doctype html><html><head>
<title>The Lighthouse Keeper – Tales Weekly</title>
<meta property="og:site_name" content="Tales Weekly">
<meta name="author" content="Jane Doe">
<meta property="og:description" content="A keeper, a storm and a ship.">
<script>document.cookie = 'x'</script>
</head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>The Lighthouse Keeper</h1>
<p>By Jane Doe</p>
${STORY_BODY}
<p><img src="/img/lamp.png" alt="The lamp"> <img src="${origin}/img/missing.png" alt="Gone"> <img src="/img/not-an-image.png" alt="Lie"></p>
<p>Read <a href="/chapter-2">the next chapter</a>.</p>
</article>
<footer>© Tales Weekly</footer>
</body></html>`;
}

function storyCount(ctx: TestContext): number {
  return ctx.app.db.$client.prepare('SELECT count(*) FROM stories').pluck().get() as number;
}

async function site(t: Test): Promise<FixtureSite> {
  const routes: Record<string, FixtureHandler> = {};
  const fixture = await fixtureSite(t, routes);
  const russian = `<html><head><meta charset="windows-1251"><title>Маяк</title></head><body><article>${storyParagraphs(['смотритель', 'маяка', 'смотрел', 'на', 'серое', 'море'])}</article></body></html>`;
  const more: Record<string, FixtureHandler> = {
    '/story': serve(storyPage(fixture.origin)),
    '/img/lamp.png': serve(png(), 'image/png'),
    '/img/not-an-image.png': serve('<html>nope</html>', 'image/png'),
    '/cp1251': serve(windows1251(russian), 'text/html'),
    '/gzip': serve(zlib.gzipSync(storyPage(fixture.origin)), 'text/html; charset=utf-8', { 'Content-Encoding': 'gzip' }),
    '/hop1': redirect('/hop2', 301),
    '/hop2': redirect(`${fixture.origin}/story#ignored`, 302),
    '/loop': redirect('/loop'),
    '/big': (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html' });
      const chunk = Buffer.alloc(1024 * 1024, 'a');
      let sent = 0;
      const more = () => {
        while (sent < 12 && response.write(chunk)) sent += 1;
        if (sent < 12) response.once('drain', more);
        else response.end();
      };
      response.on('error', () => undefined);
      more();
    },
    '/json': serve('{"story": true}', 'application/json'),
    '/broken': (_request, response) => {
      response.writeHead(500, { 'Content-Type': 'text/html' }).end('oops');
    },
    '/empty': serve('<html><body><nav><a href="/">Home</a></nav></body></html>'),
  };
  Object.assign(routes, more);
  return fixture;
}

t.test('a story page becomes a story: title without the site name, author, summary, sanitized text, images stored', async (t) => {
  const ctx = await buildTestApp(t, { IMPORT_ALLOW_HOSTS: '127.0.0.1' });
  const fixture = await site(t);
  const response = await ctx.post('/api/import/url', { url: `${fixture.origin}/story#top` });
  t.equal(response.statusCode, 201, response.body);
  const story = response.json();
  assertMatches(t, StoryDto, story);
  t.equal(story.title, 'The Lighthouse Keeper');
  t.equal(story.authorName, 'Jane Doe');
  t.equal(story.summary, 'A keeper, a storm and a ship.');
  t.equal(story.sourceUrl, `${fixture.origin}/story`, 'the fragment is not part of the source');
  t.match(story.contentHtml, /lighthouse keeper watched the grey sea/);
  t.notMatch(story.contentHtml, /<script|cookie|Tales Weekly<\/footer>/);
  t.match(story.contentHtml, new RegExp(`href="${fixture.origin}/chapter-2"`), 'links are made absolute');
  const images = [...(story.contentHtml as string).matchAll(/<img[^>]*src="([^"]+)"/g)].map((match) => match[1]);
  t.equal(images.length, 1, 'the missing image and the fake one are dropped, never hot-linked');
  t.match(images[0], /^\/api\/files\/images\/inline\/[0-9a-f-]+\.png$/);
  const served = await ctx.get(images[0] as string);
  t.equal(served.statusCode, 200);
  t.equal(served.headers['content-type'], 'image/png');
  t.ok(story.wordCount > 50);
  t.same(fixture.received.filter((p) => p.startsWith('/img/')).sort(), ['/img/lamp.png', '/img/missing.png', '/img/not-an-image.png']);
  t.same(imageFolderFiles(ctx.dataDir), [path.join('inline', path.basename(images[0] as string))], 'only the good image is on disk');
});

t.test('the body is decoded by the page\'s own charset, gzip is undone, redirects are followed', async (t) => {
  const ctx = await buildTestApp(t, { IMPORT_ALLOW_HOSTS: '127.0.0.1' });
  const fixture = await site(t);
  const russian = await ctx.post('/api/import/url', { url: `${fixture.origin}/cp1251` });
  t.equal(russian.statusCode, 201, russian.body);
  t.equal(russian.json().title, 'Маяк');
  t.match(russian.json().contentPlain, /смотритель маяка смотрел на серое море/);

  const gzip = await ctx.post('/api/import/url', { url: `${fixture.origin}/gzip` });
  t.equal(gzip.statusCode, 201, gzip.body);
  t.match(gzip.json().contentPlain, /lighthouse keeper watched/);

  const redirected = await ctx.post('/api/import/url', { url: `${fixture.origin}/hop1` });
  t.equal(redirected.statusCode, 201, redirected.body);
  t.equal(redirected.json().sourceUrl, `${fixture.origin}/story`, 'the source is the final URL');
});

t.test('the same URL again is 409 naming the story; ?update=true re-imports into it', async (t) => {
  const ctx = await buildTestApp(t, { IMPORT_ALLOW_HOSTS: '127.0.0.1' });
  const fixture = await site(t);
  const first = await ctx.post('/api/import/url', { url: `${fixture.origin}/story` });
  t.equal(first.statusCode, 201);
  const id = first.json().id as string;
  await ctx.put(`/api/stories/${id}`, { title: 'Renamed by hand', tagNames: ['kept'] });

  const again = await ctx.post('/api/import/url', { url: `${fixture.origin}/story` });
  t.equal(again.statusCode, 409);
  t.equal(again.json().details.storyId, id);
  t.ok(again.json().details.url);
  const viaRedirect = await ctx.post('/api/import/url', { url: `${fixture.origin}/hop1` });
  t.equal(viaRedirect.statusCode, 409, 'a redirect to an imported page is a duplicate too');
  t.equal(storyCount(ctx), 1);

  const concurrent = await Promise.all([ctx.post('/api/import/url', { url: `${fixture.origin}/gzip` }), ctx.post('/api/import/url', { url: `${fixture.origin}/gzip` })]);
  t.same(concurrent.map((response) => response.statusCode).sort(), [201, 409], 'two imports of one page at once: one story');
  await ctx.del(`/api/stories/${(concurrent.find((response) => response.statusCode === 201)?.json() as { id: string }).id}`);

  const updated = await ctx.post('/api/import/url?update=true', { url: `${fixture.origin}/story` });
  t.equal(updated.statusCode, 200, updated.body);
  t.equal(updated.json().id, id);
  t.equal(updated.json().title, 'The Lighthouse Keeper');
  t.same(updated.json().tags.map((tag: { name: string }) => tag.name), ['kept'], 'what the page does not say is kept');
  t.equal(storyCount(ctx), 1);
});

t.test('refusals: scheme, type, size, upstream errors, redirects, no article; nothing is written', async (t) => {
  const ctx = await buildTestApp(t, { IMPORT_ALLOW_HOSTS: '127.0.0.1' });
  const fixture = await site(t);
  const cases: Array<[string, number]> = [
    ['ftp://127.0.0.1/story', 400],
    ['file:///etc/passwd', 400],
    ['javascript:alert(1)', 400],
    ['not a url', 400],
    [`${fixture.origin}/json`, 415],
    [`${fixture.origin}/big`, 422],
    [`${fixture.origin}/broken`, 502],
    [`${fixture.origin}/nothing-here`, 502],
    [`${fixture.origin}/loop`, 502],
    [`${fixture.origin}/empty`, 422],
  ];
  for (const [url, status] of cases) {
    const response = await ctx.post('/api/import/url', { url });
    t.equal(response.statusCode, status, `${url}: ${response.body}`);
    t.type(response.json().details?.url, 'string', `${url} names the url field`);
  }
  t.equal(fixture.received.filter((p) => p === '/loop').length, 6, 'the first request and 5 redirects, no more');
  t.equal(storyCount(ctx), 0);
  t.same(imageFolderFiles(ctx.dataDir), []);
  const missing = await ctx.post('/api/import/url', {});
  t.equal(missing.statusCode, 400);
  t.equal(missing.json().details.url, 'is required');
});

t.test('a failed write leaves no image behind', async (t) => {
  const ctx = await buildTestApp(t, { IMPORT_ALLOW_HOSTS: '127.0.0.1' });
  const fixture = await site(t);
  // A trigger makes the insert fail after the images are stored.
  ctx.app.db.$client.exec("CREATE TEMP TRIGGER refuse BEFORE INSERT ON stories BEGIN SELECT RAISE(ABORT, 'refused'); END");
  const response = await ctx.post('/api/import/url', { url: `${fixture.origin}/story` });
  t.equal(response.statusCode, 500);
  t.ok(fixture.received.includes('/img/lamp.png'), 'the image was downloaded');
  t.same(imageFolderFiles(ctx.dataDir).filter((file) => !fs.statSync(path.join(ctx.dataDir, 'images', file)).isDirectory()), []);
  t.equal(storyCount(ctx), 0);
});
