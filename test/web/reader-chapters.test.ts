/**
 * The reader of a story in chapters (docs/decisions.md, "Story page and reader"), through the HTTP
 * stack: one chapter a page at /stories/{id}/read/{index}, its contents and chapter links, only
 * that chapter's text sent, /read resuming at the saved chapter, and the saved place rendered for
 * the client module only on the chapter it belongs to.
 */
import t from 'tap';
import { buildWebTestApp, parseHtml } from '../helpers/web.js';
import { createStory } from '../helpers/factories.js';
import { CHAPTER_META_SQL } from '../../src/stories/chapter-repository.js';
import { getStoryHead } from '../../src/stories/service.js';
import { STORY_HEAD_SQL } from '../../src/stories/repository.js';

const CHAPTERS = [
  { title: 'The Beginning', contentHtml: '<p>alpha one two three</p><p>alpha four</p>' },
  { title: '', contentHtml: '<p>beta one two three four five six</p>' },
  { title: 'An <End>', contentHtml: '<p>gamma one two</p>' },
];

t.test('one chapter a page: the address, the contents, the links and only that chapter\'s text', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { title: 'Three Parts', chapters: CHAPTERS });
  const res = await ctx.page(`/stories/${story.id}/read/2`);
  t.equal(res.statusCode, 200);
  const html = parseHtml(res.body);
  t.equal(html.text('h1'), 'Three Parts', 'the story stays the heading');
  t.match(html.text('title'), /^Chapter 2 · Three Parts/, 'the window title names the chapter');
  t.match(html.text('[data-reader-text]'), 'beta one two', 'the chapter\'s text');
  t.notMatch(res.body, /alpha|gamma/, 'no other chapter\'s text is sent');
  t.same(html.texts('nav[aria-label="Contents"] li a'), ['The Beginning', 'Chapter 2', 'An <End>'], 'every chapter, an untitled one by its number, titles as text');
  t.same(html.texts('nav[aria-label="Contents"] .reader__words'), ['6 words', '7 words', '3 words']);
  t.equal(html.attr('nav[aria-label="Contents"] a[aria-current="page"]', 'href'), `/stories/${story.id}/read/2`, 'the current chapter is marked');
  t.equal(html.all('nav[aria-label="Contents"] a[aria-current]').length, 1);
  t.match(html.text('.reader__contents summary'), 'Chapter 2 of 3');
  t.equal(html.attr('a[rel="prev"][data-reader-chapter-prev]', 'href'), `/stories/${story.id}/read/1`);
  t.equal(html.attr('a[rel="next"][data-reader-chapter-next]', 'href'), `/stories/${story.id}/read/3`);
  t.equal(html.attr('input[name="back"]', 'value'), `/stories/${story.id}/read/2`, 'the settings form comes back to this chapter');
  t.equal(html.attr('[data-reader]', 'data-chapter'), '2');
  t.equal(html.attr('[data-reader]', 'data-words-before'), '6');
  t.equal(html.attr('[data-reader]', 'data-chapter-words'), '7');
  t.equal(html.attr('[data-reader]', 'data-total-words'), '16');

  const first = parseHtml((await ctx.page(`/stories/${story.id}/read/1`)).body);
  t.equal(first.all('[data-reader-chapter-prev]').length, 0, 'the first chapter has no previous');
  t.equal(first.text('[data-reader-text] h2'), 'The Beginning', 'a titled chapter opens under its title');
  const last = parseHtml((await ctx.page(`/stories/${story.id}/read/3`)).body);
  t.equal(last.all('[data-reader-chapter-next]').length, 0, 'the last chapter has no next');
  t.equal(last.text('[data-reader-text] h2'), 'An <End>');

  t.equal((await ctx.page(`/stories/${story.id}/read/4`)).statusCode, 404, 'a chapter past the end is a 404 page');
  t.equal((await ctx.page(`/stories/${story.id}/read/0`)).statusCode, 400, 'chapter 0 is a 400 page');
  t.equal((await ctx.page(`/stories/${story.id}/read/x`)).statusCode, 400);
  t.equal((await ctx.page('/stories/00000000-0000-4000-8000-000000000000/read/1')).statusCode, 404, 'an unknown story is a 404 page');
});

t.test('a chapter page reads no text but its chapter\'s: the contents come from an index alone', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { title: 'Three Parts', chapters: CHAPTERS });
  const plan = (ctx.app.db.$client.prepare(`EXPLAIN QUERY PLAN ${CHAPTER_META_SQL}`).all(story.id) as Array<{ detail: string }>).map((row) => row.detail).join('\n');
  // Every column after a chapter's title sits behind its text in the row (docs/performance.md, "Chapters").
  t.match(plan, /USING COVERING INDEX story_chapters_meta_idx/, 'the contents never read a chapter row');
  t.notMatch(plan, /TEMP B-TREE/, 'and sort nothing');
  t.same(getStoryHead(ctx.app.db, story.id), { id: story.id, title: 'Three Parts', authorId: null, authorName: null, seriesId: null, volume: null, createdAt: story.createdAt }, 'the head is the reader\'s story');
  const headPlan = (ctx.app.db.$client.prepare(`EXPLAIN QUERY PLAN ${STORY_HEAD_SQL}`).all(story.id) as Array<{ detail: string }>)
    .map((row) => row.detail).join('\n');
  t.match(headPlan, /USING COVERING INDEX stories_head_idx/, 'the story\'s head never reads its row');
});

