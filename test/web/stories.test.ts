import t from 'tap';
import type { Test } from 'tap';
import { buildWebTestApp, parseHtml, type WebTestContext } from '../helpers/web.js';
import { createStory, MISSING_ID } from '../helpers/factories.js';
import { parseReaderCookie } from '../../src/web/stories/settings.js';
import { readLabel } from '../../src/web/stories/view.js';

const SCRIPT = '<script>alert(1)</script>';
const ATTR = '" onmouseover="alert(1)';
const HOSTILE = `${SCRIPT}${ATTR}`;

/** No hostile markup survived: every script is a file of ours, no element carries an event handler. */
function assertInert(t: Test, body: string, label: string): void {
  const html = parseHtml(body);
  t.same(html.all('script').filter((script) => script.attribs.src === undefined).length, 0, `${label}: no inline script element`);
  t.equal(html.all('[onmouseover], [onclick]').length, 0, `${label}: no event-handler attribute`);
}

async function hostileStory(ctx: WebTestContext) {
  const story = await createStory(ctx, {
    title: `T ${HOSTILE}`,
    authorName: `A ${HOSTILE}`,
    seriesName: `S ${HOSTILE}`,
    volume: 2,
    tagNames: [`tag ${HOSTILE}`, 'a/b?c#d'],
    summary: `Sum ${HOSTILE}`,
    description: `Desc ${HOSTILE}`,
    sourceUrl: `https://example.com/?q=${encodeURIComponent(HOSTILE)}`,
    contentHtml: `<p>One ${HOSTILE}</p><p onclick="alert(1)">Two</p><script>alert(2)</script>`,
  });
  return story;
}

t.test('the story page shows every field escaped, with the right links and forms', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await hostileStory(ctx);
  const dto = (await ctx.get(`/api/stories/${story.id}`)).json() as { authorId: string; seriesId: string };
  const res = await ctx.page(`/stories/${story.id}`);
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /text\/html/);
  t.equal(res.headers['referrer-policy'], 'same-origin', 'pages keep Origin on their own form posts');
  assertInert(t, res.body, 'story page');
  const html = parseHtml(res.body);
  t.equal(html.all('h1').length, 1, 'one h1');
  t.equal(html.text('h1'), `T ${HOSTILE}`, 'the title is text');
  t.equal(html.text(`a[href="/authors/${dto.authorId}"]`), `A ${HOSTILE}`);
  t.equal(html.text(`a[href="/series/${dto.seriesId}"]`), `S ${HOSTILE}`);
  t.match(html.text('.story-page__series'), 'Volume 2');
  t.equal(html.text(`a[href="/tags/${encodeURIComponent(`tag ${HOSTILE}`)}"]`), `tag ${HOSTILE}`, 'tag names are percent-encoded in hrefs');
  t.ok(html.one('a[href="/tags/a%2Fb%3Fc%23d"]'), 'a slash, ? and # in a tag name are encoded');
  t.match(html.text('.story-page__main'), `Sum ${HOSTILE}`);
  t.match(html.text('.story-page__main'), `Desc ${HOSTILE}`);
  t.equal(html.attr('a[rel="noopener noreferrer nofollow"]', 'href'), `https://example.com/?q=${encodeURIComponent(HOSTILE)}`);
  t.equal(html.attr('a.button--primary', 'href'), `/stories/${story.id}/read`);
  t.equal(html.text('a.button--primary'), 'Read');
  t.ok(html.one(`a[href="/stories/${story.id}/edit"]`), 'edit link');
  t.ok(html.one(`a[href="/stories/${story.id}/delete"]`), 'delete link');
  t.equal(html.attr('form#rating', 'action'), `/stories/${story.id}/rating`);
  t.equal(html.attr('form#rating', 'method'), 'post');
  t.equal(html.all('form#rating input[type="radio"][name="rating"]').length, 5);
  t.equal(html.all('form#rating legend').length, 1, 'the radios have a legend');
  t.equal(html.attr('.story-page__notice', 'aria-live'), 'polite');
});

