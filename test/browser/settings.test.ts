import t, { type Test } from 'tap';
import type { Page } from 'puppeteer-core';
import { TEST_PASSWORD } from '../helpers/app.js';
import { buildWebTestApp, type WebTestContext } from '../helpers/web.js';
import { launchBrowser, serveOnLan, watchedPage } from '../helpers/browser.js';
import { expectNoAxeViolations, inEveryTheme } from '../helpers/axe.js';

// The process's one browser (several files share it); each test has its own app and page.
const browser = await launchBrowser();

const NEW_PASSWORD = 'a much newer password';

async function loggedIn(t: Test, ctx: WebTestContext) {
  const origin = await serveOnLan(ctx.app);
  const watched = await watchedPage(t, browser, origin);
  await watched.page.setCookie({ name: 'token', value: ctx.token, domain: new URL(origin).hostname, path: '/' });
  return { origin, ...watched };
}

/** Fills the password form and submits it with the keyboard (Enter in the last field). */
async function submitPasswordForm(page: Page, current: string, next: string, confirm: string): Promise<void> {
  await page.type('#settings-current-password', current);
  await page.type('#settings-new-password', next);
  await page.type('#settings-confirm-password', confirm);
  await page.keyboard.press('Enter');
}

const text = (page: Page, selector: string) => page.$eval(selector, (element) => element.textContent ?? '').catch(() => '');

t.test('the password is changed through the form and this browser stays logged in', async (t) => {
  const ctx = await buildWebTestApp(t);
  const { origin, page, problems } = await loggedIn(t, ctx);
  await page.goto(`${origin}/settings`, { waitUntil: 'load' });
  await submitPasswordForm(page, TEST_PASSWORD, NEW_PASSWORD, NEW_PASSWORD);
  await page.waitForSelector('#settings-notice');
  t.match(await text(page, '#settings-notice'), /Password changed/);
  t.equal(new URL(page.url()).pathname, '/settings');

  await page.goto(`${origin}/settings`, { waitUntil: 'load' });
  t.equal(new URL(page.url()).pathname, '/settings', 'still logged in after a full reload');
  t.equal(await text(page, 'h1'), 'Settings');
  const old = await ctx.app.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token: ctx.token } });
  t.equal(old.statusCode, 401, 'the token from before the change is dead');
  t.same(problems, []);
});

t.test('no axe violations in any theme, with a notice and with errors', async (t) => {
  const ctx = await buildWebTestApp(t);
  await ctx.form('/settings/backup', {});
  const { origin, page, problems } = await loggedIn(t, ctx);
  await inEveryTheme(
    page,
    origin,
    async () => {
      await page.goto(`${origin}/settings?changed=1`, { waitUntil: 'load' });
    },
    async (label) => expectNoAxeViolations(t, page, `/settings with a notice and a backup, ${label}`),
  );
  await inEveryTheme(
    page,
    origin,
    async () => {
      await page.goto(`${origin}/settings`, { waitUntil: 'load' });
      // Long enough for the browser's own checks (minlength), refused by the server: the two differ.
      await submitPasswordForm(page, TEST_PASSWORD, NEW_PASSWORD, 'something else');
      await page.waitForSelector('[role="alert"]');
    },
    async (label) => expectNoAxeViolations(t, page, `/settings with errors, ${label}`),
  );
  t.same(problems, []);
});

t.test('at 320 px nothing scrolls sideways, errors and backups included', async (t) => {
  const ctx = await buildWebTestApp(t);
  await ctx.form('/settings/backup', {});
  const { origin, page, problems } = await loggedIn(t, ctx);
  await page.setViewport({ width: 320, height: 800 });
  await page.goto(`${origin}/settings`, { waitUntil: 'load' });
  await submitPasswordForm(page, TEST_PASSWORD, NEW_PASSWORD, 'something else');
  await page.waitForSelector('[role="alert"]');
  const widths = (await page.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth]')) as [number, number];
  t.ok(widths[0] <= widths[1], `scroll width ${widths[0]} fits ${widths[1]}`);
  t.ok(await page.$('.backup-list li'), 'the backup list is on the page');
  t.same(problems, []);
});

t.test('without JavaScript the forms still back up and reindex', async (t) => {
  const ctx = await buildWebTestApp(t);
  const { origin, page, problems } = await loggedIn(t, ctx);
  await page.setJavaScriptEnabled(false);
  await page.goto(`${origin}/settings`, { waitUntil: 'load' });
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('form[action="/settings/backup"] button')]);
  t.match(await text(page, '#settings-notice'), /^Backup \d{4}-.* written\.$/);
  t.equal((await page.$$('.backup-list li')).length, 1, 'the new backup is listed');

  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('form[action="/settings/reindex"] button')]);
  t.match(await text(page, '#settings-notice'), /Reindex started/);
  // The status is a plain link without JavaScript; follow it until the reindex is done.
  let status = await text(page, '#reindex-status');
  for (let i = 0; i < 20 && !/rebuilt/.test(status); i += 1) {
    await page.goto(`${origin}/settings#reindex`, { waitUntil: 'load' });
    status = await text(page, '#reindex-status');
  }
  t.match(status, /Search index rebuilt/);
  t.same(problems, []);
});

t.test('a device token is made from the form, shown once, listed, and the page has no axe violations at any width', async (t) => {
  const ctx = await buildWebTestApp(t);
  const { origin, page, problems } = await loggedIn(t, ctx);
  await page.goto(`${origin}/settings#devices`, { waitUntil: 'load' });
  await page.type('#device-name', 'Kobo Clara with a rather long device name to wrap');
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('form[action="/settings/tokens"] button')]);
  const secret = await text(page, '.token-secret__value');
  t.match(secret, /^sst_[A-Za-z0-9_-]{43}$/, 'the secret is on the page');
  t.equal(new URL(page.url()).search, '', 'and in no URL');
  const api = await ctx.app.inject({ method: 'GET', url: '/api/stories', headers: { authorization: `Bearer ${secret}` } });
  t.equal(api.statusCode, 200, 'it works against the API');
  await inEveryTheme(
    page,
    origin,
    async () => {
      await page.goto(`${origin}/settings#devices`, { waitUntil: 'load' });
    },
    async (label) => expectNoAxeViolations(t, page, `/settings with a device listed, ${label}`),
  );
  await page.setViewport({ width: 320, height: 800 });
  await page.goto(`${origin}/settings#devices`, { waitUntil: 'load' });
  const widths = (await page.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth]')) as [number, number];
  t.ok(widths[0] <= widths[1], `scroll width ${widths[0]} fits ${widths[1]} at 320 px with the device table`);
  t.same(problems, []);
});
