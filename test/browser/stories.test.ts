import fs from 'node:fs';
import t from 'tap';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import type { Test } from 'tap';
import { buildTestApp, TEST_PASSWORD, type TestContext } from '../helpers/app.js';
import { launchBrowser, serveOnLan, watchedPage } from '../helpers/browser.js';
import { expectAccessiblePages, expectNoAxeViolations } from '../helpers/axe.js';
import { createStory } from '../helpers/factories.js';
import { fixtureSite, serve } from '../helpers/fixture-site.js';

// The process's one browser (several files share it); each test has its own app and page.
const browser = await launchBrowser();

const HOSTILE = `<script>alert(1)</script>" onmouseover="alert(1)<img src=x onerror=alert(1)>`;

/** A story long enough to scroll through: 240 paragraphs of ~60 words. */
function longBody(): string {
  const sentence = 'The lantern swung over the quay while the tide came in and the gulls argued about bread. ';
  return Array.from({ length: 240 }, (_, i) => `<p>Paragraph ${i}. ${sentence.repeat(4)}</p>`).join('\n');
}

async function logIn(page: Page, origin: string, next = '/'): Promise<void> {
  await page.goto(`${origin}/login?next=${encodeURIComponent(next)}`, { waitUntil: 'load' });
  await page.type('#login-password', TEST_PASSWORD);
  await page.click('form[action="/login"] button[type="submit"]');
  // With JavaScript on, htmx boosts the form (no full navigation); page.url() follows either way.
  for (let i = 0; i < 100 && new URL(page.url()).pathname === '/login'; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  await page.waitForSelector('h1');
}

/** The reader's own measure of where the page is: the fraction and the first visible block. */
const WHERE = `(() => {
  const text = document.querySelector('[data-reader-text]');
  const top = text.getBoundingClientRect().top + window.scrollY;
  const progress = (window.scrollY - top) / (text.offsetHeight - window.innerHeight);
  const position = Array.from(text.children).findIndex((block) => block.getBoundingClientRect().bottom > 0);
  return { progress, position };
})()`;

async function newContext(t: Test): Promise<BrowserContext> {
  const context = await browser.createBrowserContext();
  t.teardown(() => context.close());
  return context;
}

async function savedProgress(ctx: TestContext, id: string): Promise<{ progress: number; position: string | null; updatedAt: string | null }> {
  return (await ctx.get(`/api/stories/${id}/progress`)).json();
}

t.test('reading position: saved while reading, restored on a second device; font size persists', async (t) => {
  const ctx = await buildTestApp(t);
  const origin = await serveOnLan(ctx.app);
  const story = await createStory(ctx, { title: 'The long tide', contentHtml: longBody(), authorName: 'Ann' });
  const readerUrl = `${origin}/stories/${story.id}/read`;

  const { page, problems } = await watchedPage(t, browser, origin);
  await page.setViewport({ width: 1000, height: 800 });
  await logIn(page, origin, `/stories/${story.id}/read`);
  t.equal(page.url(), readerUrl, 'login returns to the reader');

  // Font size: applied at once by the module, and kept by the cookie across a reload.
  const before = (await page.evaluate("getComputedStyle(document.querySelector('[data-reader-text]')).fontSize")) as string;
  await page.click('.reader__settings summary');
  await page.select('#reader-size', 'x-large');
  t.equal(await page.$eval('[data-reader]', (el) => el.getAttribute('data-size')), 'x-large', 'applied live');
  const after = (await page.evaluate("getComputedStyle(document.querySelector('[data-reader-text]')).fontSize")) as string;
  t.not(after, before, `the text grew (${before} → ${after})`);
  await page.reload({ waitUntil: 'load' });
  t.equal(await page.$eval('[data-reader]', (el) => el.getAttribute('data-size')), 'x-large', 'the server rendered the choice after a reload');
  t.equal(await page.$eval('#reader-size', (el) => (el as unknown as { value: string }).value), 'x-large');
  t.equal((await page.evaluate("getComputedStyle(document.querySelector('[data-reader-text]')).fontSize")) as string, after);

  // Read to the middle: a wheel turn (a reader's scroll), then jump to 50 %.
  await page.mouse.move(500, 400);
  await page.mouse.wheel({ deltaY: 200 });
  await new Promise((resolve) => setTimeout(resolve, 500));
  await page.evaluate(`(() => {
    const text = document.querySelector('[data-reader-text]');
    const top = text.getBoundingClientRect().top + window.scrollY;
    window.scrollTo(0, top + 0.5 * (text.offsetHeight - window.innerHeight));
  })()`);
  let saved = await savedProgress(ctx, story.id);
  for (let i = 0; i < 40 && saved.progress < 0.4; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    saved = await savedProgress(ctx, story.id);
  }
  const here = (await page.evaluate(WHERE)) as { progress: number; position: number };
  t.ok(Math.abs(here.progress - 0.5) < 0.02, `scrolled to ~50 % (${here.progress})`);
  t.ok(Math.abs(saved.progress - here.progress) < 0.01, `GET /api/stories/{id}/progress shows the saved fraction (${saved.progress})`);
  t.equal(saved.position, String(here.position), 'and the first visible block as the position');
  t.ok(await page.$eval('[data-reader]', (el) => el.getAttribute('data-enhanced') === 'true'), 'the reader module ran');
  t.same(problems, [], 'the same-origin PUT passed the cross-site check; nothing blocked or thrown');

  // A second device: a fresh browser context, logged in again, with the same settings cookie unset.
  const context = await newContext(t);
  const other = await context.newPage();
  await other.setViewport({ width: 1000, height: 800 });
  await logIn(other, origin, `/stories/${story.id}`);
  t.equal(await other.$eval('a.button--primary', (el) => el.textContent?.trim()), `Continue (${Math.floor(saved.progress * 100)} %)`, 'the story page offers to continue');
  await other.goto(readerUrl, { waitUntil: 'load' });
  await other.waitForFunction('window.scrollY > 0');
  const there = (await other.evaluate(WHERE)) as { progress: number; position: number };
  t.equal(there.position, Number(saved.position), 'the second device opens at the saved block');
  t.ok(Math.abs(there.progress - saved.progress) < 0.03, `within 3 % of the saved fraction (${there.progress} vs ${saved.progress})`);
  const unchanged = await savedProgress(ctx, story.id);
  t.equal(unchanged.updatedAt, saved.updatedAt, 'restoring is not reading: nothing was saved by opening');
});

t.test('keyboard: [ and ] open the neighbouring volumes; the controls are reachable by Tab', async (t) => {
  const ctx = await buildTestApp(t);
  const origin = await serveOnLan(ctx.app);
  const one = await createStory(ctx, { title: 'Vol one', seriesName: 'Saga', volume: 1, contentHtml: '<p>One</p>' });
  const two = await createStory(ctx, { title: 'Vol two', seriesName: 'Saga', volume: 2, contentHtml: '<p>Two</p>' });
  const { page, problems } = await watchedPage(t, browser, origin);
  await logIn(page, origin, `/stories/${one.id}/read`);
  await page.keyboard.press(']');
  await page.waitForFunction(`location.pathname === '/stories/${two.id}/read'`);
  await page.waitForFunction(`document.querySelector('h1')?.textContent === 'Vol two'`);
  t.pass('] opened the next volume');
  await page.keyboard.press('[');
  await page.waitForFunction(`location.pathname === '/stories/${one.id}/read'`);
  t.pass('[ opened the previous volume');
  const reached = new Set<string>();
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    reached.add((await page.evaluate(`document.activeElement?.id || document.activeElement?.tagName`)) as string);
  }
  t.ok(reached.has('SUMMARY'), 'the settings disclosure is reachable by Tab');
  t.ok(reached.has('A'), 'links are reachable');
  t.same(problems, []);
});

