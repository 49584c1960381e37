import t, { type Test } from 'tap';
import type { Page } from 'puppeteer-core';
import { buildWebTestApp, type WebTestContext } from '../helpers/web.js';
import { createStory } from '../helpers/factories.js';
import { launchBrowser, serveOnLan, watchedPage } from '../helpers/browser.js';
import { expectNoAxeViolations, inEveryTheme } from '../helpers/axe.js';

// The process's one browser (several files share it); each test has its own app and page.
const browser = await launchBrowser();

const TAG = 'wild west';
const TAGGED = 23;

/** A library where "fox" finds 23 tagged stories (two pages) and 2 untagged ones. */
async function library(t: Test): Promise<{ ctx: WebTestContext; origin: string }> {
  const ctx = await buildWebTestApp(t);
  for (let i = 0; i < TAGGED; i += 1) {
    await createStory(ctx, { title: `Fox ${String(i).padStart(2, '0')}`, tagNames: [TAG, 'a-tag-name-long-enough-to-need-wrapping-on-a-phone'], rating: 3, authorName: 'Ann Author', contentHtml: '<p>The quick brown fox.</p>' });
  }
  await createStory(ctx, { title: 'Fox untagged', contentHtml: '<p>Another fox.</p>' });
  await createStory(ctx, { title: 'Dragonfly summer', seriesName: 'Seasons', volume: 1, contentHtml: '<p>No foxes here.</p>' });
  return { ctx, origin: await serveOnLan(ctx.app) };
}

async function logIn(page: Page, origin: string, token: string): Promise<void> {
  await page.setCookie({ name: 'token', value: token, domain: new URL(origin).hostname, path: '/' });
}

const hitTitles = (page: Page) => page.$$eval('.search-hit__title a', (links) => links.map((link) => link.textContent ?? ''));
const pageLinks = (page: Page) => page.$$eval('.search-pages a', (links) => links.map((link) => link.getAttribute('href') ?? ''));

t.test('axe finds nothing on the search page in every theme: empty, with results, with none', async (t) => {
  const { ctx, origin } = await library(t);
  const { page, problems } = await watchedPage(t, browser, origin);
  await logIn(page, origin, ctx.token);
  for (const url of ['/search', `/search?q=fox&tags=${encodeURIComponent(TAG)}`, '/search?q=zzzz']) {
    await inEveryTheme(
      page,
      origin,
      async () => {
        await page.goto(`${origin}${url}`, { waitUntil: 'load' });
      },
      (label) => expectNoAxeViolations(t, page, `${url} (${label})`),
    );
  }
  t.same(problems, [], 'nothing blocked by the CSP (axe runs through the DevTools protocol) or thrown');

  // The suggestions, open, in every theme.
  await inEveryTheme(
    page,
    origin,
    async () => {
      await page.goto(`${origin}/search`, { waitUntil: 'load' });
      await page.waitForFunction('typeof window.htmx !== "undefined"');
      await page.type('#search-q', 'drag');
      await page.waitForSelector('#search-suggestions a');
    },
    (label) => expectNoAxeViolations(t, page, `suggestions open (${label})`),
  );
});

t.test('with JavaScript: suggestions while typing, a tag filter, paging that keeps it', async (t) => {
  const { ctx, origin } = await library(t);
  const { page, problems } = await watchedPage(t, browser, origin);
  await logIn(page, origin, ctx.token);
  await page.goto(`${origin}/search`, { waitUntil: 'load' });
  await page.waitForFunction('typeof window.htmx !== "undefined"');

  await page.type('#search-q', 'drag');
  await page.waitForSelector('#search-suggestions a');
  const suggested = await page.$$eval('#search-suggestions a', (links) => links.map((link) => [link.textContent, link.getAttribute('href')]));
  t.match(suggested, [['Dragonfly summer', '/search?q=Dragonfly+summer']], 'the title is suggested as a link to its search');
  t.same(problems, [], 'typing ran under the page CSP without a block');

  await page.type('#site-search-q', 'dra');
  await page.waitForSelector('#site-search-suggestions a');
  t.ok(await page.$('#site-search-suggestions a'), 'the header box suggests too');

  await page.click('#search-q', { count: 3 });
  await page.type('#search-q', 'fox');
  // The suggestions for “fox” arrive 250 ms after the typing, and push the form down: a click
  // computed before they land hits whatever moved under it (once, on a loaded machine, the
  // submit was missed and the wait below ran out). So the page settles first.
  await page.waitForFunction(`[...document.querySelectorAll('#search-suggestions a')].some((link) => /fox/i.test(link.textContent))`);
  await page.type('#search-tag-add', TAG);
  await page.click('.search-page-form button[type="submit"]');
  await page.waitForFunction(`location.search.includes('tags=') && document.querySelectorAll('.search-hit').length > 0`);
  t.equal(await page.$eval('#search-summary', (element) => element.textContent), `${TAGGED} stories found for “fox”.`, 'only the tagged stories');
  t.notOk((await hitTitles(page)).includes('Fox untagged'));
  t.equal(await page.$eval(`input[name="tags"][value="${TAG}"]`, (input) => (input as unknown as { checked: boolean }).checked), true, 'the filter stays chosen');

  const links = await pageLinks(page);
  t.ok(links.length > 0 && links.every((href) => href.includes('tags=wild+west')), 'every paging link keeps the tag');
  await page.click('.search-pages a[rel="next"]');
  await page.waitForFunction(`location.search.includes('page=1')`);
  await page.waitForSelector('.search-pages a[rel="prev"]');
  t.equal((await hitTitles(page)).length, TAGGED - 20, 'the rest of the tagged stories on page 2');
  t.match(page.url(), /tags=wild\+west/, 'the filter is in the address');
  t.same(problems, [], 'nothing blocked by the CSP or thrown');
});

t.test('without JavaScript the form submits and paging keeps the filter', async (t) => {
  const { ctx, origin } = await library(t);
  const context = await browser.createBrowserContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await page.setJavaScriptEnabled(false);
  await logIn(page, origin, ctx.token);
  await page.goto(`${origin}/search`, { waitUntil: 'load' });
  await page.type('#search-q', 'fox');
  await page.type('#search-tag-add', TAG);
  await page.select('#search-min-rating', '2');
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('.search-page-form button[type="submit"]')]);
  t.equal(await page.$eval('#search-summary', (element) => element.textContent), `${TAGGED} stories found for “fox”.`);
  t.match(page.url(), /minRating=2/);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('.search-pages a[rel="next"]')]);
  t.match(page.url(), /tags=wild\+west/, 'the next page keeps the tag');
  t.match(page.url(), /minRating=2/, 'and the rating');
  t.equal((await hitTitles(page)).length, TAGGED - 20);
});

t.test('at 320 px nothing scrolls sideways', async (t) => {
  const { ctx, origin } = await library(t);
  const { page } = await watchedPage(t, browser, origin);
  await logIn(page, origin, ctx.token);
  await page.setViewport({ width: 320, height: 640 });
  for (const url of ['/search', `/search?q=fox&tags=${encodeURIComponent(TAG)}&authors=Ann+Author`]) {
    await page.goto(`${origin}${url}`, { waitUntil: 'load' });
    const widths = (await page.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth]')) as [number, number];
    t.ok(widths[0] <= widths[1], `${url}: scrollWidth ${widths[0]} fits ${widths[1]}`);
  }
});
