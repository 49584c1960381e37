import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { Page } from 'puppeteer-core';
import { buildTestApp } from '../helpers/app.js';
import { expectNoAxeViolations, inEveryTheme } from '../helpers/axe.js';
import { COVER_PREVIEW_LOADED, launchBrowser, serveOnLan, watchedPage } from '../helpers/browser.js';
import { png } from '../helpers/images.js';

const browser = await launchBrowser();

async function logIn(page: Page, origin: string, token: string): Promise<void> {
  await page.setCookie({ name: 'token', value: token, domain: new URL(origin).hostname, path: '/' });
}

async function noHorizontalScroll(t: Test, page: Page, label: string): Promise<void> {
  const widths = (await page.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth]')) as [number, number];
  t.ok(widths[0] <= widths[1], `${label}: no horizontal scroll at 320 px (${widths[0]} <= ${widths[1]})`);
}

/** Each page as its `load` shows it: no axe violation in any theme, and no horizontal scroll at 320 px. */
async function checkPages(t: Test, page: Page, origin: string, pages: Array<[string, () => Promise<void>]>): Promise<void> {
  for (const [label, load] of pages) {
    await inEveryTheme(page, origin, load, async (theme) => expectNoAxeViolations(t, page, `${label} (${theme})`));
    await page.setViewport({ width: 320, height: 640 });
    await load();
    await noHorizontalScroll(t, page, label);
    await page.setViewport({ width: 1024, height: 768 });
  }
}

t.test('create a story with a cover through the form, then edit it; axe in every theme; 320 px', async (t) => {
  const ctx = await buildTestApp(t);
  const origin = await serveOnLan(ctx.app);
  const { page, problems } = await watchedPage(t, browser, origin);
  await logIn(page, origin, ctx.token);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'storyshelf-cover-'));
  const coverFile = path.join(dir, 'cover.png');
  writeFileSync(coverFile, png());

  await page.goto(`${origin}/stories/new`, { waitUntil: 'load' });
  await page.type('#story-title', 'Browser story');
  await page.type('#story-author', 'Browser Author');
  await page.type('#story-tags', 'one, two');
  await page.type('#story-body', '<p>Hello <em>world</em></p>');
  const input = await page.$('#story-cover');
  await (input as NonNullable<typeof input>).uploadFile(coverFile);
  const previewShown = await page.waitForFunction(COVER_PREVIEW_LOADED).then(() => true, () => false);
  t.ok(previewShown, 'the chosen image is previewed');
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }).catch(() => undefined), page.click('button[value="save"]')]);
  await page.waitForFunction('/\\/stories\\/[0-9a-f-]{36}$/.test(location.pathname)');
  const id = (await page.evaluate('location.pathname.split("/")[2]')) as string;
  let story = (await ctx.get(`/api/stories/${id}`)).json();
  t.equal(story.title, 'Browser story', 'landed on the new story');
  t.equal(story.authorName, 'Browser Author');
  t.match(story.coverPath, /^covers\//, 'the cover was uploaded');

  await page.goto(`${origin}/stories/${id}/edit`, { waitUntil: 'load' });
  t.equal(await page.$eval('#story-title', (el) => (el as unknown as { value: string }).value), 'Browser story', 'prefilled');
  await page.$eval('#story-title', (el) => ((el as unknown as { value: string }).value = ''));
  await page.type('#story-title', 'Edited in the browser');
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }).catch(() => undefined), page.click('button[value="save"]')]);
  await page.waitForFunction(`location.pathname === '/stories/${id}'`);
  story = (await ctx.get(`/api/stories/${id}`)).json();
  t.equal(story.title, 'Edited in the browser', 'the edit was saved');
  await page.goto(`${origin}/stories/${id}/edit`, { waitUntil: 'load' });
  t.equal(await page.$eval('#story-title', (el) => (el as unknown as { value: string }).value), 'Edited in the browser', 'and is shown');

  // A dropped file fills the input (a synthetic DataTransfer, as a drag from the desktop gives).
  await page.goto(`${origin}/stories/new`, { waitUntil: 'load' });
  const dropped = await page.evaluate(`(() => {
    const zone = document.querySelector('[data-dropzone]');
    const bytes = Uint8Array.from(atob('${png().toString('base64')}'), (c) => c.charCodeAt(0));
    const transfer = new DataTransfer();
    transfer.items.add(new File([bytes], 'dropped.png', { type: 'image/png' }));
    zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    const input = document.querySelector('#story-cover');
    return [input.files.length, input.files[0] && input.files[0].name];
  })()`);
  t.same(dropped, [1, 'dropped.png'], 'the drop filled the file input');
  const dropPreview = await page.waitForSelector('[data-dropzone-preview]:not([hidden])').then(() => true, () => false);
  t.ok(dropPreview, 'and showed a preview');

  const author = (await ctx.post('/api/authors', { name: 'Axe Author' })).json() as { id: string };
  await ctx.post('/api/tags', { name: 'axe-tag' });
  const pages: Array<[string, () => Promise<void>]> = [
    ['/stories/new', async () => void (await page.goto(`${origin}/stories/new`, { waitUntil: 'load' }))],
    [
      'the edit page with errors',
      async () => {
        await page.goto(`${origin}/stories/${id}/edit`, { waitUntil: 'load' });
        await page.$eval('#story-title', (el) => ((el as unknown as { value: string }).value = ' '));
        await page.$eval('#story-volume', (el) => ((el as unknown as { value: string }).value = 'x'));
        await page.$eval('#story-source', (el) => ((el as unknown as { value: string }).value = 'nope'));
        await page.$eval('form[enctype]', (el) => (el as unknown as { noValidate: boolean }).noValidate = true);
        await Promise.all([page.waitForNavigation({ waitUntil: 'load' }).catch(() => undefined), page.click('button[value="save"]')]);
        await page.waitForSelector('.error-summary');
      },
    ],
    [
      'the URL import box with a refusal',
      async () => {
        await page.goto(`${origin}/stories/new`, { waitUntil: 'load' });
        await page.type('#import-url', 'http://127.0.0.1:9/private');
        await Promise.all([page.waitForNavigation({ waitUntil: 'load' }).catch(() => undefined), page.click('form[action="/stories/import"] button[type="submit"]')]);
        await page.waitForSelector('#import-url-error');
      },
    ],
    [`/authors/${author.id}/edit`, async () => void (await page.goto(`${origin}/authors/${author.id}/edit`, { waitUntil: 'load' }))],
    ['/tags', async () => void (await page.goto(`${origin}/tags`, { waitUntil: 'load' }))],
  ];
  await checkPages(t, page, origin, pages);
  t.equal(await page.$$eval('.error-summary a', (links) => links.length), 0, 'the last page shown has no errors');
  t.same(problems, [], 'no CSP block, failed request or page error');
});

