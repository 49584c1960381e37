import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import t from 'tap';
import { buildWebTestApp, parseHtml } from '../helpers/web.js';

const PAGE_CSP =
  "default-src 'self';script-src 'self';style-src 'self';style-src-attr 'unsafe-inline';img-src 'self' data:;" +
  "form-action 'self';frame-ancestors 'none';base-uri 'none';object-src 'none'";
const API_CSP = "default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'none'";

t.test('pages carry the page CSP; the API keeps its own', async (t) => {
  const ctx = await buildWebTestApp(t);
  for (const [label, res] of [
    ['home', await ctx.page('/')],
    ['login', await ctx.anonymous.page('/login')],
    ['redirect', await ctx.anonymous.page('/')],
    ['404', await ctx.page('/nope')],
  ] as const) {
    const csp = res.headers['content-security-policy'] as string;
    t.equal(csp, PAGE_CSP, `${label}: the exact page CSP`);
    const scriptSrc = csp.split(';').find((directive) => directive.startsWith('script-src')) ?? '';
    t.notMatch(scriptSrc, /unsafe-inline|unsafe-eval/, `${label}: no inline script or eval`);
    t.notMatch(csp, /upgrade-insecure-requests/, `${label}: nothing upgraded on plain HTTP`);
    t.notOk(res.headers['cross-origin-opener-policy'], `${label}: no COOP on plain HTTP`);
    t.equal(res.headers['referrer-policy'], 'same-origin', `${label}: form posts keep their Origin`);
  }
  const api = await ctx.get('/api/stories');
  t.equal(api.headers['content-security-policy'], API_CSP, 'the API CSP is unchanged');
  t.equal(api.headers['cross-origin-opener-policy'], 'same-origin', 'and so are its other headers');
  t.equal(api.headers['referrer-policy'], 'no-referrer');
});

t.test('behind a trusted HTTPS proxy the pages keep Cross-Origin-Opener-Policy', async (t) => {
  const ctx = await buildWebTestApp(t, { TRUST_PROXY: 'true' });
  const res = await ctx.app.inject({ method: 'GET', url: '/', cookies: { token: ctx.token }, headers: { 'x-forwarded-proto': 'https' } });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['cross-origin-opener-policy'], 'same-origin');
  t.equal(res.headers['content-security-policy'], PAGE_CSP);
});

