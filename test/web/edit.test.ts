import t from 'tap';
import type { Test } from 'tap';
import { MISSING_ID, createAuthor, createStory, createTag } from '../helpers/factories.js';
import { png, text as textFile } from '../helpers/images.js';
import { multipart, type Part } from '../helpers/multipart.js';
import { buildWebTestApp, parseHtml, type WebTestContext } from '../helpers/web.js';

const HOSTILE = '<script>alert(1)</script>" onmouseover="alert(1)';

/** A multipart form post with the login cookie, as the browser sends the edit forms. */
function postForm(ctx: WebTestContext, url: string, parts: Part[], headers: Record<string, string> = {}) {
  const body = multipart(parts);
  return ctx.app.inject({ method: 'POST', url, payload: body.payload, headers: { ...body.headers, ...headers }, cookies: { token: ctx.token } });
}

const fields = (values: Record<string, string>): Part[] => Object.entries(values).map(([name, value]) => ({ name, value }));

function assertNoMarkup(t: Test, body: string) {
  t.notOk(body.includes('<script>alert(1)</script>'), 'the hostile script is never markup');
  t.notOk(/\s onmouseover="alert\(1\)"/.test(body.replace(/&quot;/g, '')) && body.includes('" onmouseover="alert(1)"'), 'no injected attribute');
}

t.test('the new-story form: every field, labelled, multipart, posting to /stories/new', async (t) => {
  const ctx = await buildWebTestApp(t);
  const res = await ctx.page('/stories/new');
  t.equal(res.statusCode, 200);
  const html = parseHtml(res.body);
  t.equal(html.all('h1').length, 1);
  t.equal(html.attr('form[action="/stories/new"]', 'enctype'), 'multipart/form-data');
  for (const name of ['title', 'authorName', 'seriesName', 'volume', 'tags', 'summary', 'description', 'sourceUrl', 'body', 'cover']) {
    const control = html.one(`[name="${name}"]`);
    t.ok(control, `${name} is in the form`);
    const id = control?.attribs.id;
    t.ok(id !== undefined && html.one(`label[for="${id}"]`), `${name} has a label`);
  }
  t.equal(html.attr('input[name="cover"]', 'accept'), 'image/*');
  t.ok(html.one('[data-dropzone]'), 'the drop zone wraps the file input');
  t.equal(html.attr('input[name="authorName"]', 'list'), 'story-author-options');
  t.ok(html.one('datalist#story-author-options') && html.one('datalist#story-series-options') && html.one('datalist#story-tags-options'));
  t.equal(html.attr('input[name="authorName"]', 'hx-get'), '/stories/suggest/authors');
  t.equal(html.all('input[name="bodyFormat"]').length, 2);
  t.ok(html.one('button[name="action"][value="preview"]'), 'a Preview button that works without JS');
  t.notOk(html.one('.error-summary'), 'no errors on an empty form');
});

t.test('create via the form: 303 to the story, with every field, cover and find-or-create links', async (t) => {
  const ctx = await buildWebTestApp(t);
  const res = await postForm(ctx, '/stories/new', [
    ...fields({
      title: 'Form story',
      authorName: 'New Author',
      seriesName: 'New Series',
      volume: '3',
      tags: 'alpha, Beta ,, gamma',
      summary: 'A summary',
      description: 'A description',
      sourceUrl: 'https://example.com/s',
      body: 'First line\nsecond <b>line</b>\n\nSecond para',
      bodyFormat: 'text',
      action: 'save',
    }),
    { name: 'cover', data: png(), filename: 'c.png', contentType: 'image/png' },
  ]);
  t.equal(res.statusCode, 303);
  const id = /^\/stories\/([0-9a-f-]{36})$/.exec(res.headers.location as string)?.[1];
  t.ok(id, 'redirects to the story page');
  const story = (await ctx.get(`/api/stories/${id}`)).json();
  t.equal(story.title, 'Form story');
  t.equal(story.authorName, 'New Author');
  t.equal(story.seriesName, 'New Series');
  t.equal(story.volume, 3);
  t.same(story.tags.map((tag: { name: string }) => tag.name), ['alpha', 'beta', 'gamma']);
  t.equal(story.summary, 'A summary');
  t.equal(story.description, 'A description');
  t.equal(story.sourceUrl, 'https://example.com/s');
  t.equal(story.contentHtml, '<p>First line<br />second &lt;b&gt;line&lt;/b&gt;</p>\n<p>Second para</p>', 'plain text became escaped paragraphs');
  t.match(story.coverPath, /^covers\/[0-9a-f-]+\.png$/);
  const image = await ctx.get(`/api/files/images/${story.coverPath}`);
  t.equal(image.statusCode, 200, 'the cover is stored');
});