t.test('the empty story page: no author, series, tags, cover or text', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { title: 'Bare' });
  const res = await ctx.page(`/stories/${story.id}`);
  t.equal(res.statusCode, 200);
  const html = parseHtml(res.body);
  t.equal(html.text('h1'), 'Bare');
  t.equal(html.all('.story-page__series, .story-page__tags, .story-page__cover, a[rel="noopener noreferrer nofollow"]').length, 0);
  t.match(html.text('.story-page__byline'), 'No author');
  t.match(html.text('.story-page__main'), 'No text yet');
  t.equal(html.all('button[name="clear"]').length, 0, 'nothing to clear');
  t.equal(html.all('form#rating input[type="radio"][checked]').length, 0, 'not rated');
});

t.test('a stored non-http source URL is text, never a link', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { title: 'Old data' });
  ctx.app.db.$client.prepare('UPDATE stories SET source_url = ? WHERE id = ?').run('javascript:alert(1)', story.id);
  const html = parseHtml((await ctx.page(`/stories/${story.id}`)).body);
  t.equal(html.all('a[rel="noopener noreferrer nofollow"]').length, 0);
  t.equal(html.text('.story-page__url'), 'javascript:alert(1)');
  t.equal(html.all('a[href="javascript:alert(1)"]').length, 0);
});

t.test('series neighbours: previous and next volume links, one each side', async (t) => {
  const ctx = await buildWebTestApp(t);
  const one = await createStory(ctx, { title: 'V1', seriesName: 'Saga', volume: 1 });
  const two = await createStory(ctx, { title: 'V2', seriesName: 'Saga', volume: 2 });
  const three = await createStory(ctx, { title: 'V3', seriesName: 'Saga', volume: 3 });
  await createStory(ctx, { title: 'No volume', seriesName: 'Saga' });
  await createStory(ctx, { title: 'Other', seriesName: 'Other saga', volume: 2 });
  const middle = parseHtml((await ctx.page(`/stories/${two.id}`)).body);
  t.equal(middle.attr('a[rel="prev"]', 'href'), `/stories/${one.id}`);
  t.equal(middle.text('a[rel="prev"]'), 'Previous: Volume 1, V1');
  t.equal(middle.attr('a[rel="next"]', 'href'), `/stories/${three.id}`);
  const first = parseHtml((await ctx.page(`/stories/${one.id}`)).body);
  t.equal(first.all('a[rel="prev"]').length, 0, 'the first volume has no previous');
  t.equal(first.attr('a[rel="next"]', 'href'), `/stories/${two.id}`);
  const last = parseHtml((await ctx.page(`/stories/${three.id}/read`)).body);
  t.equal(last.attr('a[rel="prev"]', 'href'), `/stories/${two.id}/read`, 'the reader links the neighbours\' readers');
  t.equal(last.all('a[rel="next"]').length, 0);
  const plan = ctx.app.db.$client
    .prepare(`EXPLAIN QUERY PLAN SELECT id FROM stories WHERE series_id = ? AND volume IS NOT NULL AND (volume, created_at) < (?, ?) ORDER BY volume DESC, created_at DESC LIMIT 1`)
    .all('x', 1, 'z') as Array<{ detail: string }>;
  t.match(plan.map((row) => row.detail).join('\n'), /USING INDEX stories_series_idx/, 'the neighbour query seeks the series index');
  t.notMatch(plan.map((row) => row.detail).join('\n'), /TEMP B-TREE/, 'and sorts nothing');
});

t.test('rating form: sets through the rating service, clears, redirects back; bad values are a 400 page', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { title: 'Rate me' });
  const res = await ctx.form(`/stories/${story.id}/rating`, { rating: '4' });
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, `/stories/${story.id}?rated=1#rating`);
  t.equal((await ctx.get(`/api/stories/${story.id}`)).json().rating, 4);
  const page = parseHtml((await ctx.page(`/stories/${story.id}?rated=1`)).body);
  t.equal(page.attr('input[type="radio"][checked]', 'value'), '4');
  t.equal(page.text('.story-page__notice'), 'Rating saved.');
  const cleared = await ctx.form(`/stories/${story.id}/rating`, { clear: '1' });
  t.equal(cleared.statusCode, 303);
  t.equal((await ctx.get(`/api/stories/${story.id}`)).json().rating, null);
  for (const rating of ['0', '6', '2.5', 'x', '']) {
    const bad = await ctx.form(`/stories/${story.id}/rating`, { rating });
    t.equal(bad.statusCode, 400, `rating ${JSON.stringify(rating)}`);
    t.match(bad.headers['content-type'], /text\/html/);
  }
  const missing = await ctx.form(`/stories/${MISSING_ID}/rating`, { rating: '3' });
  t.equal(missing.statusCode, 404);
  t.match(missing.headers['content-type'], /text\/html/);
  const foreign = await ctx.app.inject({
    method: 'POST',
    url: `/stories/${story.id}/rating`,
    payload: 'rating=1',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
    cookies: { token: ctx.token },
  });
  t.equal(foreign.statusCode, 403, 'a cross-site form post is refused');
  t.equal((await ctx.get(`/api/stories/${story.id}`)).json().rating, null);
});

