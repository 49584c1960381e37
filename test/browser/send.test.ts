/**
 * The story page's "Send to e-reader" form in Chromium, with mail configured and a real SMTP
 * server on 127.0.0.1 (docs/decisions.md, "Send to an e-reader"): the page and the settings page
 * pass axe in every theme and fit 320 px, and pressing the button delivers the EPUB and shows the
 * notice, with JavaScript (htmx) on.
 */
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { launchBrowser, serveOnLan, watchedPage } from '../helpers/browser.js';
import { expectAccessiblePages } from '../helpers/axe.js';
import { createStory } from '../helpers/factories.js';
import { startSmtp } from '../helpers/smtp.js';

const browser = await launchBrowser();

t.test('the send form is accessible and delivers the book', async (t) => {
  const smtp = await startSmtp(t);
  const ctx = await buildTestApp(t, { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, SEND_FROM: 'library@example.com', SEND_TO: 'reader@kindle.com' });
  const origin = await serveOnLan(ctx.app);
  const story = await createStory(ctx, { title: 'Sent by a button', authorName: 'Ann', contentHtml: '<p>Hello.</p>' });

  const { page, problems } = await watchedPage(t, browser, origin);
  await page.setCookie({ name: 'token', value: ctx.token, url: origin });
  await expectAccessiblePages(t, page, origin, [`/stories/${story.id}`, '/settings']);

  await page.goto(`${origin}/stories/${story.id}`, { waitUntil: 'load' });
  t.equal(await page.evaluate("document.querySelector('#send-to').value"), 'reader@kindle.com');
  await page.click('form#send button[type="submit"]');
  await page.waitForFunction(`/Sent/.test(document.querySelector('form#send [role="status"]')?.textContent ?? '')`);
  t.equal(smtp.received.length, 1, 'delivered once');
  t.equal(smtp.received[0]?.mail.attachments[0]?.contentType, 'application/epub+zip');
  t.same(problems, [], 'no failed request, CSP report or page error');
});
