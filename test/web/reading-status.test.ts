/**
 * The story page's reading-status and favourite forms (docs/decisions.md, "Reading status"):
 * plain forms through the API's own rules, a redirect back with a notice, bad values a 400 page,
 * cross-site posts refused.
 */
import t from 'tap';
import { buildWebTestApp, parseHtml } from '../helpers/web.js';
import { createStory, MISSING_ID } from '../helpers/factories.js';
import { findReadingState } from '../../src/stories/repository.js';

t.test('the story page shows the status choices and the favourite button', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { title: 'Shown' });
  const html = parseHtml((await ctx.page(`/stories/${story.id}`)).body);
  t.equal(html.attr('form#reading-status', 'action'), `/stories/${story.id}/reading-status`);
  t.equal(html.attr('form#reading-status', 'method'), 'post');
  t.same(
    html.all('form#reading-status input[type="radio"][name="status"]').map((input) => input.attribs.value),
    ['', 'want-to-read', 'reading', 'on-hold', 'finished', 'abandoned'],
  );
  t.equal(html.attr('form#reading-status input[checked]', 'value'), '', 'no status yet');
  t.equal(html.text('form#reading-status legend'), 'Reading status');
  t.equal(html.attr('form#favourite', 'action'), `/stories/${story.id}/favourite`);
  t.equal(html.attr('form#favourite input[name="favourite"]', 'value'), '1', 'the button marks it');
  t.equal(html.attr('form#favourite button', 'aria-pressed'), 'false');
});

t.test('the status form sets and clears through the rules, and the page tells what was saved', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { title: 'Status' });
  const res = await ctx.form(`/stories/${story.id}/reading-status`, { status: 'finished' });
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, `/stories/${story.id}?status=1#reading-status`);
  t.match(findReadingState(ctx.app.db, story.id), { readingStatus: 'finished', readCount: 1 }, 'a finish by hand, counted');
  const page = parseHtml((await ctx.page(`/stories/${story.id}?status=1`)).body);
  t.equal(page.attr('form#reading-status input[checked]', 'value'), 'finished');
  t.equal(page.text('form#reading-status .story-page__notice'), 'Status saved.');
  t.match(page.text('form#reading-status .muted'), /^Finished once, last on \d{1,2} \w+ \d{4}\.$/);

  t.equal((await ctx.form(`/stories/${story.id}/reading-status`, { status: '' })).statusCode, 303);
  t.match(findReadingState(ctx.app.db, story.id), { readingStatus: null, readCount: 1 }, 'empty clears the status; the history stays');
  t.equal((await ctx.get(`/api/stories/${story.id}`)).json().updatedAt, story.updatedAt, 'updatedAt stays');

  for (const status of ['done', 'Reading', 'want to read']) {
    const bad = await ctx.form(`/stories/${story.id}/reading-status`, { status });
    t.equal(bad.statusCode, 400, `status ${JSON.stringify(status)}: 400`);
    t.match(bad.headers['content-type'], /text\/html/);
  }
  const missing = await ctx.form(`/stories/${MISSING_ID}/reading-status`, { status: 'reading' });
  t.equal(missing.statusCode, 404);
  t.match(findReadingState(ctx.app.db, story.id), { readingStatus: null }, 'nothing changed');
});

t.test('the favourite form marks and unmarks; a cross-site post is refused', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { title: 'Loved' });
  const res = await ctx.form(`/stories/${story.id}/favourite`, { favourite: '1' });
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, `/stories/${story.id}?favourite=1#favourite`);
  t.equal(findReadingState(ctx.app.db, story.id)?.favourite, true);
  const page = parseHtml((await ctx.page(`/stories/${story.id}?favourite=1`)).body);
  t.equal(page.attr('form#favourite button', 'aria-pressed'), 'true');
  t.equal(page.attr('form#favourite input[name="favourite"]', 'value'), '0', 'now the button unmarks it');
  t.equal(page.text('form#favourite .story-page__notice'), 'Added to your favourites.');
  t.equal((await ctx.form(`/stories/${story.id}/favourite`, { favourite: '0' })).statusCode, 303);
  t.equal(findReadingState(ctx.app.db, story.id)?.favourite, false);
  for (const favourite of ['', 'yes', 'true', '2']) {
    t.equal((await ctx.form(`/stories/${story.id}/favourite`, { favourite })).statusCode, 400, `favourite ${JSON.stringify(favourite)}: 400`);
  }
  const foreign = await ctx.app.inject({
    method: 'POST',
    url: `/stories/${story.id}/favourite`,
    payload: 'favourite=1',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
    cookies: { token: ctx.token },
  });
  t.equal(foreign.statusCode, 403, 'a cross-site form post is refused');
  t.equal(findReadingState(ctx.app.db, story.id)?.favourite, false);
});