t.test('delete: a confirmation page with a form and a cancel link, then the delete service and /library', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { title: `Doomed ${HOSTILE}` });
  const confirm = await ctx.page(`/stories/${story.id}/delete`);
  t.equal(confirm.statusCode, 200);
  assertInert(t, confirm.body, 'delete page');
  const html = parseHtml(confirm.body);
  t.equal(html.all('h1').length, 1);
  t.match(html.text('main p'), `Doomed ${HOSTILE}`);
  t.equal(html.attr(`form[action="/stories/${story.id}/delete"]`, 'method'), 'post');
  t.ok(html.one(`a[href="/stories/${story.id}"]`), 'cancel goes back');
  t.equal((await ctx.get(`/api/stories/${story.id}`)).statusCode, 200, 'the GET deleted nothing');
  const res = await ctx.form(`/stories/${story.id}/delete`, {});
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, '/library');
  t.equal((await ctx.get(`/api/stories/${story.id}`)).statusCode, 404);
  t.equal((await ctx.form(`/stories/${story.id}/delete`, {})).statusCode, 404, 'twice is a 404');
});

t.test('the reader: the sanitized body, the settings form, the saved position as data', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await hostileStory(ctx);
  const res = await ctx.page(`/stories/${story.id}/read`);
  t.equal(res.statusCode, 200);
  assertInert(t, res.body, 'reader');
  const html = parseHtml(res.body);
  t.equal(html.all('h1').length, 1);
  t.equal(html.text('h1'), `T ${HOSTILE}`);
  t.equal(html.all('[data-reader-text] > p').length, 2, 'the body is rendered as HTML');
  t.match(html.text('[data-reader-text]'), `One ${ATTR}`, 'an attribute-looking text stays text (the sanitizer dropped the script)');
  t.equal(html.all('[data-reader-text] script').length, 0);
  t.equal(html.attr('[data-reader]', 'data-progress'), '0');
  t.equal(html.attr('[data-reader]', 'data-position'), '');
  t.equal(html.attr('[data-reader]', 'data-size'), 'medium');
  t.equal(html.attr('form[data-reader-settings]', 'action'), '/reader/settings');
  t.equal(html.attr('input[name="back"]', 'value'), `/stories/${story.id}/read`);
  for (const name of ['size', 'leading', 'width']) t.ok(html.one(`label[for="reader-${name}"]`) && html.one(`select#reader-${name}`), `${name} has a labelled select`);

  t.equal((await ctx.put(`/api/stories/${story.id}/progress`, { progress: 0.5, position: '7' })).statusCode, 200);
  const resumed = parseHtml((await ctx.page(`/stories/${story.id}/read`)).body);
  t.equal(resumed.attr('[data-reader]', 'data-progress'), '0.5');
  t.equal(resumed.attr('[data-reader]', 'data-position'), '7');
  t.equal(parseHtml((await ctx.page(`/stories/${story.id}`)).body).text('a.button--primary'), 'Continue (50 %)');
});

t.test('the empty reader: a story without text links to the edit page', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { title: 'Nothing yet' });
  const html = parseHtml((await ctx.page(`/stories/${story.id}/read`)).body);
  t.equal(html.all('[data-reader-text]').length, 0);
  t.equal(html.attr('.reader__empty a', 'href'), `/stories/${story.id}/edit`);
  t.equal(html.all('.reader__series').length, 0);
});

