/**
 * The reader of a story in chapters in Chromium (docs/decisions.md, "Story page and reader"):
 * the chapter in the address, next/previous by link and by the arrow keys, the contents, the
 * saved chapter restored on another device, and axe in every theme.
 */
import t from 'tap';
import type { Page } from 'puppeteer-core';
import { buildTestApp, TEST_PASSWORD, type TestContext } from '../helpers/app.js';
import { launchBrowser, serveOnLan, watchedPage } from '../helpers/browser.js';
import { expectAccessiblePages } from '../helpers/axe.js';
import { createStory } from '../helpers/factories.js';

const browser = await launchBrowser();

/** A chapter long enough to scroll through: `n` paragraphs of ~40 words. */
function body(label: string, n: number): string {
  const sentence = 'The lantern swung over the quay while the tide came in and the gulls argued. ';
  return Array.from({ length: n }, (_, i) => `<p>${label} paragraph ${i}. ${sentence.repeat(3)}</p>`).join('\n');
}

const CHAPTERS = [
  { title: 'Low tide', contentHtml: body('First', 40) },
  { title: 'The storm', contentHtml: body('Second', 120) },
  { title: 'Harbour', contentHtml: body('Third', 40) },
];

async function logIn(page: Page, origin: string, next: string): Promise<void> {
  await page.goto(`${origin}/login?next=${encodeURIComponent(next)}`, { waitUntil: 'load' });
  await page.type('#login-password', TEST_PASSWORD);
  await page.click('form[action="/login"] button[type="submit"]');
  for (let i = 0; i < 100 && new URL(page.url()).pathname === '/login'; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  await page.waitForSelector('h1');
}

type Saved = { progress: number; position: string | null; chapter: number | null; updatedAt: string | null };

async function savedWhen(ctx: TestContext, id: string, done: (saved: Saved) => boolean): Promise<Saved> {
  let saved = (await ctx.get(`/api/stories/${id}/progress`)).json() as Saved;
  for (let i = 0; i < 60 && !done(saved); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    saved = (await ctx.get(`/api/stories/${id}/progress`)).json() as Saved;
  }
  return saved;
}

const chapterHeading = `document.querySelector('[data-reader-text] h2')?.textContent`;

t.test('chapters: the address, keys and links, the contents, and the saved chapter on a second device', async (t) => {
  const ctx = await buildTestApp(t);
  const origin = await serveOnLan(ctx.app);
  const story = await createStory(ctx, { title: 'Tides', chapters: CHAPTERS });
  const read = (n: number) => `/stories/${story.id}/read/${n}`;
  const { page, problems } = await watchedPage(t, browser, origin);
  await page.setViewport({ width: 1000, height: 800 });
  await logIn(page, origin, `/stories/${story.id}/read`);
  t.equal(new URL(page.url()).pathname, read(1), 'the old reader address opens chapter 1 of a story never read');

  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(`location.pathname === '${read(2)}'`);
  await page.waitForFunction(`${chapterHeading} === 'The storm'`);
  t.pass('→ opened the next chapter, its address in the bar');
  const saved2 = await savedWhen(ctx, story.id, (s) => s.chapter === 2);
  t.equal(saved2.chapter, 2, 'opening a chapter saves it as the chapter being read');

  await page.click('a[rel="next"][data-reader-chapter-next]');
  await page.waitForFunction(`location.pathname === '${read(3)}'`);
  t.equal(await page.evaluate(chapterHeading), 'Harbour', 'the next link opened chapter 3');
  t.equal(await page.$('[data-reader-chapter-next]'), null, 'the last chapter has no next');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(`location.pathname === '${read(2)}'`);
  t.pass('← opened the previous chapter');

  // The contents: every chapter, the current one marked, a link to another.
  await page.click('.reader__contents summary');
  t.same(await page.$$eval('nav[aria-label="Contents"] a', (links) => links.map((a) => a.textContent)), ['Low tide', 'The storm', 'Harbour']);
  t.equal(await page.$eval('nav[aria-label="Contents"] a[aria-current="page"]', (a) => a.textContent), 'The storm');

  // Read to the middle of chapter 2 (the next link's click above scrolled it to its end and saved that).
  const before = await savedWhen(ctx, story.id, () => true);
  await page.mouse.move(500, 400);
  await page.mouse.wheel({ deltaY: 200 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  await page.evaluate(`(() => {
    const text = document.querySelector('[data-reader-text]');
    const top = text.getBoundingClientRect().top + window.scrollY;
    window.scrollTo(0, top + 0.5 * (text.offsetHeight - window.innerHeight));
  })()`);
  const saved = await savedWhen(ctx, story.id, (s) => s.chapter === 2 && s.updatedAt !== before.updatedAt && Number(s.position) > 10 && Number(s.position) < 110);
  t.equal(saved.chapter, 2);
  t.ok(Number(saved.position) > 10 && Number(saved.position) < 110, `a paragraph in the middle of chapter 2 (${saved.position})`);
  // Chapter 2 is 120 of 200 paragraphs, after 40: half of it is about 100/200 of the work.
  t.ok(Math.abs(saved.progress - 0.5) < 0.05, `progress is the whole work's fraction (${saved.progress})`);
  t.same(problems, []);

  // Another device opens the old address and lands in chapter 2 at the saved paragraph.
  const context = await browser.createBrowserContext();
  t.teardown(() => context.close());
  const other = await context.newPage();
  await other.setViewport({ width: 1000, height: 800 });
  await logIn(other, origin, '/');
  await other.goto(`${origin}/stories/${story.id}/read`, { waitUntil: 'load' });
  t.equal(new URL(other.url()).pathname, read(2), 'the old address opens the saved chapter');
  await other.waitForFunction('window.scrollY > 0');
  const first = (await other.evaluate(
    `Array.from(document.querySelector('[data-reader-text]').children).findIndex((block) => block.getBoundingClientRect().bottom > 0)`,
  )) as number;
  t.equal(first, Number(saved.position), 'at the saved paragraph');
});

t.test('axe in every theme on a chapter page; 320 px without horizontal scroll', async (t) => {
  const ctx = await buildTestApp(t);
  const origin = await serveOnLan(ctx.app);
  const story = await createStory(ctx, { title: 'Tides', chapters: CHAPTERS.map((c) => ({ ...c, contentHtml: body(c.title, 3) })) });
  const { page, problems } = await watchedPage(t, browser, origin);
  await logIn(page, origin, '/');
  await expectAccessiblePages(t, page, origin, [`/stories/${story.id}/read/2`], 1000);
  t.same(problems, []);
});