t.test('axe in every theme on the story page, the reader and the delete page; 320 px without horizontal scroll', async (t) => {
  const ctx = await buildTestApp(t);
  const origin = await serveOnLan(ctx.app);
  await createStory(ctx, { title: 'Before', seriesName: 'Long saga name', volume: 1 });
  const story = await createStory(ctx, {
    title: 'A story with a rather long title to wrap on small screens',
    authorName: 'Ann Author',
    seriesName: 'Long saga name',
    volume: 2,
    tagNames: ['adventure', 'sea', 'a-very-long-tag-name-that-should-wrap'],
    summary: 'A summary.',
    description: 'A description.',
    sourceUrl: 'https://example.com/a/very/long/path/that/goes/on/and/on/and/on/without/any/break/at/all',
    rating: 3,
    contentHtml: `${longBody().slice(0, 4000)}<pre>a long preformatted line that is wider than a phone screen by a good margin, surely</pre>`,
  });
  const { page, problems } = await watchedPage(t, browser, origin);
  await logIn(page, origin);
  await expectAccessiblePages(t, page, origin, [`/stories/${story.id}`, `/stories/${story.id}/read`, `/stories/${story.id}/delete`], 1000);
  t.same(problems, []);
});

t.test('axe on the chapter and source sections: every author, facts, tags by kind, contents, the update log; refresh with htmx', async (t) => {
  const ctx = await buildTestApp(t, { IMPORT_ALLOW_HOSTS: '127.0.0.1' });
  const origin = await serveOnLan(ctx.app);
  const otwarchive = (name: string) => fs.readFileSync(new URL(`../fixtures/otwarchive/${name}`, import.meta.url), 'utf8');
  const growing = { html: otwarchive('work-growing-v1.html') };
  const site = await fixtureSite(t, { '/works/1003': (request, response) => serve(growing.html)(request, response) });
  const followed = (await ctx.post('/api/import/url', { url: `${site.origin}/works/1003` })).json() as { id: string };
  const story = await createStory(ctx, {
    title: 'O farol de uma noite muito longa',
    authorNames: ['Ann Author', 'Bea', 'Cy with a-very-long-pseud-that-should-wrap'],
    chapters: Array.from({ length: 12 }, (_, i) => ({ title: i % 3 === 2 ? '' : `Capítulo ${i + 1}`, contentHtml: `<p>Texto ${i + 1}.</p>` })),
    status: 'in-progress',
    language: 'pt-BR',
    publishedAt: '2024-01-05T00:00:00.000Z',
    sourceUpdatedAt: '2024-03-10T00:00:00.000Z',
    tagNames: ['lighthouse keepers', 'ada/tomas', 'mira', 'no archive warnings apply', 'f/m', 'teen and up audiences', 'slow burn', 'mine'],
  });
  const kinds = { 'lighthouse keepers': 'fandom', 'ada/tomas': 'relationship', mira: 'character', 'no archive warnings apply': 'warning', 'f/m': 'category', 'teen and up audiences': 'rating', 'slow burn': 'freeform' };
  for (const [name, kind] of Object.entries(kinds)) ctx.app.db.$client.prepare('UPDATE tags SET kind = ? WHERE name = ?').run(kind, name);
  await ctx.put(`/api/stories/${story.id}/progress`, { progress: 0.2, position: '0', chapter: 3 });

  const { page, problems } = await watchedPage(t, browser, origin);
  await logIn(page, origin, `/stories/${followed.id}`);
  growing.html = otwarchive('work-growing-v2.html');
  await page.click('form.story-page__refresh button[type="submit"]');
  await page.waitForFunction(`document.querySelector('form.story-page__refresh .story-page__notice')?.textContent === '1 new chapter, 1 updated'`);
  t.equal(new URL(page.url()).pathname, `/stories/${followed.id}`, 'htmx followed the redirect back to the story');
  t.equal(await page.$$eval('.story-page__update-log > li', (items) => items.length), 2, 'the new update is listed');

  await expectAccessiblePages(t, page, origin, [`/stories/${story.id}`, `/stories/${followed.id}?refreshed=1.1.0.0`], 1000);

  // A failing source: the page again, with the error by the form, and an address a reload can open.
  const gone = await fixtureSite(t, {});
  ctx.app.db.$client.prepare('UPDATE story_sources SET url = ? WHERE story_id = ?').run(`${gone.origin}/works/1003`, followed.id);
  await page.goto(`${origin}/stories/${followed.id}`, { waitUntil: 'load' });
  await page.click('form.story-page__refresh button[type="submit"]');
  await page.waitForSelector('.story-page__notice--failed:not(:empty)');
  t.match(await page.$eval('.story-page__notice--failed', (el) => el.textContent), /HTTP 404/);
  t.equal(new URL(page.url()).pathname, `/stories/${followed.id}`);
  await expectNoAxeViolations(t, page, 'a failed refresh');
  t.same(problems, []);

  // With JavaScript off the form is a plain POST and a 303 back to the story.
  ctx.app.db.$client.prepare('UPDATE story_sources SET url = ? WHERE story_id = ?').run(`${site.origin}/works/1003`, followed.id);
  const plain = await (await newContext(t)).newPage();
  await plain.setJavaScriptEnabled(false);
  await logIn(plain, origin, `/stories/${followed.id}`);
  await Promise.all([plain.waitForNavigation({ waitUntil: 'load' }), plain.click('form.story-page__refresh button[type="submit"]')]);
  t.equal(plain.url(), `${origin}/stories/${followed.id}?refreshed=0.0.0.0#updates`);
  t.equal(await plain.$eval('form.story-page__refresh .story-page__notice', (el) => el.textContent), 'No changes');
});

