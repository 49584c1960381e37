import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { launchBrowser, serveOnLan, watchedPage } from '../helpers/browser.js';
import { expectAccessiblePages } from '../helpers/axe.js';

// The process's one browser (several files share it).
const browser = await launchBrowser();

t.test('the browse pages: axe in every theme, 320 px, the library form and paging without JavaScript', async (t) => {
  const ctx = await buildTestApp(t);
  const ids: Array<{ id: string; authorId: string; seriesId: string }> = [];
  for (let i = 0; i < 25; i += 1) {
    const res = await ctx.post('/api/stories', {
      title: `Story ${String(i).padStart(2, '0')} with a rather long title to wrap`,
      authorName: `Author ${i % 3}`,
      seriesName: 'Saga',
      volume: i + 1,
      tagNames: ['fantasy', 'a/b ?&#%'],
      rating: 1 + (i % 5),
    });
    ids.push(res.json() as { id: string; authorId: string; seriesId: string });
  }
  await ctx.put(`/api/stories/${ids[0]!.id}/progress`, { progress: 0.3, position: null });
  // Story 01 read, then grown by a chapter: the home page's "Updated since you last read" (axe checks it below).
  await ctx.put(`/api/stories/${ids[1]!.id}/progress`, { progress: 1, position: null });
  await new Promise((resolve) => setTimeout(resolve, 5));
  t.equal((await ctx.post(`/api/stories/${ids[1]!.id}/chapters`, { title: 'Afterword', contentHtml: '<p>More.</p>' })).statusCode, 201);
  const origin = await serveOnLan(ctx.app);
  const { hostname } = new URL(origin);
  const { page, problems } = await watchedPage(t, browser, origin);
  await page.setCookie({ name: 'token', value: ctx.token, domain: hostname, path: '/' });

  const pages = ['/', '/library', '/library?view=list', `/authors/${ids[0]!.authorId}`, `/series/${ids[0]!.seriesId}`, `/tags/${encodeURIComponent('a/b ?&#%')}`];
  await expectAccessiblePages(t, page, origin, pages);
  t.same(problems, [], 'no CSP block, failed request or script error');

  await page.goto(`${origin}/`, { waitUntil: 'load' });
  t.equal(await page.$eval('main section h2', (h2) => h2.textContent), 'Updated since you last read', 'the first section of the home page');
  t.equal(await page.$eval('#home-updated + .story-grid a.new-chapters', (a) => a.textContent), '1 new chapter of Story 01 with a rather long title to wrap');
  // hx-boost turns the click into a fetch and a history entry: wait for the address it names,
  // not for the first navigation event (twice in clean-clone CI runs that one left the page at /).
  const reader = `/stories/${ids[1]!.id}/read/2`;
  await page.click('#home-updated + .story-grid a.new-chapters');
  await page.waitForFunction(`location.pathname === '${reader}' && document.querySelector('main') !== null`);
  t.equal(new URL(page.url()).pathname, reader, 'the card opens the first new chapter in the reader');

  // Without JavaScript: the GET form and the paging links are plain navigation.
  const context = await browser.createBrowserContext();
  t.teardown(() => context.close());
  const noJs = await context.newPage();
  await noJs.setJavaScriptEnabled(false);
  await noJs.setCookie({ name: 'token', value: ctx.token, domain: hostname, path: '/' });
  await noJs.goto(`${origin}/library`, { waitUntil: 'load' });
  await noJs.select('#library-sort', 'title');
  await noJs.select('#library-dir', 'asc');
  await noJs.select('#library-rating', '3');
  await Promise.all([noJs.waitForNavigation(), noJs.click('.library-controls button[type="submit"]')]);
  const url = new URL(noJs.url());
  t.equal(url.searchParams.get('sortBy'), 'title');
  t.equal(url.searchParams.get('minRating'), '3');
  const first = (await noJs.$$eval('.card-title a', (links) => links.map((a) => a.textContent))) as string[];
  t.equal(first.length, 15, 'ratings 3, 4 and 5: 15 of the 25 stories');
  t.match(first[0], /^Story 02/);
  t.equal(await noJs.$('a[rel="next"]'), null, 'one page of 15 at size 20');
  await noJs.goto(`${origin}${url.pathname}${url.search}&size=10`, { waitUntil: 'load' });
  await Promise.all([noJs.waitForNavigation(), noJs.click('a[rel="next"]')]);
  const next = new URL(noJs.url());
  t.equal(next.searchParams.get('page'), '1');
  t.equal(next.searchParams.get('minRating'), '3', 'the filter survives paging');
  t.equal((await noJs.$$('.card-title a')).length, 5);

  // Keyboard: the layout toggle is reachable and works (with JavaScript, through htmx).
  await page.goto(`${origin}/library`, { waitUntil: 'load' });
  await page.focus('.view-toggle a:nth-of-type(2)');
  await Promise.all([page.waitForSelector('table.story-table'), page.keyboard.press('Enter')]);
  t.ok(await page.$('table.story-table'), 'Enter on "List" shows the table');
});