t.test('validation errors: 400, every offending field at once, values kept, summary linked', async (t) => {
  const ctx = await buildWebTestApp(t);
  const before = (await ctx.get('/api/stories')).json().totalElements;
  const res = await postForm(ctx, '/stories/new', [
    ...fields({
      title: '   ',
      authorName: 'Kept author',
      volume: 'three',
      tags: 'ok, ' + 'x'.repeat(101),
      description: 'd'.repeat(1001),
      sourceUrl: 'javascript:alert(1)',
      summary: HOSTILE,
      body: HOSTILE,
      action: 'save',
    }),
    { name: 'cover', data: textFile(), filename: 'c.png', contentType: 'image/png' },
  ]);
  t.equal(res.statusCode, 400);
  const html = parseHtml(res.body);
  const summary = html.one('.error-summary[role="alert"]');
  t.ok(summary, 'an error summary with role=alert');
  const links = html.all('.error-summary a').map((a) => a.attribs.href);
  for (const [id, name] of [
    ['story-title', 'title'],
    ['story-volume', 'volume'],
    ['story-tags', 'tags'],
    ['story-description', 'description'],
    ['story-source', 'sourceUrl'],
    ['story-cover', 'cover'],
  ]) {
    t.ok(links.includes(`#${id}`), `the summary links to ${name}`);
    t.equal(html.attr(`#${id}`, 'aria-invalid'), 'true', `${name} is aria-invalid`);
    t.match(html.attr(`#${id}`, 'aria-describedby') ?? '', `${id}-error`, `${name} is described by its message`);
    t.ok(html.text(`#${id}-error`).length > 0, `${name} has its message`);
  }
  t.equal(html.attr('#story-author', 'value'), 'Kept author', 'entered values are kept');
  t.equal(html.attr('#story-volume', 'value'), 'three');
  t.equal(html.text('#story-summary'), HOSTILE, 'the hostile text is kept as text');
  assertNoMarkup(t, res.body);
  t.equal((await ctx.get('/api/stories')).json().totalElements, before, 'nothing was written');
});

t.test('preview shows the sanitizer output only and keeps the form', async (t) => {
  const ctx = await buildWebTestApp(t);
  const res = await postForm(
    ctx,
    '/stories/new',
    fields({ title: 'P', body: '<p>Hello <em>there</em></p><script>alert(1)</script><img src="x" onerror="alert(2)">', bodyFormat: 'html', action: 'preview' }),
  );
  t.equal(res.statusCode, 200);
  const html = parseHtml(res.body);
  const preview = html.one('.edit-form__preview-body');
  t.ok(preview, 'the preview is shown');
  t.ok(html.one('.edit-form__preview-body em'), 'kept markup is rendered');
  t.notOk(html.one('.edit-form__preview-body script'), 'the script is gone');
  t.notOk(html.one('.edit-form__preview-body [onerror]'), 'the onerror attribute is gone');
  t.notOk(res.body.includes('<script>alert(1)</script>'), 'the script is not markup anywhere');
  t.match(html.text('#story-body'), '<script>alert(1)</script>', 'the textarea keeps what was typed, as text');
  t.equal((await ctx.get('/api/stories')).json().totalElements, 0, 'a preview writes nothing');
});

