import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { tempDataDir } from '../helpers/app.js';
import { buildWebTestApp, type WebTestContext } from '../helpers/web.js';
import { launchBrowser, serveOnLan, watchedPage } from '../helpers/browser.js';
import { expectAccessiblePages } from '../helpers/axe.js';
import { fanficEpub } from '../helpers/import.js';

// The process's one browser (several files share it); each test has its own app and page.
const browser = await launchBrowser();

async function loggedIn(t: Test, ctx: WebTestContext) {
  const origin = await serveOnLan(ctx.app);
  const watched = await watchedPage(t, browser, origin);
  await watched.page.setCookie({ name: 'token', value: ctx.token, domain: new URL(origin).hostname, path: '/' });
  return { origin, ...watched };
}

t.test('files chosen in the form are imported and the job page follows the progress by itself', async (t) => {
  const ctx = await buildWebTestApp(t);
  const folder = tempDataDir(t);
  const epub = path.join(folder, 'book.epub');
  const text = path.join(folder, 'note.txt');
  fs.writeFileSync(epub, await fanficEpub());
  fs.writeFileSync(text, 'A short note.');
  const { origin, page, problems } = await loggedIn(t, ctx);
  await page.goto(`${origin}/import`, { waitUntil: 'load' });
  const input = await page.$('#import-files');
  await (input as unknown as { uploadFile(...files: string[]): Promise<void> }).uploadFile(epub, text);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }).catch(() => undefined), page.click('form[action="/import"] button[type="submit"]')]);
  await page.waitForFunction("document.querySelector('#job-progress')?.textContent?.includes('Finished') === true").catch(async (error: unknown) => {
    t.comment(page.url(), (await page.content()).slice(0, 3000), problems);
    throw error;
  });
  t.match(new URL(page.url()).pathname, /^\/jobs\/[0-9a-f-]{36}$/);
  t.match(await page.$eval('#job-progress p', (element) => element.textContent), /Finished: 2 of 2 files \(2 imported, 0 failed\)/);
  const titles = (await ctx.get('/api/stories?size=10')).json().content.map((story: { title: string }) => story.title).sort();
  t.same(titles, ['The Long Way Home', 'note']);
  await expectAccessiblePages(t, page, origin, ['/import', new URL(page.url()).pathname]);
  t.same(problems, []);
});
