/**
 * The whole web interface in one sitting, in a real Chromium at a LAN address: what a person who
 * has never seen the API does (docs/web.md, "Testing"). Log in through the form, browse the
 * library, read, change the font size, pick the story up on a second device at the same place,
 * search with a tag filter, add a story with a cover, edit it, delete it; the same pages at phone
 * size; then every page that shows a name, with names that are script payloads.
 *
 * With `STORYSHELF_SCREENSHOTS=<dir>` it also saves the README's screenshots there.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import t, { type Test } from 'tap';
import type { Page } from 'puppeteer-core';
import { buildTestApp, TEST_PASSWORD, type TestContext } from '../helpers/app.js';
import { COVER_PREVIEW_LOADED, launchBrowser, serveOnLan, watchedPage } from '../helpers/browser.js';
import { fileUpload } from '../helpers/multipart.js';

const browser = await launchBrowser();
const SCREENSHOTS = process.env.STORYSHELF_SCREENSHOTS;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A cover: a vertical gradient with a few shapes, 400 × 600, as JPEG (no text: no font needed). */
async function coverImage(hue: number, format: 'jpeg' | 'png' = 'jpeg'): Promise<Buffer> {
  const a = `hsl(${hue}, 55%, 42%)`;
  const b = `hsl(${(hue + 40) % 360}, 60%, 22%)`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="600">
    <defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${a}"/><stop offset="1" stop-color="${b}"/></linearGradient></defs>
    <rect width="400" height="600" fill="url(#g)"/>
    <circle cx="${120 + (hue % 160)}" cy="190" r="70" fill="hsl(${(hue + 180) % 360}, 70%, 75%)" opacity="0.85"/>
    <path d="M0 470 Q 100 ${400 + (hue % 60)} 200 460 T 400 450 V 600 H 0 Z" fill="hsl(${(hue + 20) % 360}, 40%, 14%)" opacity="0.8"/>
    <rect x="40" y="520" width="320" height="6" fill="#fff" opacity="0.6"/>
  </svg>`;
  const image = sharp(Buffer.from(svg));
  return format === 'png' ? image.png().toBuffer() : image.jpeg({ quality: 82 }).toBuffer();
}

const SENTENCES = [
  'The lamp turned over the bay and the water took its light and gave it back in pieces.',
  'Mara counted the ships that passed, as her father had, and wrote each name in the grey book.',
  'Some nights the fog came in so thick that the beam stopped a hand away from the glass.',
  'She kept the brass bright, trimmed the wick, and listened to the bell buoy talk to itself.',
  'In the morning the gulls sat along the rail like a jury that had not yet reached a verdict.',
];

/** About `words` words of paragraphs: long enough to scroll through on any screen. */
function body(words: number): string {
  const paragraphs: string[] = [];
  let count = 0;
  for (let i = 0; count < words; i += 1) {
    const text = Array.from({ length: 4 }, (_, k) => SENTENCES[(i + k) % SENTENCES.length]).join(' ');
    paragraphs.push(`<p>${text}</p>`);
    count += text.split(' ').length;
  }
  return paragraphs.join('\n');
}

const SHELF: Array<{ title: string; author: string; tags: string[]; series?: [string, number]; words: number; rating?: number; summary: string }> = [
  { title: 'The Lighthouse Keeper’s Daughter', author: 'Ines Calder', tags: ['sea', 'coming of age'], words: 1500, rating: 5, summary: 'A girl, a lamp and a winter of ships.' },
  { title: 'Salt and Iron', author: 'Ines Calder', tags: ['sea', 'adventure'], series: ['The Harbour Years', 1], words: 900, rating: 4, summary: 'The first winter at the harbour.' },
  { title: 'Tidewater', author: 'Ines Calder', tags: ['sea'], series: ['The Harbour Years', 2], words: 700, summary: 'The second winter, and a wreck.' },
  { title: 'A Map of Small Rooms', author: 'Tomas Reyes', tags: ['literary'], words: 600, rating: 3, summary: 'Every flat he ever lived in, drawn from memory.' },
  { title: 'The Clockmaker’s Apprentice', author: 'Odile Marsh', tags: ['fantasy', 'adventure'], words: 800, rating: 4, summary: 'Gears that remember the hands that made them.' },
  { title: 'Night Train to Lisbon', author: 'Tomas Reyes', tags: ['travel'], words: 500, summary: 'Strangers, a dining car, one long night.' },
  { title: 'Orchard', author: 'Odile Marsh', tags: ['literary', 'family'], words: 400, rating: 5, summary: 'Three sisters and the trees their mother planted.' },
  { title: 'The Glass Mountain', author: 'Yusuf Demir', tags: ['fantasy'], words: 650, summary: 'A climb no one has finished.' },
];

/** Seeds the shelf through the API, each story with its own cover; returns the ids by title. */
async function seedShelf(ctx: TestContext): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const [index, story] of SHELF.entries()) {
    const res = await ctx.post('/api/stories', {
      title: story.title,
      authorName: story.author,
      tagNames: story.tags,
      summary: story.summary,
      contentHtml: body(story.words),
      ...(story.series === undefined ? {} : { seriesName: story.series[0], volume: story.series[1] }),
      ...(story.rating === undefined ? {} : { rating: story.rating }),
    });
    if (res.statusCode !== 201) throw new Error(`seeding ${story.title}: ${res.statusCode} ${res.body}`);
    const id = (res.json() as { id: string }).id;
    const upload = fileUpload(await coverImage(index * 43), 'cover.jpg', 'image/jpeg');
    const cover = await ctx.request({ method: 'POST', url: `/api/stories/${id}/cover`, payload: upload.payload, headers: upload.headers });
    if (cover.statusCode !== 200) throw new Error(`cover of ${story.title}: ${cover.statusCode} ${cover.body}`);
    ids.set(story.title, id);
  }
  return ids;
}

async function logIn(page: Page, origin: string, next: string): Promise<void> {
  await page.goto(`${origin}/login?next=${encodeURIComponent(next)}`, { waitUntil: 'load' });
  await page.type('#login-password', TEST_PASSWORD);
  await page.click('form[action="/login"] button[type="submit"]');
  // htmx boosts the form (no full navigation): wait for the address to leave /login.
  for (let i = 0; i < 200 && new URL(page.url()).pathname === '/login'; i++) await pause(50);
  await page.waitForSelector('h1');
}

/** Clicks a link or button and waits until the address (boosted or not) satisfies `arrived`. */
async function follow(page: Page, selector: string, arrived: string): Promise<void> {
  await page.click(selector);
  await page.waitForFunction(arrived);
  await page.waitForSelector('h1');
}

/** The reader's place: how far through the text the top of the window is (0..1). */
const PROGRESS = `(() => {
  const text = document.querySelector('[data-reader-text]');
  const top = text.getBoundingClientRect().top + window.scrollY;
  return (window.scrollY - top) / (text.offsetHeight - window.innerHeight);
})()`;

async function noHorizontalScroll(t: Test, page: Page, label: string): Promise<void> {
  const [scroll, client] = (await page.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth]')) as [number, number];
  t.ok(scroll <= client, `${label}: no horizontal scroll at 375 px (${scroll} <= ${client})`);
}

async function screenshot(page: Page, name: string): Promise<void> {
  if (SCREENSHOTS === undefined) return;
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  // Lazy covers and the web font are in before the picture is taken.
  await page.evaluate(`Promise.all(Array.from(document.images).map((img) => { img.loading = 'eager'; return img.decode().catch(() => undefined); }))`);
  await page.evaluate('document.fonts.ready.then(() => true)');
  await page.screenshot({ path: path.join(SCREENSHOTS, name), type: 'png', optimizeForSpeed: false });
}

t.test('a first-time reader: log in, browse, read on two devices, search, add, edit and delete a story', async (t) => {
  const started = Date.now();
  const ctx = await buildTestApp(t);
  const ids = await seedShelf(ctx);
  const lighthouse = ids.get(SHELF[0]!.title)!;
  const origin = await serveOnLan(ctx.app);
  const { page, problems } = await watchedPage(t, browser, origin);
  await page.setViewport({ width: 1280, height: 800 });
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);

  // Logged out, the library sends to the login form, which returns there.
  await page.goto(`${origin}/library`, { waitUntil: 'load' });
  t.equal(new URL(page.url()).pathname, '/login', 'logged out: the login form');
  await logIn(page, origin, '/library');
  t.equal(new URL(page.url()).pathname, '/library', 'logging in returns to the library');

  // The grid: every story, each with its cover decoded.
  t.equal((await page.$$('.story-grid .story-card')).length, SHELF.length, 'the grid shows every story');
  const covers = (await page.evaluate(
    `Promise.all(Array.from(document.querySelectorAll('.story-card img.cover')).map((img) => { img.loading = 'eager'; return img.decode().then(() => img.naturalWidth, () => 0); }))`,
  )) as number[];
  t.equal(covers.length, SHELF.length, 'every card has a cover');
  t.ok(covers.every((width) => width > 0), `and every cover loaded (${covers.join(', ')} px wide)`);
  await screenshot(page, 'library.png');

  // The story page, then the reader.
  await follow(page, `.card-title a[href="/stories/${lighthouse}"]`, `location.pathname === '/stories/${lighthouse}'`);
  t.equal(await page.$eval('h1', (el) => el.textContent), SHELF[0]!.title, 'the story page');
  t.ok(await page.$('.story-page__cover img'), 'with its cover');
  await follow(page, '.story-page__actions a.button--primary', `location.pathname === '/stories/${lighthouse}/read'`);
  t.ok(await page.$('[data-reader-text] p'), 'the reader shows the text');

  // A bigger font: applied at once, kept across a reload.
  const sizeBefore = (await page.evaluate("getComputedStyle(document.querySelector('[data-reader-text]')).fontSize")) as string;
  await page.click('.reader__settings summary');
  await page.select('#reader-size', 'large');
  await page.waitForFunction(`document.querySelector('[data-reader]').getAttribute('data-size') === 'large'`);
  const sizeAfter = (await page.evaluate("getComputedStyle(document.querySelector('[data-reader-text]')).fontSize")) as string;
  t.not(sizeAfter, sizeBefore, `the text grew (${sizeBefore} -> ${sizeAfter})`);
  await page.reload({ waitUntil: 'load' });
  t.equal(await page.$eval('[data-reader]', (el) => el.getAttribute('data-size')), 'large', 'the font size survives a reload');
  // The README's reader: the top of the text at the chosen size (before reading: scrolling back
  // up later would save that place).
  await screenshot(page, 'reader.png');

  // Read to ~60 %: a wheel turn (a reader's own scroll), then on to 60 %; wait for the save.
  await page.mouse.move(640, 400);
  await page.mouse.wheel({ deltaY: 300 });
  await pause(300);
  await page.evaluate(`(() => {
    const text = document.querySelector('[data-reader-text]');
    const top = text.getBoundingClientRect().top + window.scrollY;
    window.scrollTo(0, top + 0.6 * (text.offsetHeight - window.innerHeight));
  })()`);
  const here = (await page.evaluate(PROGRESS)) as number;
  let saved = { progress: 0 };
  for (let i = 0; i < 100 && Math.abs(saved.progress - here) > 0.01; i++) {
    await pause(100);
    saved = (await ctx.get(`/api/stories/${lighthouse}/progress`)).json() as { progress: number };
  }
  t.ok(Math.abs(here - 0.6) < 0.03, `scrolled to ~60 % (${here.toFixed(3)})`);
  t.ok(Math.abs(saved.progress - here) <= 0.01, `the position was saved (${saved.progress.toFixed(3)})`);

  // A second device: a fresh browser context, its own login, lands where the first stopped.
  const device = await browser.createBrowserContext();
  t.teardown(() => device.close());
  const phone = await device.newPage();
  await phone.setViewport({ width: 1280, height: 800 });
  await logIn(phone, origin, `/stories/${lighthouse}/read`);
  t.equal(new URL(phone.url()).pathname, `/stories/${lighthouse}/read`, 'the second device logged in and opened the reader');
  // Opened afresh, as a bookmark or the library's link would (the login's boosted swap keeps its
  // own scroll handling).
  await phone.goto(`${origin}/stories/${lighthouse}/read`, { waitUntil: 'load' });
  await phone.waitForFunction('window.scrollY > 0');
  const there = (await phone.evaluate(PROGRESS)) as number;
  // It restores the saved block (a paragraph), set in its own font size: within a paragraph or two.
  t.ok(Math.abs(there - saved.progress) < 0.05, `the second device opens at the saved place (${there.toFixed(3)} vs ${saved.progress.toFixed(3)})`);
  t.equal(await phone.$eval('[data-reader]', (el) => el.getAttribute('data-size')), 'medium', 'text settings are per device (its own cookie)');

  // Search through the form, with a tag filter: finds the story, and the filter excludes others.
  await page.goto(`${origin}/search`, { waitUntil: 'load' });
  await page.type('#search-q', 'lamp');
  await page.type('#search-tag-add', 'coming of age');
  await follow(page, '.search-page-form button[type="submit"]', `new URLSearchParams(location.search).get('q') === 'lamp'`);
  await page.waitForSelector('.search-hit__title a');
  const hits = (await page.$$eval('.search-hit__title a', (links) => links.map((a) => a.textContent ?? ''))) as string[];
  t.same(hits, [SHELF[0]!.title], `"lamp" in the tag "coming of age" finds only the lighthouse story (every story says "lamp")`);

  // Add a story with a cover through the form.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storyshelf-journey-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const coverFile = path.join(dir, 'my-cover.png');
  fs.writeFileSync(coverFile, await coverImage(200, 'png'));
  await page.goto(`${origin}/stories/new`, { waitUntil: 'load' });
  await page.type('#story-title', 'My Own Story');
  await page.type('#story-author', 'Me Myself');
  await page.type('#story-tags', 'mine, draft');
  await page.click('input[name="bodyFormat"][value="text"]');
  await page.type('#story-body', 'It was a dark and quiet evening.\n\nThe end.');
  const input = await page.$('#story-cover');
  await input!.uploadFile(coverFile);
  await page.waitForFunction(COVER_PREVIEW_LOADED);
  await page.click('button[value="save"]');
  await page.waitForFunction('/^\\/stories\\/[0-9a-f-]{36}$/.test(location.pathname)');
  await page.waitForSelector('h1');
  const mine = new URL(page.url()).pathname.split('/')[2]!;
  t.equal(await page.$eval('h1', (el) => el.textContent), 'My Own Story', 'the new story page');
  const coverWidth = (await page.$eval('.story-page__cover img', (img) => (img as unknown as { decode(): Promise<void>; naturalWidth: number }).decode().then(
    () => (img as unknown as { naturalWidth: number }).naturalWidth,
  ))) as number;
  t.ok(coverWidth > 0, `with the uploaded cover (${coverWidth} px)`);

  // Edit its title.
  await follow(page, `.story-page__actions a[href="/stories/${mine}/edit"]`, `location.pathname === '/stories/${mine}/edit'`);
  await page.$eval('#story-title', (el) => ((el as unknown as { value: string }).value = ''));
  await page.type('#story-title', 'My Own Story, Revised');
  await page.click('button[value="save"]');
  await page.waitForFunction(`location.pathname === '/stories/${mine}' && document.querySelector('h1')?.textContent === 'My Own Story, Revised'`);
  t.pass('the edited title is shown');

  // Delete it through the confirmation page: gone from its address and from the library.
  await follow(page, `.story-page__actions a[href="/stories/${mine}/delete"]`, `location.pathname === '/stories/${mine}/delete'`);
  await page.click('.delete-confirm button[type="submit"]');
  await page.waitForFunction(`location.pathname !== '/stories/${mine}/delete'`);
  const gone = await page.goto(`${origin}/stories/${mine}`, { waitUntil: 'load' });
  t.equal(gone?.status(), 404, 'the deleted story is a 404 page');
  t.ok(await page.$('h1'), 'an error page with a heading');
  await page.goto(`${origin}/library?size=100`, { waitUntil: 'load' });
  const titles = (await page.$$eval('.card-title a', (links) => links.map((a) => a.textContent ?? ''))) as string[];
  t.notOk(titles.some((title) => title.startsWith('My Own Story')), 'and not in the library');
  t.equal(titles.length, SHELF.length, 'which holds the shelf as it was');

  // The same pages on a phone: nothing wider than the screen.
  await page.setViewport({ width: 375, height: 667, isMobile: true, hasTouch: true });
  for (const url of ['/', '/library', `/stories/${lighthouse}`, `/stories/${lighthouse}/read`, '/search?q=lamp&tags=sea', '/stories/new', `/stories/${lighthouse}/edit`, `/stories/${lighthouse}/delete`]) {
    await page.goto(`${origin}${url}`, { waitUntil: 'load' });
    await noHorizontalScroll(t, page, url);
  }
  await page.goto(`${origin}/stories/${lighthouse}/read`, { waitUntil: 'load' });
  await page.evaluate('window.scrollTo(0, 0)');
  await screenshot(page, 'reader-phone.png');

  t.same(problems, [], 'no CSP violation, failed request or script error on any page');
  t.comment(`journey took ${((Date.now() - started) / 1000).toFixed(1)} s`);
});

// ---------------------------------------------------------------------------------------------
// XSS: names that are payloads, on every page that shows them.

const SCRIPT = '<script>alert(1)</script>';
const IMG = '<img src=x onerror=alert(1)>';
const ATTR = '" autofocus onfocus="alert(1)';

async function visible(page: Page): Promise<string> {
  return (await page.evaluate('document.body.innerText')) as string;
}

t.test('names made of script and event-handler payloads are shown as text on every page; no dialog opens', async (t) => {
  const ctx = await buildTestApp(t);
  const storyTitle = `Title ${SCRIPT} ${IMG} ${ATTR}`;
  const authorName = `Author ${IMG} ${ATTR}`;
  const seriesName = `Series ${ATTR} ${SCRIPT}`;
  const tagName = `tag ${SCRIPT} ${IMG}`;
  const summary = `Summary ${SCRIPT} ${ATTR}`;
  const created = await ctx.post('/api/stories', {
    title: storyTitle,
    authorName,
    seriesName,
    volume: 1,
    tagNames: [tagName],
    summary,
    contentHtml: `<p>alert words ${SCRIPT}<img src=x onerror=alert(1)><a href="javascript:alert(1)">link</a></p>`,
  });
  t.equal(created.statusCode, 201, 'the API stores payload names (they are just text)');
  const story = created.json() as { id: string; authorId: string; seriesId: string; tags: Array<{ name: string }> };
  const storedTag = story.tags[0]!.name;
  t.equal(storedTag, tagName, 'the tag name is kept as given (already lower case)');
  // The API refuses a javascript: source URL; a library written before that rule could hold one.
  const sqlite = new Database(path.join(ctx.dataDir, 'library.db'));
  sqlite.prepare('UPDATE stories SET source_url = ? WHERE id = ?').run('javascript:alert(1)', story.id);
  sqlite.close();
  await ctx.put(`/api/stories/${story.id}/progress`, { progress: 0.25, position: null });

  const origin = await serveOnLan(ctx.app);
  const { page, problems } = await watchedPage(t, browser, origin);
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await page.setCookie({ name: 'token', value: ctx.token, domain: new URL(origin).hostname, path: '/' });

  const shown: Array<[string, string[]]> = [
    ['/', [storyTitle]],
    ['/library', [storyTitle, authorName, seriesName, tagName]],
    ['/library?view=list', [storyTitle, authorName, seriesName, tagName]],
    [`/stories/${story.id}`, [storyTitle, authorName, seriesName, tagName, summary, 'javascript:alert(1)']],
    [`/stories/${story.id}/read`, [storyTitle, authorName]],
    [`/stories/${story.id}/delete`, [storyTitle]],
    [`/authors/${story.authorId}`, [authorName, storyTitle]],
    [`/series/${story.seriesId}`, [seriesName, storyTitle]],
    [`/tags/${encodeURIComponent(storedTag)}`, [tagName, storyTitle]],
    ['/tags', [tagName]],
    ['/search?q=alert', [storyTitle]],
    [`/search?q=alert&tags=${encodeURIComponent(storedTag)}&authors=${encodeURIComponent(authorName)}`, [storyTitle, tagName, authorName]],
  ];
  for (const [url, texts] of shown) {
    const response = await page.goto(`${origin}${url}`, { waitUntil: 'load' });
    t.equal(response?.status(), 200, `${url}: 200`);
    // Focus moves through every control: an injected autofocus/onfocus would fire here.
    for (let i = 0; i < 15; i++) await page.keyboard.press('Tab');
    const text = await visible(page);
    for (const expected of texts) t.ok(text.includes(expected), `${url} shows ${JSON.stringify(expected)} as text`);
    t.equal(await page.$$eval('a[href^="javascript:" i]', (links) => links.length), 0, `${url}: no javascript: link`);
    t.equal((await page.$$('img[src="x"]')).length, 0, `${url}: no injected image`);
  }

  // The edit forms hold the names as field values.
  await page.goto(`${origin}/stories/${story.id}/edit`, { waitUntil: 'load' });
  const values = (await page.evaluate(`['#story-title', '#story-author', '#story-series', '#story-tags', '#story-summary'].map((s) => document.querySelector(s).value)`)) as string[];
  t.same(values, [storyTitle, authorName, seriesName, tagName, summary], 'the story form shows every payload as its value');
  await page.goto(`${origin}/authors/${story.authorId}/edit`, { waitUntil: 'load' });
  t.equal(await page.$eval('#author-name', (el) => (el as unknown as { value: string }).value), authorName, 'the author form too');

  // The suggestions under the search box (an htmx fragment).
  await page.goto(`${origin}/library`, { waitUntil: 'load' });
  await page.type('#site-search-q', 'alert');
  await page.waitForSelector('#site-search-suggestions li');
  const suggested = (await page.$eval('#site-search-suggestions', (el) => (el as unknown as { innerText: string }).innerText)) as string;
  t.ok(suggested.includes(storyTitle) || suggested.includes(authorName) || suggested.includes(tagName), `the suggestions show a payload as text (${JSON.stringify(suggested.slice(0, 120))})`);
  t.equal((await page.$$('#site-search-suggestions img, #site-search-suggestions script')).length, 0, 'and no element from it');

  t.same(dialogs, [], 'no dialog ever opened');
  t.same(problems, [], 'no CSP violation, failed request or script error');
});

