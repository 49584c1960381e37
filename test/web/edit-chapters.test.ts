import t from 'tap';
import { MISSING_ID, createStory } from '../helpers/factories.js';
import { buildWebTestApp, parseHtml, type WebTestContext } from '../helpers/web.js';

const HOSTILE = '<script>alert(1)</script>" onmouseover="alert(1)';

interface Story {
  id: string;
  contentHtml: string | null;
  wordCount: number;
  chapterCount: number;
  updatedAt: string;
}

/** A story of three chapters made through the API. */
async function threeChapters(ctx: WebTestContext): Promise<Story> {
  const chapters = [
    { title: 'One', contentHtml: '<p>First night falls.</p>' },
    { title: 'Two', contentHtml: '<p>Second night.</p>' },
    { title: 'Three', contentHtml: '<p>Third.</p>' },
  ];
  return (await ctx.post('/api/stories', { title: 'Nights', chapters })).json() as Story;
}

const storyOf = async (ctx: WebTestContext, id: string) => (await ctx.get(`/api/stories/${id}`)).json() as Story;
const titlesOf = async (ctx: WebTestContext, id: string) => ((await ctx.get(`/api/stories/${id}/chapters`)).json() as Array<{ title: string }>).map((c) => c.title);

t.test('the edit page lists the chapters with their words, an edit and a delete page each, and a way to add one', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await threeChapters(ctx);
  const res = await ctx.page(`/stories/${story.id}/edit`);
  t.equal(res.statusCode, 200);
  const html = parseHtml(res.body);
  t.equal(html.all('h1').length, 1);
  t.equal(html.text('#chapters-heading'), 'Chapters');
  t.same(html.texts('#chapters tbody tr'), [
    '1 One 3 Edit chapter 1 Delete chapter 1',
    '2 Two 2 Edit chapter 2 Delete chapter 2',
    '3 Three 1 Edit chapter 3 Delete chapter 3',
  ]);
  for (const index of [1, 2, 3]) {
    t.ok(html.one(`#chapters a[href="/stories/${story.id}/chapters/${index}/edit"]`), `chapter ${index} has an edit link`);
    t.ok(html.one(`#chapters a[href="/stories/${story.id}/chapters/${index}/delete"]`), `chapter ${index} has a delete page`);
  }
  t.ok(html.one(`#chapters a[href="/stories/${story.id}/chapters/new"]`), 'add a chapter');
  t.notOk(html.one('#chapters-notice'), 'no notice before a change');
  t.notOk(html.one('textarea[name="body"]'), 'a story in chapters has no whole-work body field');
  t.match(html.text('#story-chapters-note'), /3 chapters/);
  t.notOk(parseHtml((await ctx.page('/stories/new')).body).one('#chapters'), 'a new story has no chapters section');
});

t.test('a one-chapter story keeps its body field, offers no delete, and can be given a second chapter', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { title: 'Single', contentHtml: '<p>Only words here.</p>' });
  const html = parseHtml((await ctx.page(`/stories/${story.id}/edit`)).body);
  t.equal(html.text('#story-body'), '<p>Only words here.</p>', 'the body field as before');
  t.same(html.texts('#chapters tbody tr'), ['1 Chapter 1 3 Edit chapter 1'], 'the untitled chapter is named by its number, with no delete');
  t.notOk(html.one('#chapters a[href*="/delete"]'));
  const confirm = await ctx.page(`/stories/${story.id}/chapters/1/delete`);
  t.equal(confirm.statusCode, 200);
  t.match(parseHtml(confirm.body).text('#chapter-delete-refusal'), /only chapter/);
  t.notOk(parseHtml(confirm.body).one('form[method="post"] button.button--danger'), 'nothing to confirm');

  const form = parseHtml((await ctx.page(`/stories/${story.id}/chapters/new`)).body);
  t.ok(form.one(`form[action="/stories/${story.id}/chapters/new"][method="post"]`), 'a plain urlencoded form');
  t.notOk(form.attr('form[method="post"]', 'enctype'));
  t.ok(form.one('label[for="chapter-title"]') && form.one('label[for="chapter-body"]'), 'labelled fields');
  t.equal(form.all('input[name="bodyFormat"]').length, 2, "the story form's body field");
  const added = await ctx.form(`/stories/${story.id}/chapters/new`, { title: 'Epilogue', body: 'Later that year.\n\nThe end.', bodyFormat: 'text', action: 'save' });
  t.equal(added.statusCode, 303);
  t.equal(added.headers.location, `/stories/${story.id}/edit?chapters=added#chapters`);
  const dto = await storyOf(ctx, story.id);
  t.equal(dto.chapterCount, 2, 'appended');
  t.equal(dto.contentHtml, '<p>Only words here.</p>\n<h2>Epilogue</h2>\n<p>Later that year.</p>\n<p>The end.</p>', 'the whole work follows');
  t.equal(dto.wordCount, 3 + 5, "the chapters' sum");
  const page = parseHtml((await ctx.page(added.headers.location as string)).body);
  t.equal(page.text('#chapters-notice'), 'Chapter added.');
  t.notOk(page.one('textarea[name="body"]'), 'now a story in chapters');
  t.equal(page.all('#chapters a[href*="/delete"]').length, 2, 'and either chapter can be deleted');
});

