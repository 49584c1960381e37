import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { buildTestApp, tempDataDir, TEST_PASSWORD } from '../helpers/app.js';
import { launchBrowser, serveOnLan, watchedPage } from '../helpers/browser.js';
import { png } from '../helpers/images.js';

// The process's one browser (several files share it); each test has its own app and page.
const browser = await launchBrowser();

interface OpenApiDocument {
  info: { title: string };
  paths: Record<string, Record<string, unknown>>;
}

t.test('/docs renders in a real browser at a LAN host name over plain HTTP', async (t) => {
  const { app } = await buildTestApp(t);
  const origin = await serveOnLan(app);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenApiDocument;
  const operations = Object.values(doc.paths).reduce((sum, methods) => sum + Object.keys(methods).length, 0);

  const { page, problems } = await watchedPage(t, browser, origin);
  await page.goto(`${origin}/docs`, { waitUntil: 'load' });
  const rendered = await page
    .waitForSelector('.opblock')
    .then(() => true)
    .catch(() => false);
  t.ok(rendered, 'Swagger UI rendered the operations');

  const title = await page.$eval('.info .title', (element) => element.textContent ?? '').catch(() => '');
  t.match(title, doc.info.title, 'the info title is shown');
  t.equal(await page.$$eval('.opblock', (blocks) => blocks.length), operations, `all ${operations} operations are shown`);
  t.same(problems, [], 'nothing was upgraded to https, blocked by the CSP, or thrown');
});

t.test('an upload operation in /docs offers a file input and uploads the chosen file', async (t) => {
  const { app } = await buildTestApp(t);
  const origin = await serveOnLan(app);
  const { page, problems } = await watchedPage(t, browser, origin);
  await page.goto(`${origin}/docs`, { waitUntil: 'load' });
  // The page's own fetch sets the login cookie, as a user logging in elsewhere on the site would.
  const login = await page.evaluate(async (password) => {
    const res = await fetch('/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ password }),
    });
    return res.status;
  }, TEST_PASSWORD);
  t.equal(login, 200, 'logged in');

  // Swagger UI's deep-link ids are operations-<tag>-<operationId>.
  const block = '#operations-files-postFilesUploadCover';
  await page.waitForSelector(`${block} .opblock-summary`);
  await page.click(`${block} .opblock-summary`);
  await page.waitForSelector(`${block} .try-out__btn`);
  await page.click(`${block} .try-out__btn`);
  const input = await page.waitForSelector(`${block} input[type=file]`).catch(() => null);
  t.ok(input, 'a file input after "Try it out"');
  if (input === null) return;

  // A temp folder of its own, not t.testdir(): tap names that folder after the process's command
  // line, every file of the batch with its full path, and with three files in a clone at
  // /home/runner/work/storyshelf/storyshelf the name is 314 bytes, past the 255 a file name may have.
  const dir = tempDataDir(t);
  writeFileSync(path.join(dir, 'cover.png'), png());
  await input.uploadFile(path.join(dir, 'cover.png'));
  const uploaded = page.waitForResponse((res) => res.url() === `${origin}/api/files/upload/cover`);
  await page.click(`${block} .execute`);
  const res = await uploaded;
  t.equal(res.status(), 200, 'the upload from /docs succeeded');
  t.match(await res.json(), { path: /^covers\// }, 'the file is stored as a cover');
  t.same(problems, [], 'no browser problems');
});
