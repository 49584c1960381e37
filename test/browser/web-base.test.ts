import t from 'tap';
import { buildTestApp, TEST_PASSWORD } from '../helpers/app.js';
import { launchBrowser, serveOnLan, watchedPage } from '../helpers/browser.js';
import { expectNoAxeViolations, inEveryTheme } from '../helpers/axe.js';

// The browser modules must be built (npm run build); the page works without them, but the
// enhanced theme toggle below needs dist/web/client/theme.js.
const browser = await launchBrowser();

/** Logs in through the form as a reader would: type the password, press Enter. */
async function logInThroughTheForm(page: import('puppeteer-core').Page, origin: string, next = '/'): Promise<void> {
  await page.goto(`${origin}${next}`, { waitUntil: 'load' });
  await page.waitForSelector('#login-password');
  await page.type('#login-password', TEST_PASSWORD);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }).catch(() => undefined), page.keyboard.press('Enter')]);
  await page.waitForFunction(`document.querySelector('h1')?.textContent === 'Welcome'`);
}

t.test('log in through the form at a LAN address, then axe finds nothing in any theme', async (t) => {
  const { app } = await buildTestApp(t);
  const origin = await serveOnLan(app);
  const { page, problems } = await watchedPage(t, browser, origin);
  const console: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warn') console.push(message.text());
  });

  await page.goto(`${origin}/login`, { waitUntil: 'load' });
  await inEveryTheme(page, origin, async () => void (await page.goto(`${origin}/login`, { waitUntil: 'load' })), (label) =>
    expectNoAxeViolations(t, page, `/login, ${label}`),
  );

  await logInThroughTheForm(page, origin);
  t.equal(new URL(page.url()).pathname, '/', 'landed on /');
  const cookies = await page.cookies();
  t.ok(cookies.some((cookie) => cookie.name === 'token' && cookie.httpOnly), 'the HttpOnly token cookie is set');
  await inEveryTheme(page, origin, async () => void (await page.goto(`${origin}/`, { waitUntil: 'load' })), (label) =>
    expectNoAxeViolations(t, page, `/, ${label}`),
  );
  t.same(console, [], 'nothing logged as an error or warning');
  await page.goto(`${origin}/nope`, { waitUntil: 'load' });
  await expectNoAxeViolations(t, page, 'the 404 page');
  t.same(problems, [], 'no CSP violation, failed request or page error');
});

t.test('the theme toggle works with JavaScript off', async (t) => {
  const { app } = await buildTestApp(t);
  const origin = await serveOnLan(app);
  const context = await browser.createBrowserContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await page.setJavaScriptEnabled(false);
  await page.goto(`${origin}/login`, { waitUntil: 'load' });
  t.equal(await page.$eval('html', (html) => html.getAttribute('data-theme')), 'auto');
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[name="theme"][value="dark"]')]);
  t.equal(new URL(page.url()).pathname, '/login', 'back on the same page');
  t.equal(await page.$eval('html', (html) => html.getAttribute('data-theme')), 'dark', 'the server rendered the dark theme');
  const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
  t.equal(background, 'rgb(21, 23, 27)', 'the dark tokens apply');
  t.equal(await page.$eval('button[value="dark"]', (button) => button.getAttribute('aria-pressed')), 'true');

  // Logging in and out work without JavaScript too.
  await page.type('#login-password', TEST_PASSWORD);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('form[action="/login"] button[type="submit"]')]);
  t.equal(await page.$eval('h1', (h1) => h1.textContent), 'Welcome');
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('form[action="/logout"] button')]);
  t.equal(new URL(page.url()).pathname, '/login', 'logged out');
});

t.test('with JavaScript on, the toggle themes the page at once and the choice survives a reload', async (t) => {
  const { app } = await buildTestApp(t);
  const origin = await serveOnLan(app);
  const { page, problems } = await watchedPage(t, browser, origin);
  await logInThroughTheForm(page, origin);
  const enhanced = await page.$eval('form[data-theme-form]', (form) => form.getAttribute('data-enhanced'));
  t.equal(enhanced, 'true', 'the client module enhanced the form');
  const saved = page.waitForResponse((res) => res.url() === `${origin}/theme`);
  // A reload while the response is still being finished would abort it (and count as a problem).
  const finished = new Promise<string>((resolve) => {
    page.on('requestfinished', (request) => request.url() === `${origin}/theme` && resolve('finished'));
    page.on('requestfailed', (request) => request.url() === `${origin}/theme` && resolve(`failed: ${request.failure()?.errorText}`));
  });
  await page.click('button[name="theme"][value="sepia"]');
  t.equal((await saved).status(), 204, 'the choice was posted in the background');
  t.equal(await page.$eval('html', (html) => html.getAttribute('data-theme')), 'sepia', 'applied without a reload');
  t.equal(await finished, 'finished', 'the background save completed');
  await page.reload({ waitUntil: 'load' });
  t.equal(await page.$eval('html', (html) => html.getAttribute('data-theme')), 'sepia', 'rendered by the server after a reload');

  // A boosted navigation swaps the body; the new header's form is enhanced again.
  await Promise.all([page.waitForResponse((res) => res.url() === `${origin}/library`), page.click('nav a[href="/library"]')]);
  await page.waitForFunction(`document.title.startsWith('Library')`);
  // htmx swaps the title before it settles the new body and fires htmx:load, where the module
  // enhances the new header's form: wait for that (bounded), rather than racing it.
  const reEnhanced = await page
    .waitForFunction(`document.querySelector('form[data-theme-form]')?.getAttribute('data-enhanced') === 'true'`)
    .then(() => true, () => false);
  t.ok(reEnhanced, 'enhanced after a boosted swap');
  t.same(problems, [], 'no CSP violation, failed request or page error');
});

t.test('at 320 px wide nothing scrolls sideways and every control is reachable by keyboard', async (t) => {
  const { app } = await buildTestApp(t);
  const origin = await serveOnLan(app);
  const { page, problems } = await watchedPage(t, browser, origin);
  await page.setViewport({ width: 320, height: 640 });
  await page.goto(`${origin}/login`, { waitUntil: 'load' });
  const loginWidth = await page.evaluate('document.documentElement.scrollWidth');
  t.ok((loginWidth as number) <= 320, `/login is ${String(loginWidth)} px wide`);
  await logInThroughTheForm(page, origin);
  for (const theme of ['auto', 'dark']) {
    await page.setCookie({ name: 'theme', value: theme, domain: new URL(origin).hostname, path: '/' });
    await page.goto(`${origin}/`, { waitUntil: 'load' });
    const width = await page.evaluate('document.documentElement.scrollWidth');
    t.ok((width as number) <= 320, `/ in ${theme} is ${String(width)} px wide`);
  }

  // Tab through the page: the skip link first, then every link, field and button in turn.
  const focusable = (await page.evaluate(
    `[...document.querySelectorAll('a[href], button, input:not([type=hidden])')].length`,
  )) as number;
  const reached = new Set<string>();
  for (let step = 0; step < focusable + 2; step += 1) {
    await page.keyboard.press('Tab');
    reached.add((await page.evaluate(`(() => { const e = document.activeElement; return e ? e.outerHTML.slice(0, 80) : '' })()`)) as string);
    if (step === 0) t.match([...reached][0], /skip-link/, 'the skip link comes first');
  }
  t.ok(reached.size >= focusable, `all ${focusable} controls reached by Tab (${reached.size})`);
  t.same(problems, [], 'no problems');
});