t.test('editing a chapter: prefilled and escaped, saved through the service, the whole work and word count follow', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await threeChapters(ctx);
  const before = await storyOf(ctx, story.id);
  await ctx.put(`/api/stories/${story.id}/chapters/2`, { title: HOSTILE });
  const res = await ctx.page(`/stories/${story.id}/chapters/2/edit`);
  t.equal(res.statusCode, 200);
  const html = parseHtml(res.body);
  t.equal(html.all('h1').length, 1);
  t.equal(html.attr('#chapter-title', 'value'), HOSTILE, 'the title, as text');
  t.equal(html.text('#chapter-body'), '<p>Second night.</p>', 'the stored HTML');
  t.notOk(res.body.includes('<script>alert(1)</script>'), 'never markup');
  t.ok(html.one(`a[href="/stories/${story.id}/edit#chapters"]`), 'back to the chapters');

  const saved = await ctx.form(`/stories/${story.id}/chapters/2/edit`, {
    title: 'Two, revised',
    body: '<p>A <em>much</em> longer second night.</p><script>alert(1)</script><img src="x" onerror="alert(2)">',
    bodyFormat: 'html',
    action: 'save',
  });
  t.equal(saved.statusCode, 303);
  t.equal(saved.headers.location, `/stories/${story.id}/edit?chapters=saved#chapters`);
  const chapter = (await ctx.get(`/api/stories/${story.id}/chapters/2`)).json() as { title: string; contentHtml: string; wordCount: number };
  t.equal(chapter.title, 'Two, revised');
  t.notMatch(chapter.contentHtml, /script|onerror/, 'sanitized as the API sanitizes');
  t.match(chapter.contentHtml, '<em>much</em>');
  t.equal(chapter.wordCount, 5);
  const after = await storyOf(ctx, story.id);
  t.match(after.contentHtml, /<h2>Two, revised<\/h2>\n<p>A <em>much<\/em> longer second night.<\/p>/, "the story's contentHtml follows");
  t.equal(after.wordCount, 3 + 5 + 1, 'and its word count');
  t.not(after.updatedAt, before.updatedAt, 'the story was updated');
  t.same(await titlesOf(ctx, story.id), ['One', 'Two, revised', 'Three'], 'the others are untouched');
  t.equal(parseHtml((await ctx.page(saved.headers.location as string)).body).text('#chapters-notice'), 'Chapter saved.');

  const preview = await ctx.form(`/stories/${story.id}/chapters/2/edit`, { title: 'P', body: 'plain <b>text</b>', bodyFormat: 'text', action: 'preview' });
  t.equal(preview.statusCode, 200);
  t.equal(parseHtml(preview.body).text('.edit-form__preview-body'), 'plain <b>text</b>', 'Preview shows the sanitized text');
  t.equal((await ctx.get(`/api/stories/${story.id}/chapters/2`)).json().title, 'Two, revised', 'a preview writes nothing');
});

t.test('refusals show the form again with the message, a 4xx, and change nothing', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await threeChapters(ctx);
  const before = await storyOf(ctx, story.id);

  const long = await ctx.form(`/stories/${story.id}/chapters/1/edit`, { title: 'x'.repeat(501), body: '<p>kept text</p>', bodyFormat: 'html', action: 'save' });
  t.equal(long.statusCode, 400);
  let html = parseHtml(long.body);
  t.equal(html.attr('#chapter-title', 'aria-invalid'), 'true');
  t.ok(html.text('#chapter-title-error').length > 0, 'the title says why');
  t.ok(html.one('.error-summary[role="alert"] a[href="#chapter-title"]'), 'the summary links to it');
  t.equal(html.text('#chapter-body'), '<p>kept text</p>', 'what was typed is kept');

  const empty = await ctx.form(`/stories/${story.id}/chapters/1/edit`, { title: 'One', body: '  \n ', bodyFormat: 'html', action: 'save' });
  t.equal(empty.statusCode, 400);
  html = parseHtml(empty.body);
  t.equal(html.attr('#chapter-body', 'aria-invalid'), 'true');
  t.match(html.text('#chapter-body-error'), /empty/);
  const emptyNew = await ctx.form(`/stories/${story.id}/chapters/new`, { title: 'Four', body: '', action: 'save' });
  t.equal(emptyNew.statusCode, 400, 'an empty new chapter too');

  // Past the form's 4 MiB the body is not read at all: Fastify's 413, as an error page.
  const huge = await ctx.form(`/stories/${story.id}/chapters/1/edit`, { title: 'One', body: `<p>${'word '.repeat(900_000)}</p>`, action: 'save' });
  t.equal(huge.statusCode, 413);
  t.match(huge.headers['content-type'], /text\/html/);

  const after = await storyOf(ctx, story.id);
  t.equal(after.updatedAt, before.updatedAt, 'nothing was written');
  t.equal(after.contentHtml, before.contentHtml);
  t.equal(after.chapterCount, 3);
});