t.test('with JavaScript off: rating and delete with confirmation work as plain forms', async (t) => {
  const ctx = await buildTestApp(t);
  const origin = await serveOnLan(ctx.app);
  const story = await createStory(ctx, { title: 'Short-lived', contentHtml: '<p>Bye</p>' });
  const context = await newContext(t);
  const page = await context.newPage();
  await page.setJavaScriptEnabled(false);
  await logIn(page, origin, `/stories/${story.id}`);
  t.equal(page.url(), `${origin}/stories/${story.id}`, await page.$eval('main', (el) => el.textContent ?? ''));

  await page.click('form#rating input[value="5"]');
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('form#rating button[type="submit"]:not([name])')]);
  t.equal((await ctx.get(`/api/stories/${story.id}`)).json().rating, 5, 'the rating form saved');
  t.equal(await page.$eval('form#rating input[checked]', (el) => el.getAttribute('value')), '5');

  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(`a[href="/stories/${story.id}/delete"]`)]);
  t.equal(await page.$eval('h1', (el) => el.textContent), 'Delete story?');
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('a.button')]);
  t.equal(page.url(), `${origin}/stories/${story.id}`, 'cancel goes back to the story');
  t.equal((await ctx.get(`/api/stories/${story.id}`)).statusCode, 200, 'nothing deleted');

  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(`a[href="/stories/${story.id}/delete"]`)]);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('.delete-confirm button[type="submit"]')]);
  t.equal(new URL(page.url()).pathname, '/library', 'the delete went to the library');
  t.equal((await ctx.get(`/api/stories/${story.id}`)).statusCode, 404, 'the story is gone');
});