t.test('the chapter editor: edit a chapter from the edit page; axe on its pages in every theme; 320 px', async (t) => {
  const ctx = await buildTestApp(t);
  const origin = await serveOnLan(ctx.app);
  const { page, problems } = await watchedPage(t, browser, origin);
  await logIn(page, origin, ctx.token);
  const chapters = [
    { title: 'One', contentHtml: '<p>First night.</p>' },
    { title: 'A chapter title long enough to wrap on the narrowest of phone screens', contentHtml: '<p>Second night.</p>' },
  ];
  const { id } = (await ctx.post('/api/stories', { title: 'Nights', chapters })).json() as { id: string };
  const single = (await ctx.post('/api/stories', { title: 'Single', contentHtml: '<p>Alone.</p>' })).json() as { id: string };

  await page.goto(`${origin}/stories/${id}/edit`, { waitUntil: 'load' });
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }).catch(() => undefined), page.click(`#chapters a[href="/stories/${id}/chapters/2/edit"]`)]);
  await page.waitForSelector('#chapter-title');
  t.equal(await page.$eval('#chapter-body', (el) => (el as unknown as { value: string }).value), '<p>Second night.</p>', 'the chapter page is prefilled');
  await page.$eval('#chapter-body', (el) => ((el as unknown as { value: string }).value = ''));
  await page.type('#chapter-body', '<p>Second night, rewritten in the browser.</p>');
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }).catch(() => undefined), page.click('button[value="save"]')]);
  await page.waitForSelector('#chapters-notice');
  t.equal(new URL(page.url()).pathname, `/stories/${id}/edit`, 'back on the edit page');
  const chapter = (await ctx.get(`/api/stories/${id}/chapters/2`)).json() as { contentHtml: string };
  t.equal(chapter.contentHtml, '<p>Second night, rewritten in the browser.</p>', 'the chapter was saved');

  const pages: Array<[string, () => Promise<void>]> = [
    ["the edit page's chapters section, with its notice", async () => void (await page.goto(`${origin}/stories/${id}/edit?chapters=saved`, { waitUntil: 'load' }))],
    ['a chapter edit page', async () => void (await page.goto(`${origin}/stories/${id}/chapters/1/edit`, { waitUntil: 'load' }))],
    [
      'a chapter edit page with errors',
      async () => {
        await page.goto(`${origin}/stories/${id}/chapters/1/edit`, { waitUntil: 'load' });
        await page.$eval('#chapter-body', (el) => ((el as unknown as { value: string }).value = ' '));
        await Promise.all([page.waitForNavigation({ waitUntil: 'load' }).catch(() => undefined), page.click('button[value="save"]')]);
        await page.waitForSelector('.error-summary');
      },
    ],
    ['the new chapter page', async () => void (await page.goto(`${origin}/stories/${id}/chapters/new`, { waitUntil: 'load' }))],
    ['a chapter delete confirmation', async () => void (await page.goto(`${origin}/stories/${id}/chapters/2/delete`, { waitUntil: 'load' }))],
    ['the refusal to delete an only chapter', async () => void (await page.goto(`${origin}/stories/${single.id}/chapters/1/delete`, { waitUntil: 'load' }))],
    ["a one-chapter story's edit page", async () => void (await page.goto(`${origin}/stories/${single.id}/edit`, { waitUntil: 'load' }))],
  ];
  await checkPages(t, page, origin, pages);
  t.same(problems, [], 'no CSP block, failed request or page error');
});

