/**
 * Pages whose content has long unbreakable words (a tag, an author's name) at 320 px, the
 * narrowest phone: the document is no wider than the viewport, and axe finds nothing.
 */
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { expectAccessiblePages } from '../helpers/axe.js';
import { launchBrowser, serveOnLan, watchedPage } from '../helpers/browser.js';

const browser = await launchBrowser();

t.test('the tags page and an author page with long names: no sideways scroll at 320 px', async (t) => {
  const ctx = await buildTestApp(t);
  const longName = 'Bartholomew Featherstonehaughcholmondeleyworthingtonsmythe';
  const longTag = 'alternateuniverseeveryonelivesnobodydiescoffeeshop';
  const res = await ctx.post('/api/stories', {
    title: 'Supercalifragilisticexpialidocious-and-then-some-more-unbreakable-words',
    authorName: longName,
    seriesName: 'An-equally-unbreakable-series-name-that-goes-on-and-on',
    tagNames: [longTag, 'short'],
  });
  t.equal(res.statusCode, 201);
  const { authorId } = res.json() as { authorId: string };
  const origin = await serveOnLan(ctx.app);
  const { page, problems } = await watchedPage(t, browser, origin);
  await page.setCookie({ name: 'token', value: ctx.token, domain: new URL(origin).hostname, path: '/' });

  await expectAccessiblePages(t, page, origin, ['/tags', `/authors/${authorId}`, `/tags/${encodeURIComponent(longTag)}`]);
  t.same(problems, [], 'no CSP block, failed request or script error');
});