t.test('the edit form is prefilled with every current value, escaped', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, {
    title: HOSTILE,
    authorName: `${HOSTILE} author`,
    seriesName: `${HOSTILE} series`,
    volume: 7,
    tagNames: ['<b>tag</b>', 'two'],
    summary: HOSTILE,
    description: HOSTILE,
    sourceUrl: 'https://example.com/?q="><script>alert(1)</script>',
    contentHtml: '<p>Body &lt;script&gt;</p>',
  });
  const res = await ctx.page(`/stories/${story.id}/edit`);
  t.equal(res.statusCode, 200);
  const html = parseHtml(res.body);
  t.ok(html.one(`form[action="/stories/${story.id}/edit"]`));
  t.equal(html.attr('#story-title', 'value'), HOSTILE);
  t.equal(html.attr('#story-author', 'value'), `${HOSTILE} author`);
  t.equal(html.attr('#story-series', 'value'), `${HOSTILE} series`);
  t.equal(html.attr('#story-volume', 'value'), '7');
  t.equal(html.attr('#story-tags', 'value'), '<b>tag</b>, two');
  t.equal(html.text('#story-summary'), HOSTILE);
  t.equal(html.text('#story-description'), HOSTILE);
  t.equal(html.attr('#story-source', 'value'), 'https://example.com/?q="><script>alert(1)</script>');
  t.equal(html.text('#story-body'), '<p>Body &lt;script&gt;</p>');
  t.equal(html.all('h1').length, 1);
  assertNoMarkup(t, res.body);
  t.notOk(html.one('input[name="removeCover"]'), 'no remove-cover box without a cover');
});

t.test('edit via the form: title change, cover added then removed; unknown ids 404, bad ids 400', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx, { title: 'Old', tagNames: ['keep'], summary: 'S' });
  const res = await postForm(ctx, `/stories/${story.id}/edit`, [
    ...fields({ title: 'New', tags: 'keep, added', summary: '', action: 'save' }),
    { name: 'cover', data: png(), filename: 'c.png', contentType: 'image/png' },
  ]);
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, `/stories/${story.id}`);
  let dto = (await ctx.get(`/api/stories/${story.id}`)).json();
  t.equal(dto.title, 'New');
  t.equal(dto.summary, null, 'an emptied field is cleared');
  t.same(dto.tags.map((tag: { name: string }) => tag.name), ['added', 'keep']);
  t.ok(dto.coverPath);
  const page = parseHtml((await ctx.page(`/stories/${story.id}/edit`)).body);
  t.ok(page.one('input[name="removeCover"]'), 'a story with a cover offers to remove it');
  const untouched = await postForm(ctx, `/stories/${story.id}/edit`, [
    ...fields({ title: 'New', tags: 'keep, added', action: 'save' }),
    { name: 'cover', data: Buffer.alloc(0), filename: '', contentType: 'application/octet-stream' },
  ]);
  t.equal(untouched.statusCode, 303, 'an empty file input (no file chosen) is no cover, not a bad image');
  t.equal((await ctx.get(`/api/stories/${story.id}`)).json().coverPath, dto.coverPath, 'and keeps the cover');
  const removed = await postForm(ctx, `/stories/${story.id}/edit`, fields({ title: 'New', tags: 'keep', removeCover: '1', action: 'save' }));
  t.equal(removed.statusCode, 303);
  dto = (await ctx.get(`/api/stories/${story.id}`)).json();
  t.equal(dto.coverPath, null);

  const missing = await ctx.page(`/stories/${MISSING_ID}/edit`);
  t.equal(missing.statusCode, 404);
  t.match(missing.headers['content-type'], /text\/html/);
  const bad = await ctx.page('/stories/not-a-uuid/edit');
  t.equal(bad.statusCode, 400);
  t.match(bad.headers['content-type'], /text\/html/);
  const missingPost = await postForm(ctx, `/stories/${MISSING_ID}/edit`, fields({ title: 'x' }));
  t.equal(missingPost.statusCode, 404);
});

t.test('a cross-site form post is refused', async (t) => {
  const ctx = await buildWebTestApp(t);
  const res = await postForm(ctx, '/stories/new', fields({ title: 'CSRF' }), { origin: 'http://evil.example' });
  t.equal(res.statusCode, 403);
  t.equal((await ctx.get('/api/stories')).json().totalElements, 0);
  const tag = await createTag(ctx, 'victim');
  const rename = await ctx.app.inject({
    method: 'POST',
    url: `/tags/${tag.id}/rename`,
    payload: 'name=pwned',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example' },
    cookies: { token: ctx.token },
  });
  t.equal(rename.statusCode, 403);
});