/** An app served on the LAN and a logged-in page of a fresh browser context with JavaScript off. */
async function withoutJavaScript(t: Test) {
  const ctx = await buildTestApp(t);
  const origin = await serveOnLan(ctx.app);
  const context = await browser.createBrowserContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await page.setJavaScriptEnabled(false);
  await logIn(page, origin, ctx.token);
  return { ctx, origin, page };
}

t.test('with JavaScript off a story can be created', async (t) => {
  const { ctx, origin, page } = await withoutJavaScript(t);
  await page.goto(`${origin}/stories/new`, { waitUntil: 'load' });
  await page.type('#story-title', 'No JS story');
  await page.type('#story-body', 'Plain words');
  await page.click('input[name="bodyFormat"][value="text"]');
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[value="preview"]')]);
  t.equal(await page.$eval('.edit-form__preview-body', (el) => el.innerHTML.trim()), '<p>Plain words</p>', 'Preview works without JavaScript');
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[value="save"]')]);
  t.match(new URL(page.url()).pathname, /^\/stories\/[0-9a-f-]{36}$/, 'landed on the story');
  const list = (await ctx.get('/api/stories')).json() as { content: Array<{ title: string; contentHtml: string }> };
  t.same(list.content.map((story) => [story.title, story.contentHtml]), [['No JS story', '<p>Plain words</p>']]);
});

t.test('with JavaScript off a chapter can be added, edited and deleted', async (t) => {
  const { ctx, origin, page } = await withoutJavaScript(t);
  const { id } = (await ctx.post('/api/stories', { title: 'Single', contentHtml: '<p>Alone.</p>' })).json() as { id: string };
  const submit = (selector: string) => Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);

  await page.goto(`${origin}/stories/${id}/edit`, { waitUntil: 'load' });
  await submit(`#chapters a[href="/stories/${id}/chapters/new"]`);
  await page.type('#chapter-title', 'Second');
  await page.type('#chapter-body', 'More words');
  await page.click('input[name="bodyFormat"][value="text"]');
  await submit('button[value="save"]');
  t.equal(await page.$eval('#chapters-notice', (el) => el.textContent), 'Chapter added.', 'back on the edit page, told so');
  await submit(`#chapters a[href="/stories/${id}/chapters/2/edit"]`);
  await page.$eval('#chapter-title', (el) => ((el as unknown as { value: string }).value = 'Second, renamed'));
  await submit('button[value="save"]');
  t.equal(await page.$eval('#chapters-notice', (el) => el.textContent), 'Chapter saved.');
  await submit(`#chapters a[href="/stories/${id}/chapters/1/delete"]`);
  await submit('form.delete-confirm button[type="submit"]');
  t.match(await page.$eval('#chapters-notice', (el) => el.textContent), /deleted/);
  const chapters = (await ctx.get(`/api/stories/${id}/chapters`)).json() as Array<{ title: string }>;
  t.same(chapters.map((chapter) => chapter.title), ['Second, renamed'], 'added, renamed, and the first one deleted');
  t.equal((await ctx.get(`/api/stories/${id}`)).json().contentHtml, '<h2>Second, renamed</h2>\n<p>More words</p>');
});