t.test('reader settings: the form sets the cookie the server renders; unknown values are a 400 page', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { title: 'Big', contentHtml: '<p>x</p>' });
  const res = await ctx.form('/reader/settings', { size: 'x-large', leading: 'relaxed', width: 'narrow', back: `/stories/${story.id}/read` });
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, `/stories/${story.id}/read`);
  const cookie = res.cookies.find((c) => c.name === 'reader');
  t.equal(cookie?.value, 'x-large.relaxed.narrow');
  const html = parseHtml((await ctx.page(`/stories/${story.id}/read`, { reader: cookie!.value })).body);
  t.equal(html.attr('[data-reader]', 'data-size'), 'x-large');
  t.equal(html.attr('[data-reader]', 'data-leading'), 'relaxed');
  t.equal(html.attr('[data-reader]', 'data-width'), 'narrow');
  t.equal(html.attr('select#reader-size option[selected]', 'value'), 'x-large');
  const offsite = await ctx.form('/reader/settings', { size: 'small', leading: 'normal', width: 'wide', back: '//evil.example' });
  t.equal(offsite.headers.location, '/', 'back is a path on this server only');
  const bad = await ctx.form('/reader/settings', { size: 'huge', leading: 'normal', width: 'wide', back: '/' });
  t.equal(bad.statusCode, 400);
  t.match(bad.headers['content-type'], /text\/html/);
  t.same(parseReaderCookie(`${HOSTILE}.x.y`), { size: 'medium', leading: 'normal', width: 'medium' }, 'a forged cookie falls back to the defaults');
  const forged = await ctx.page(`/stories/${story.id}/read`, { reader: `"><script>alert(1)</script>` });
  t.equal(forged.statusCode, 200);
  assertInert(t, forged.body, 'forged cookie');
});

t.test('unknown ids are a 404 page, malformed ids a 400 page, logged out a login redirect', async (t) => {
  const ctx = await buildWebTestApp(t);
  for (const suffix of ['', '/read', '/delete']) {
    const missing = await ctx.page(`/stories/${MISSING_ID}${suffix}`);
    t.equal(missing.statusCode, 404, `missing ${suffix}`);
    t.match(missing.headers['content-type'], /text\/html/);
    const bad = await ctx.page(`/stories/not-a-uuid${suffix}`);
    t.equal(bad.statusCode, 400, `malformed ${suffix}`);
    t.match(bad.headers['content-type'], /text\/html/);
    const anonymous = await ctx.anonymous.page(`/stories/${MISSING_ID}${suffix}`);
    t.equal(anonymous.statusCode, 303);
  }
  const anonymousPost = await ctx.anonymous.form(`/stories/${MISSING_ID}/delete`, {});
  t.equal(anonymousPost.statusCode, 303, 'a logged-out delete is sent to log in');
});

t.test('read label', async (t) => {
  t.equal(readLabel(undefined), 'Read');
  t.equal(readLabel({ storyId: MISSING_ID, progress: 0, position: null, chapter: null, updatedAt: null }), 'Read');
  t.equal(readLabel({ storyId: MISSING_ID, progress: 0.427, position: '3', chapter: null, updatedAt: '2024-01-01T00:00:00.000Z' }), 'Continue (42 %)');
  t.equal(readLabel({ storyId: MISSING_ID, progress: 1, position: '3', chapter: null, updatedAt: '2024-01-01T00:00:00.000Z' }), 'Read again');
});

t.test('the story page offers its EPUB, and the link downloads the book with the login cookie', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { title: 'Lighthouse', contentHtml: '<p>One.</p><p>Two.</p>' });
  const html = parseHtml((await ctx.page(`/stories/${story.id}`)).body);
  const href = html.attr('a[download]', 'href');
  t.equal(href, `/api/stories/${story.id}/epub`);
  t.equal(html.text('a[download]'), 'Download EPUB');
  const book = await ctx.get(href!);
  t.equal(book.statusCode, 200);
  t.equal(book.headers['content-type'], 'application/epub+zip');
  t.equal(book.rawPayload.subarray(30, 38).toString('latin1'), 'mimetype', 'a ZIP whose first entry is the EPUB mimetype');
});