t.test('unknown paths: HTML 404 page for pages, JSON 404 for the API', async (t) => {
  const ctx = await buildWebTestApp(t);
  const page = await ctx.page('/nope');
  t.equal(page.statusCode, 404);
  t.match(page.headers['content-type'], /^text\/html/);
  t.equal(parseHtml(page.body).text('h1'), 'Page not found');
  const anonymous = await ctx.anonymous.page('/nope');
  t.equal(anonymous.statusCode, 303, 'logged out, an unknown page is a login first');
  for (const url of ['/api/nope', '/api/stories/x/y/z']) {
    const api = await ctx.get(url);
    t.equal(api.statusCode, 404, url);
    t.match(api.headers['content-type'], /application\/json/);
    t.match(api.json(), { error: /not found/ });
  }
  const doc = (await ctx.anonymous.page('/openapi.json')).json() as { paths: Record<string, unknown> };
  t.same(Object.keys(doc.paths).filter((p) => !p.startsWith('/api/') && !p.startsWith('/kosync/') && p !== '/healthz'), [], 'the OpenAPI document lists no page');
  const form = await ctx.app.inject({ method: 'POST', url: '/api/tags', payload: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' }, cookies: { token: ctx.token } });
  t.equal(form.statusCode, 415, 'the API still refuses form bodies');
});

t.test('typed errors and bad form input are 4xx pages, never 500', async (t) => {
  const ctx = await buildWebTestApp(t);
  const theme = await ctx.form('/theme', { theme: 'neon', back: '/' });
  t.equal(theme.statusCode, 400);
  t.match(theme.headers['content-type'], /^text\/html/);
  t.equal(parseHtml(theme.body).text('h1'), 'Bad Request');
  t.match(parseHtml(theme.body).text('.lead'), 'Unknown theme');
  const json = await ctx.app.inject({ method: 'POST', url: '/login', payload: '{"password":"x"}', headers: { 'content-type': 'application/json' } });
  t.ok(json.statusCode >= 400 && json.statusCode < 500, `JSON to /login is ${json.statusCode}`);
  const huge = await ctx.anonymous.form('/login', { password: 'x'.repeat(20_000) });
  t.equal(huge.statusCode, 413, 'an oversized login form');
  t.match(huge.headers['content-type'], /^text\/html/);
  const badEncoding = await ctx.app.inject({ method: 'GET', url: '/%E0%A4%A', cookies: { token: ctx.token } });
  t.ok(badEncoding.statusCode >= 400 && badEncoding.statusCode < 500, `broken percent-encoding is ${badEncoding.statusCode}`);
});

t.test('assets: hashed names, immutable caching, nothing else served', async (t) => {
  const ctx = await buildWebTestApp(t);
  const html = parseHtml((await ctx.anonymous.page('/login')).body);
  const css = html.attr('link[rel="stylesheet"]', 'href') ?? '';
  const bytes = fs.readFileSync(path.resolve('src/web/assets/app.css'));
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 10);
  t.equal(css, `/assets/app.${hash}.css`, 'the name carries the hash of the bytes');
  const res = await ctx.anonymous.page(css);
  t.equal(res.statusCode, 200, 'served without a login');
  t.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
  t.match(res.headers['content-type'], /^text\/css/);
  t.equal(res.body, bytes.toString());

  const htmxUrl = html.attr('script[src^="/assets/htmx."]', 'src') ?? '';
  const htmx = await ctx.anonymous.page(htmxUrl);
  t.equal(htmx.statusCode, 200, 'htmx is served');
  const htmxFile = createRequire(import.meta.url).resolve('htmx.org/dist/htmx.min.js');
  t.equal(htmx.body, fs.readFileSync(htmxFile, 'utf8'), 'from node_modules/htmx.org/dist/htmx.min.js');
  t.match(htmx.headers['content-type'], /javascript/);

  const stale = css.replace(hash, '0000000000');
  for (const url of [
    stale,
    '/assets/app.css',
    '/assets/../package.json',
    '/assets/..%2Fpackage.json',
    '/assets/%2e%2e%2fpackage.json',
    '/assets/..%5c..%5cpackage.json',
    '/assets/%2e%2e/%2e%2e/package.json',
    '/assets/htmx.js',
    '/assets/htmx.min.js',
    '/assets/theme.ts',
    '/assets/',
  ]) {
    const res = await ctx.anonymous.page(url);
    t.ok(res.statusCode === 404 || res.statusCode === 303 || res.statusCode === 400, `${url} is not served (${res.statusCode})`);
    t.notMatch(res.body, /"name": "storyshelf"/, `${url} does not leak package.json`);
    t.not(res.headers['cache-control'], 'public, max-age=31536000, immutable', `${url} is not cached forever`);
  }
});

t.test('the theme form sets the cookie and returns to a same-site page', async (t) => {
  const ctx = await buildWebTestApp(t);
  const res = await ctx.form('/theme', { theme: 'dark', back: '/library?sort=title' });
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, '/library?sort=title');
  const cookie = res.cookies.find((c) => c.name === 'theme');
  t.equal(cookie?.value, 'dark');
  t.equal(cookie?.path, '/');
  const page = parseHtml((await ctx.page('/', { theme: 'dark' })).body);
  t.equal(page.attr('html', 'data-theme'), 'dark', 'the server renders the theme');
  t.equal(page.attr('button[value="dark"]', 'aria-pressed'), 'true');
  t.equal(parseHtml((await ctx.page('/', { theme: '"><script>' })).body).attr('html', 'data-theme'), 'auto', 'an unknown cookie is auto');
  const fetched = await ctx.app.inject({ method: 'POST', url: '/theme', payload: 'theme=light', headers: { 'content-type': 'application/x-www-form-urlencoded', 'hx-request': 'true' } });
  t.equal(fetched.statusCode, 204, 'a script\'s request gets no page');
  t.equal(fetched.cookies.find((c) => c.name === 'theme')?.value, 'light');
  const away = await ctx.form('/theme', { theme: 'sepia', back: '//evil.example/' });
  t.equal(away.headers.location, '/', 'never back to another site');
  const cross = await ctx.app.inject({ method: 'POST', url: '/theme', payload: 'theme=dark', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' } });
  t.equal(cross.statusCode, 403, 'a cross-site theme post is refused');
});

t.test('the layout: navigation, search, the current page, htmx config', async (t) => {
  const ctx = await buildWebTestApp(t);
  const page = parseHtml((await ctx.page('/')).body);
  t.same(page.texts('nav[aria-label="Primary"] a'), ['Home', 'Library', 'Search', 'Tags', 'Shelves', 'Settings', 'Add story']);
  t.same(
    page.all('nav[aria-label="Primary"] a').map((a) => a.attribs.href),
    ['/', '/library', '/search', '/tags', '/shelves', '/settings', '/stories/new'],
  );
  t.equal(page.attr('nav a[aria-current="page"]', 'href'), '/');
  t.equal(page.attr('form[role="search"]', 'action'), '/search');
  t.equal(page.attr('form[role="search"]', 'method'), 'get');
  const config = JSON.parse(page.attr('meta[name="htmx-config"]', 'content') ?? '{}') as Record<string, unknown>;
  t.match(config, { includeIndicatorStyles: false, allowEval: false, historyCacheSize: 0, selfRequestsOnly: true });
  t.equal(page.all('script').length, page.all('script[src^="/assets/"]').length, 'no inline scripts, only our assets');
});