t.test('suggestion fragments: escaped options, bounded', async (t) => {
  const ctx = await buildWebTestApp(t);
  await createAuthor(ctx, { name: `Ann ${HOSTILE}` });
  await createTag(ctx, 'fantasy');
  await createTag(ctx, 'fable');
  const authors = await ctx.page(`/stories/suggest/authors?authorName=ann`);
  t.equal(authors.statusCode, 200);
  t.equal(parseHtml(authors.body).attr('option', 'value'), `Ann ${HOSTILE}`);
  t.notOk(authors.body.includes('<script>'), 'escaped');
  const tags = await ctx.page(`/stories/suggest/tags?tags=${encodeURIComponent('dark, fa')}`);
  t.same(parseHtml(tags.body).all('option').map((o) => o.attribs.value), ['dark, fable', 'dark, fantasy']);
  const none = await ctx.page('/stories/suggest/series?seriesName=');
  t.equal(parseHtml(none.body).all('option').length, 0);
});

t.test('the author form: prefilled, escaped, saves with avatar, validation 400 and 409', async (t) => {
  const ctx = await buildWebTestApp(t);
  const author = await createAuthor(ctx, { name: HOSTILE, notes: HOSTILE, urls: ['https://a.example/', 'https://b.example/'] });
  t.equal((await ctx.put(`/api/authors/${author.id}`, { rating: 4 })).statusCode, 200);
  await createAuthor(ctx, { name: 'Taken' });
  const res = await ctx.page(`/authors/${author.id}/edit`);
  t.equal(res.statusCode, 200);
  const html = parseHtml(res.body);
  t.equal(html.attr('#author-name', 'value'), HOSTILE);
  t.equal(html.text('#author-notes'), HOSTILE);
  t.equal(html.text('#author-urls'), 'https://a.example/\nhttps://b.example/'.replace(/\n/g, ' '));
  t.equal(html.attr('#author-rating', 'value'), '4');
  t.equal(html.attr(`form[action="/authors/${author.id}/edit"]`, 'enctype'), 'multipart/form-data');
  assertNoMarkup(t, res.body);

  const bad = await postForm(ctx, `/authors/${author.id}/edit`, fields({ name: ' ', notes: 'n', urls: 'https://ok.example/\njavascript:alert(1)', authorRating: '9' }));
  t.equal(bad.statusCode, 400);
  const badHtml = parseHtml(bad.body);
  for (const id of ['author-name', 'author-urls', 'author-rating']) {
    t.equal(badHtml.attr(`#${id}`, 'aria-invalid'), 'true', `${id} is marked`);
    t.ok(badHtml.text(`#${id}-error`), `${id} has a message`);
  }
  t.match(badHtml.text('#author-urls'), 'javascript:alert(1)', 'values kept');

  const taken = await postForm(ctx, `/authors/${author.id}/edit`, fields({ name: 'taken', notes: '', urls: '', authorRating: '' }));
  t.equal(taken.statusCode, 409);
  t.ok(parseHtml(taken.body).text('#author-name-error'), 'the conflict is shown beside the name');

  const ok = await postForm(ctx, `/authors/${author.id}/edit`, [
    ...fields({ name: 'Renamed', notes: '', urls: 'https://c.example/\n\n', authorRating: '' }),
    { name: 'avatar', data: png(), filename: 'a.png', contentType: 'image/png' },
  ]);
  t.equal(ok.statusCode, 303);
  t.equal(ok.headers.location, `/authors/${author.id}`);
  const dto = (await ctx.get(`/api/authors/${author.id}`)).json();
  t.equal(dto.name, 'Renamed');
  t.equal(dto.notes, null);
  t.same(dto.urls, ['https://c.example/']);
  t.equal(dto.authorRating, null);
  t.match(dto.avatarImagePath, /^avatars\//);
  t.equal((await ctx.page(`/authors/${MISSING_ID}/edit`)).statusCode, 404);
});

t.test('tag management: list with counts, unused filter, rename (409 re-renders), delete with confirmation', async (t) => {
  const ctx = await buildWebTestApp(t);
  const used = await createTag(ctx, 'used-tag');
  const unused = await createTag(ctx, '<script>alert(1)</script>');
  await createStory(ctx, { tagNames: ['used-tag'] });
  const list = await ctx.page('/tags');
  t.equal(list.statusCode, 200);
  const html = parseHtml(list.body);
  t.equal(html.all('h1').length, 1);
  t.match(html.text('.manage-tags__list'), 'used-tag (1 story)');
  t.ok(html.one(`form[action="/tags/${used.id}/rename"]`), 'a rename form per tag');
  t.ok(html.one(`a[href="/tags/${unused.id}/delete"]`), 'a delete link per tag');
  t.ok(html.one(`a[href="/tags/${encodeURIComponent('<script>alert(1)</script>')}"]`), 'the tag link is percent-encoded');
  assertNoMarkup(t, list.body);
  const only = parseHtml((await ctx.page('/tags?unused=1')).body);
  t.same(only.texts('.manage-tags__name a'), ['<script>alert(1)</script>'], 'unused only');
  t.equal((await ctx.page('/tags?page=-1')).statusCode, 400);
  t.equal((await ctx.page('/tags?unused=yes')).statusCode, 400);

  const conflict = await ctx.form(`/tags/${unused.id}/rename`, { name: 'USED-TAG', back: '/tags' });
  t.equal(conflict.statusCode, 409);
  const conflictHtml = parseHtml(conflict.body);
  t.equal(conflictHtml.attr(`#tag-name-${unused.id}`, 'value'), 'USED-TAG', 'what was typed is kept');
  t.equal(conflictHtml.attr(`#tag-name-${unused.id}`, 'aria-invalid'), 'true');
  t.ok(conflictHtml.one('.error-summary[role="alert"]'));
  const blank = await ctx.form(`/tags/${unused.id}/rename`, { name: '  ' });
  t.equal(blank.statusCode, 400);

  const renamed = await ctx.form(`/tags/${unused.id}/rename`, { name: 'Fresh', back: '/tags?unused=1' });
  t.equal(renamed.statusCode, 303);
  t.equal(renamed.headers.location, '/tags?unused=1');
  t.equal((await ctx.get(`/api/tags/${unused.id}`)).json().name, 'fresh');
  const offsite = await ctx.form(`/tags/${unused.id}/rename`, { name: 'fresh', back: '//evil.example/' });
  t.equal(offsite.headers.location, '/tags', 'back never leaves /tags');

  const confirm = await ctx.page(`/tags/${unused.id}/delete`);
  t.equal(confirm.statusCode, 200);
  t.ok(parseHtml(confirm.body).one(`form[action="/tags/${unused.id}/delete"][method="post"]`), 'the confirmation posts the delete');
  t.equal((await ctx.get(`/api/tags/${unused.id}`)).statusCode, 200, 'the GET deletes nothing');
  const deleted = await ctx.form(`/tags/${unused.id}/delete`, {});
  t.equal(deleted.statusCode, 303);
  t.equal((await ctx.get(`/api/tags/${unused.id}`)).statusCode, 404);
  t.equal((await ctx.page(`/tags/${MISSING_ID}/delete`)).statusCode, 404);
  t.equal((await ctx.form(`/tags/${MISSING_ID}/rename`, { name: 'x' })).statusCode, 404);
});

t.test('empty tag list', async (t) => {
  const ctx = await buildWebTestApp(t);
  const html = parseHtml((await ctx.page('/tags')).body);
  t.equal(html.text('#tags-count'), 'No tags yet.');
  t.notOk(html.one('.manage-tags__list'));
});

t.test('a story of several chapters is edited without a body field, and saving keeps every chapter', async (t) => {
  const ctx = await buildWebTestApp(t);
  const chapters = [
    { title: 'One', contentHtml: '<p>First night.</p>' },
    { title: 'Two', contentHtml: '<p>Second night.</p>' },
  ];
  const created = await ctx.post('/api/stories', { title: 'Nights', chapters });
  const story = created.json() as { id: string; contentHtml: string };
  const page = parseHtml((await ctx.page(`/stories/${story.id}/edit`)).body);
  t.notOk(page.one('textarea[name="body"]'), 'no body field');
  t.match(page.text('#story-chapters-note'), /2 chapters/);
  const saved = await postForm(ctx, `/stories/${story.id}/edit`, fields({ title: 'Nights renamed', body: '<p>flattened</p>', bodyFormat: 'html', action: 'save' }));
  t.equal(saved.statusCode, 303);
  const dto = (await ctx.get(`/api/stories/${story.id}`)).json() as { title: string; chapterCount: number; contentHtml: string };
  t.equal(dto.title, 'Nights renamed');
  t.equal(dto.chapterCount, 2, 'the chapters are kept');
  t.equal(dto.contentHtml, story.contentHtml, 'and their text, even when a body was posted');
  const one = await createStory(ctx, { title: 'Single', contentHtml: '<p>x</p>' });
  t.ok(parseHtml((await ctx.page(`/stories/${one.id}/edit`)).body).one('textarea[name="body"]'), 'a one-chapter story keeps its body field');
});