t.test('/read resumes at the saved chapter; the saved place is rendered on that chapter only', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { chapters: CHAPTERS });
  const fresh = await ctx.page(`/stories/${story.id}/read`);
  t.equal(fresh.statusCode, 302, 'the address from before chapters still works');
  t.equal(fresh.headers.location, `/stories/${story.id}/read/1`, 'never read: the first chapter');

  // Half of chapter 2: 6 words before it, 3.5 of its 7 in, of 16.
  t.equal((await ctx.put(`/api/stories/${story.id}/progress`, { progress: 9.5 / 16, position: '0', chapter: 2 })).statusCode, 200);
  t.equal((await ctx.page(`/stories/${story.id}/read`)).headers.location, `/stories/${story.id}/read/2`, 'the saved chapter');
  const here = parseHtml((await ctx.page(`/stories/${story.id}/read/2`)).body);
  t.equal(here.attr('[data-reader]', 'data-position'), '0');
  t.equal(Number(here.attr('[data-reader]', 'data-progress')), 0.5, 'the fraction of this chapter');
  t.equal(here.attr('[data-reader]', 'data-saved-here'), 'true');
  const elsewhere = parseHtml((await ctx.page(`/stories/${story.id}/read/3`)).body);
  t.equal(elsewhere.attr('[data-reader]', 'data-position'), '', 'another chapter does not restore the saved place');
  t.equal(elsewhere.attr('[data-reader]', 'data-progress'), '0');
  t.equal(elsewhere.attr('[data-reader]', 'data-saved-here'), 'false', 'opening another chapter counts as reading it');

  // A client from before chapters saves a whole-work fraction only: the reader finds its chapter by words.
  t.equal((await ctx.put(`/api/stories/${story.id}/progress`, { progress: 0.9, position: '3' })).statusCode, 200);
  t.equal((await ctx.page(`/stories/${story.id}/read`)).headers.location, `/stories/${story.id}/read/3`, 'the chapter the fraction falls in');
  t.equal(parseHtml((await ctx.page(`/stories/${story.id}/read/3`)).body).attr('[data-reader]', 'data-position'), '', "that client's locator is not this chapter's");

  t.equal((await ctx.page(`/stories/00000000-0000-4000-8000-000000000000/read`)).statusCode, 404);
});

t.test('a one-chapter story reads as before: one page, no contents, no chapter links', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { contentHtml: '<p>only one</p><p>two</p>' });
  const res = await ctx.page(`/stories/${story.id}/read`);
  t.equal(res.statusCode, 200, 'no redirect');
  const html = parseHtml(res.body);
  t.equal(html.all('.reader__contents').length, 0);
  t.equal(html.all('[data-reader-chapter-prev], [data-reader-chapter-next]').length, 0);
  t.equal(html.all('[data-reader-text] > p').length, 2);
  t.equal(html.attr('[data-reader]', 'data-saved-here'), 'true', 'opening it saves nothing by itself');
  t.equal((await ctx.put(`/api/stories/${story.id}/progress`, { progress: 0.5, position: '1' })).statusCode, 200);
  const resumed = parseHtml((await ctx.page(`/stories/${story.id}/read/1`)).body);
  t.equal(resumed.attr('[data-reader]', 'data-progress'), '0.5', 'a save without chapter restores as before');
  t.equal(resumed.attr('[data-reader]', 'data-position'), '1');
});

t.test('the home page continues at the saved chapter', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { title: 'Serial', chapters: CHAPTERS });
  const flat = await createStory(ctx, { title: 'Flat', contentHtml: '<p>one two three</p>' });
  t.equal((await ctx.put(`/api/stories/${story.id}/progress`, { progress: 0.5, position: '0', chapter: 2 })).statusCode, 200);
  t.equal((await ctx.put(`/api/stories/${flat.id}/progress`, { progress: 0.5, position: '0', chapter: 1 })).statusCode, 200);
  const html = parseHtml((await ctx.page('/')).body);
  const links = html.all('section[aria-labelledby="home-continue"] .card-meta a').filter((a) => a.attribs.href?.includes('/read/'));
  t.same(
    links.map((a) => a.attribs.href),
    [`/stories/${story.id}/read/2`],
    'a link to chapter 2 of the story in chapters; none for a one-chapter story',
  );
  t.match(html.text('section[aria-labelledby="home-continue"]'), 'Continue at chapter 2');
});