t.test('a story at its chapter bound: adding is a 409 shown on the form', async (t) => {
  const ctx = await buildWebTestApp(t);
  const chapters = Array.from({ length: 5000 }, (_, i) => ({ title: '', contentHtml: `<p>${i}</p>` }));
  const created = await ctx.post('/api/stories', { title: 'Serial', chapters });
  t.equal(created.statusCode, 201);
  const { id } = created.json() as Story;
  const res = await ctx.form(`/stories/${id}/chapters/new`, { title: 'One too many', body: '<p>more</p>', action: 'save' });
  t.equal(res.statusCode, 409);
  const html = parseHtml(res.body);
  t.match(html.text('#chapter-form-errors'), /at most 5000 chapters/);
  t.equal(html.attr('#chapter-title', 'value'), 'One too many', 'what was typed is kept');
  t.equal((await storyOf(ctx, id)).chapterCount, 5000, 'nothing appended');
});

t.test('deleting a chapter: a confirmation, then the later chapters move up; the last one is refused', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await threeChapters(ctx);
  const confirm = await ctx.page(`/stories/${story.id}/chapters/2/delete`);
  t.equal(confirm.statusCode, 200);
  const html = parseHtml(confirm.body);
  t.match(html.text('main p'), /Delete “Two” from “Nights”/);
  t.ok(html.one(`form[action="/stories/${story.id}/chapters/2/delete"][method="post"] button`), 'the confirmation posts the delete');
  t.equal((await storyOf(ctx, story.id)).chapterCount, 3, 'the GET deletes nothing');

  const deleted = await ctx.form(`/stories/${story.id}/chapters/2/delete`, {});
  t.equal(deleted.statusCode, 303);
  t.equal(deleted.headers.location, `/stories/${story.id}/edit?chapters=deleted#chapters`);
  t.same(await titlesOf(ctx, story.id), ['One', 'Three']);
  let dto = await storyOf(ctx, story.id);
  t.equal(dto.wordCount, 3 + 1);
  t.notMatch(dto.contentHtml, /Second night/, 'the whole work follows');
  t.match(parseHtml((await ctx.page(deleted.headers.location as string)).body).text('#chapters-notice'), /deleted/);

  t.equal((await ctx.form(`/stories/${story.id}/chapters/1/delete`, {})).statusCode, 303);
  dto = await storyOf(ctx, story.id);
  const refused = await ctx.form(`/stories/${story.id}/chapters/1/delete`, {});
  t.equal(refused.statusCode, 409, 'the last chapter is refused with a 4xx');
  t.match(refused.headers['content-type'], /text\/html/);
  t.match(parseHtml(refused.body).text('#chapter-delete-refusal'), /at least one chapter/, 'the page says why');
  const kept = await storyOf(ctx, story.id);
  t.same(await titlesOf(ctx, story.id), ['Three'], 'nothing changed');
  t.equal(kept.updatedAt, dto.updatedAt);
  t.equal(kept.contentHtml, dto.contentHtml);
});

t.test('unknown stories and chapters are 404 pages, malformed ones 400', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await threeChapters(ctx);
  for (const url of [`/stories/${story.id}/chapters/4/edit`, `/stories/${story.id}/chapters/4/delete`, `/stories/${MISSING_ID}/chapters/1/edit`, `/stories/${MISSING_ID}/chapters/new`]) {
    const page = await ctx.page(url);
    t.equal(page.statusCode, 404, `GET ${url}`);
    t.match(page.headers['content-type'], /text\/html/);
  }
  t.equal((await ctx.form(`/stories/${story.id}/chapters/4/edit`, { title: 'x', body: '<p>y</p>', action: 'save' })).statusCode, 404);
  t.equal((await ctx.form(`/stories/${story.id}/chapters/9/delete`, {})).statusCode, 404);
  t.equal((await ctx.form(`/stories/${MISSING_ID}/chapters/new`, { title: 'x', body: '<p>y</p>' })).statusCode, 404);
  for (const url of [`/stories/${story.id}/chapters/0/edit`, `/stories/${story.id}/chapters/abc/edit`, '/stories/not-a-uuid/chapters/new']) {
    t.equal((await ctx.page(url)).statusCode, 400, `GET ${url}`);
  }
  t.equal((await storyOf(ctx, story.id)).chapterCount, 3, 'nothing changed');
});

t.test('a cross-site chapter post is refused before anything is written', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await threeChapters(ctx);
  const evil = { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example' };
  const post = (url: string, payload: string) => ctx.app.inject({ method: 'POST', url, payload, headers: evil, cookies: { token: ctx.token } });
  t.equal((await post(`/stories/${story.id}/chapters/1/edit`, 'title=pwned&body=pwned')).statusCode, 403);
  t.equal((await post(`/stories/${story.id}/chapters/new`, 'title=pwned&body=pwned')).statusCode, 403);
  t.equal((await post(`/stories/${story.id}/chapters/2/delete`, '')).statusCode, 403);
  t.same(await titlesOf(ctx, story.id), ['One', 'Two', 'Three'], 'nothing changed');
});
