/**
 * The story page's reading-status and favourite controls in Chromium (docs/decisions.md,
 * "Reading status"): set with the mouse and the keyboard through htmx-boosted forms, no CSP
 * report or page error, and axe-clean in every theme with every state shown, on the story page and
 * on the library filtered by them.
 */
import t from 'tap';
import type { Page } from 'puppeteer-core';
import { buildTestApp, TEST_PASSWORD } from '../helpers/app.js';
import { launchBrowser, serveOnLan, watchedPage } from '../helpers/browser.js';
import { expectAccessiblePages } from '../helpers/axe.js';
import { createStory } from '../helpers/factories.js';
import { findReadingState } from '../../src/stories/repository.js';

const browser = await launchBrowser();

async function logIn(page: Page, origin: string, next: string): Promise<void> {
  await page.goto(`${origin}/login?next=${encodeURIComponent(next)}`, { waitUntil: 'load' });
  await page.type('#login-password', TEST_PASSWORD);
  await page.click('form[action="/login"] button[type="submit"]');
  for (let i = 0; i < 100 && new URL(page.url()).pathname === '/login'; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  await page.waitForSelector('h1');
}

t.test('status and favourite set from the story page, with htmx, and the page says so', async (t) => {
  const ctx = await buildTestApp(t);
  const origin = await serveOnLan(ctx.app);
  const story = await createStory(ctx, { title: 'Controls', contentHtml: '<p>Text.</p>' });
  const { page, problems } = await watchedPage(t, browser, origin);
  await logIn(page, origin, `/stories/${story.id}`);

  await page.click('form#reading-status input[value="want-to-read"]');
  await page.click('form#reading-status button[type="submit"]');
  await page.waitForFunction(`document.querySelector('form#reading-status .story-page__notice')?.textContent === 'Status saved.'`);
  t.equal(findReadingState(ctx.app.db, story.id)?.readingStatus, 'want-to-read', 'saved by the click');
  t.equal(await page.$eval('form#reading-status input:checked', (el) => el.getAttribute('value')), 'want-to-read', 'and shown checked');
  t.ok(await page.evaluate(`document.body.hasAttribute('hx-boost')`), 'the page is htmx-boosted');

  // The keyboard alone: arrow keys move the radio choice, Enter submits its form.
  await page.focus('form#reading-status input:checked');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  t.equal(await page.$eval('form#reading-status input:checked', (el) => el.getAttribute('value')), 'finished');
  await page.keyboard.press('Enter');
  await page.waitForFunction(`document.querySelector('form#reading-status .muted')?.textContent?.startsWith('Finished once')`);
  t.match(findReadingState(ctx.app.db, story.id), { readingStatus: 'finished', readCount: 1 });

  await page.click('form#favourite button');
  await page.waitForFunction(`document.querySelector('form#favourite button')?.getAttribute('aria-pressed') === 'true'`);
  t.equal(findReadingState(ctx.app.db, story.id)?.favourite, true, 'marked a favourite');
  t.equal(await page.$eval('form#favourite .story-page__notice', (el) => el.textContent), 'Added to your favourites.');
  await page.click('form#favourite button');
  await page.waitForFunction(`document.querySelector('form#favourite button')?.getAttribute('aria-pressed') === 'false'`);
  t.equal(findReadingState(ctx.app.db, story.id)?.favourite, false, 'and unmarked');
  t.same(problems, [], 'no CSP report, blocked request or page error');
});

t.test('axe in every theme on the story page with each state shown and the library filtered by them; 320 px without horizontal scroll', async (t) => {
  const ctx = await buildTestApp(t);
  const origin = await serveOnLan(ctx.app);
  const plain = await createStory(ctx, { title: 'No status yet' });
  const read = await createStory(ctx, { title: 'Read twice and loved, with a title long enough to wrap on a phone' });
  for (const status of ['finished', 'reading', 'finished']) await ctx.put(`/api/stories/${read.id}/reading-status`, { status });
  await ctx.put(`/api/stories/${read.id}/favourite`, { favourite: true });
  const { page, problems } = await watchedPage(t, browser, origin);
  await logIn(page, origin, '/');
  await ctx.put(`/api/stories/${plain.id}/reading-status`, { status: 'want-to-read' });
  await expectAccessiblePages(t, page, origin, [
    `/stories/${plain.id}`,
    `/stories/${read.id}?status=1&favourite=1`,
    '/library?readingStatus=finished&favourite=true',
    '/library?view=list',
  ]);
  t.same(problems, []);
});