t.test('the library filters by reading status and favourites, keeps them across pages, and badges the cards', async (t) => {
  const ctx = await buildWebTestApp(t);
  const ids: Record<string, string> = {};
  for (const title of ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']) ids[title] = (await createStory(ctx, { title, tagNames: ['mine'] })).id;
  await ctx.put(`/api/stories/${ids.Alpha}/reading-status`, { status: 'reading' });
  await ctx.put(`/api/stories/${ids.Bravo}/reading-status`, { status: 'reading' });
  await ctx.put(`/api/stories/${ids.Charlie}/reading-status`, { status: 'finished' });
  for (const title of ['Bravo', 'Delta']) await ctx.put(`/api/stories/${ids[title]}/favourite`, { favourite: true });
  const titles = async (url: string) => parseHtml((await ctx.page(url)).body).texts('.story-card .card-title');

  t.same(await titles('/library?readingStatus=reading&sortBy=title&sortDir=asc'), ['Alpha', 'Bravo']);
  t.same(await titles('/library?favourite=true&sortBy=title&sortDir=asc'), ['Bravo', 'Delta']);
  t.same(await titles('/library?readingStatus=reading&favourite=true'), ['Bravo'], 'both');
  t.same(await titles('/library?readingStatus=reading&tag=mine&minRating='), ['Bravo', 'Alpha'], 'with a tag, newest first; a blank field filters nothing');
  t.same(await titles('/library?favourite=false&sortBy=title&sortDir=asc'), ['Alpha', 'Charlie', 'Echo'], 'favourite=false: the others');
  t.same(await titles('/library?readingStatus=abandoned'), [], 'none abandoned');
  t.match(parseHtml((await ctx.page('/library?readingStatus=abandoned')).body).text('.empty'), /No story matches these filters/);

  const paged = parseHtml((await ctx.page('/library?readingStatus=reading&favourite=true&size=1')).body);
  t.equal(paged.attr('#library-status option[selected]', 'value'), 'reading', 'the form shows the status chosen');
  t.equal(paged.all('#library-favourite[checked]').length, 1, 'and the box ticked');
  t.equal(paged.all('#library-status option').length, 6, 'any status, then the five');
  t.match(paged.all('.view-toggle a')[1]?.attribs.href, /readingStatus=reading&favourite=true/, 'the layout link keeps the filters');
  const first = parseHtml((await ctx.page('/library?readingStatus=reading&size=1')).body);
  t.match(first.attr('.pager a[rel="next"]', 'href'), /readingStatus=reading/, 'and so do the page links');

  const list = parseHtml((await ctx.page('/library?readingStatus=reading&favourite=true&size=1&view=list')).body);
  t.match(list.text('.story-table tbody'), /Reading/);
  const grid = parseHtml((await ctx.page('/library?sortBy=title&sortDir=asc')).body);
  t.same(grid.texts('.story-card .card-reader'), ['Reading', '★ Favourite Reading', 'Finished', '★ Favourite'], 'badges on the cards that have a status or the mark');

  for (const [query, field] of [
    ['readingStatus=done', 'readingStatus'],
    ['favourite=maybe', 'favourite'],
  ] as const) {
    const bad = await ctx.page(`/library?${query}`);
    t.equal(bad.statusCode, 400, `${query}: 400`);
    t.match(bad.body, field);
  }
});