t.test('hostile title, author and tags are text: no dialog ever opens', async (t) => {
  const ctx = await buildTestApp(t);
  const origin = await serveOnLan(ctx.app);
  const story = await createStory(ctx, {
    title: `T ${HOSTILE}`,
    authorName: `A ${HOSTILE}`,
    seriesName: `S ${HOSTILE}`,
    volume: 1,
    tagNames: [`tag ${HOSTILE}`],
    summary: HOSTILE,
    contentHtml: `<p>Body ${HOSTILE.replace(/</g, '&lt;')}</p><img src=x onerror=alert(2)>`,
  });
  const { page, problems } = await watchedPage(t, browser, origin);
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await logIn(page, origin);
  for (const path of [`/stories/${story.id}`, `/stories/${story.id}/read`, `/stories/${story.id}/delete`]) {
    await page.goto(`${origin}${path}`, { waitUntil: 'load' });
    for (const link of await page.$$('main a, h1')) await link.hover();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await page.goto(`${origin}/stories/${story.id}`, { waitUntil: 'load' });
  t.equal(await page.$eval('h1', (el) => el.textContent), `T ${HOSTILE}`, 'the title is shown as text');
  t.equal(await page.$eval('.story-page__tags a', (el) => el.textContent), `tag ${HOSTILE}`);
  t.equal(await page.$eval('.story-page__byline a', (el) => el.textContent), `A ${HOSTILE}`);
  t.same(dialogs, [], 'no dialog opened');
  t.notOk(problems.some((problem) => problem.startsWith('page error')), 'nothing thrown');
});
