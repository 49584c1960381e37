/**
 * The EPUB's story pages keep the web reader's blocks (docs/decisions.md, "EPUB export"): in a
 * real Chromium, the reader's blocks (the children of `[data-reader-text]`, as
 * src/web/client/reader.ts counts them) are, one for one and in order, the story blocks that
 * src/epub/xhtml.ts writes, so a KOReader paragraph and a web position name the same text.
 */
import t from 'tap';
import { storyBody } from '../../src/epub/xhtml.js';
import { buildTestApp, TEST_PASSWORD } from '../helpers/app.js';
import { launchBrowser, serveOnLan, watchedPage } from '../helpers/browser.js';
import { createStory } from '../helpers/factories.js';

const browser = await launchBrowser();

const STORIES = {
  prose: '<p>One</p><p>Two <em>emphasis</em> and <a href="https://example.com/">a link</a></p><h2>Part two</h2><p>Three</p><hr><p>Four</p>',
  structures:
    '<ul><li>a</li><li>b</li></ul><blockquote><p>quoted</p></blockquote><table><tr><td>1</td><td>2</td></tr></table>' +
    '<pre>code\n  indented</pre><dl><dt>term</dt><dd>meaning</dd></dl><figure><p>figure</p><figcaption>caption</figcaption></figure><div><p>nested</p></div>',
  loose: 'Loose text first <b>then bold</b> and more<p>A paragraph</p>trailing text<br>after a break<span>a span</span><p>Last</p>',
  messy:
    '<p>Unclosed <b>bold</p><p>Entities &amp; &nbsp;</p><li>stray item</li><td>stray cell</td><tr><td><p>stray row</p></td></tr><strike>old</strike>' +
    '<h3><p>para in heading</p></h3><table><p>fostered</p>text in table<tr><td>cell</td><em>fostered too</em></tr></table><p>end',
};

t.test('each web block is one story block of the EPUB page, in order', async (t) => {
  const ctx = await buildTestApp(t);
  const origin = await serveOnLan(ctx.app);
  const { page } = await watchedPage(t, browser, origin);
  await page.goto(`${origin}/login`, { waitUntil: 'load' });
  await page.type('#login-password', TEST_PASSWORD);
  await page.click('form[action="/login"] button[type="submit"]');
  await page.waitForFunction("location.pathname !== '/login'");

  for (const [name, html] of Object.entries(STORIES)) {
    const story = await createStory(ctx, { title: name, contentHtml: html });
    const stored = (await ctx.get(`/api/stories/${story.id}`)).json().contentHtml as string;
    await page.goto(`${origin}/stories/${story.id}/read`, { waitUntil: 'load' });
    const web = (await page.evaluate(`Array.from(document.querySelector('[data-reader-text]').children).map((e) => e.tagName.toLowerCase())`)) as string[];
    const book = storyBody(name, stored, () => undefined).blocks.filter((block) => block.webIndex !== null);
    t.equal(book.length, web.length, `${name}: as many story blocks as web blocks`);
    t.same(
      book.map((block) => block.webIndex),
      web.map((_, i) => i),
      `${name}: web indexes in order`,
    );
    // Block elements keep their name; inline ones and misplaced parts are wrapped in (or become) a div.
    const expected = web.map((tag) => (['p', 'h2', 'h3', 'ul', 'blockquote', 'table', 'pre', 'dl', 'figure', 'div', 'hr'].includes(tag) ? tag : 'div'));
    t.same(
      book.map((block) => block.name),
      expected,
      `${name}: the same elements`,
    );
  }
});
