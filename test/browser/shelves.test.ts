/**
 * The library's select mode and a shelf page in Chromium (docs/decisions.md, "Bulk edit" and
 * "Shelves"): axe in every theme and no horizontal scroll at 320 px, and the select mode used as a
 * reader uses it, with JavaScript (htmx) and without.
 */
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { launchBrowser, serveOnLan, watchedPage } from '../helpers/browser.js';
import { expectAccessiblePages } from '../helpers/axe.js';

const browser = await launchBrowser();

t.test('select stories, change them in bulk, and see them on a shelf', async (t) => {
  const ctx = await buildTestApp(t);
  const ids: string[] = [];
  for (let i = 0; i < 4; i += 1) {
    const res = await ctx.post('/api/stories', { title: `Story ${i} with a title long enough to wrap on a phone`, authorName: 'Ann', tagNames: ['sea'] });
    ids.push((res.json() as { id: string }).id);
  }
  const shelf = (await ctx.post('/api/shelves', { name: 'Picks for the weekend', description: 'Short ones', kind: 'manual' })).json() as { id: string };
  const smart = (await ctx.post('/api/shelves', { name: 'At sea', kind: 'smart', query: { tags: ['sea'] } })).json() as { id: string };
  const origin = await serveOnLan(ctx.app);
  const { hostname } = new URL(origin);
  const { page, problems } = await watchedPage(t, browser, origin);
  await page.setCookie({ name: 'token', value: ctx.token, domain: hostname, path: '/' });

  await expectAccessiblePages(t, page, origin, ['/library?select=1', '/library?select=1&view=list', '/shelves', `/shelves/${smart.id}`, `/shelves/${shelf.id}/edit`]);

  // With JavaScript: the form is boosted by htmx and lands back on the library.
  await page.goto(`${origin}/library?select=1`, { waitUntil: 'load' });
  await page.click(`#select-${ids[0]}`);
  await page.click(`#select-${ids[2]}`);
  await page.select('#bulk-add-shelf', shelf.id);
  await page.type('#bulk-add-tag', 'weekend');
  await Promise.all([page.waitForResponse((res) => res.url().startsWith(`${origin}/library`)), page.click('button[value="apply"]')]);
  await page.waitForSelector('#library-bulk');
  t.match(page.url(), /\/library\?select=1$/, 'back on the library in select mode');

  await page.goto(`${origin}/shelves/${shelf.id}`, { waitUntil: 'load' });
  const titles = (await page.$$eval('.card-title a', (links) => links.map((a) => a.textContent))) as string[];
  t.same(titles, ['Story 2 with a title long enough to wrap on a phone', 'Story 0 with a title long enough to wrap on a phone'], "the chosen stories, in the library's order (newest first)");
  await expectAccessiblePages(t, page, origin, [`/shelves/${shelf.id}`]);

  // Without JavaScript: the same form, posted as plain HTML.
  const context = await browser.createBrowserContext();
  t.teardown(() => context.close());
  const noJs = await context.newPage();
  await noJs.setJavaScriptEnabled(false);
  await noJs.setCookie({ name: 'token', value: ctx.token, domain: hostname, path: '/' });
  await noJs.goto(`${origin}/library?select=1&view=list`, { waitUntil: 'load' });
  await noJs.click(`#select-${ids[1]}`);
  await noJs.select('#bulk-rating', '5');
  await Promise.all([noJs.waitForNavigation(), noJs.click('button[value="apply"]')]);
  const landed = new URL(noJs.url());
  t.same([landed.pathname, landed.searchParams.get('select'), landed.searchParams.get('view')], ['/library', '1', 'list'], 'back on the page it came from');
  const rated = (await ctx.get(`/api/stories/${ids[1]}`)).json() as { rating: number; tags: { name: string }[] };
  t.equal(rated.rating, 5, 'changed without JavaScript');
  t.same(((await ctx.get(`/api/stories/${ids[0]}`)).json() as { tags: { name: string }[] }).tags.map((tag) => tag.name), ['sea', 'weekend']);
  t.same(problems, [], 'no CSP block, failed request or script error');
});
