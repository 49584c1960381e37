import t, { type Test } from 'tap';
import { MISSING_ID } from '../helpers/factories.js';
import { buildWebTestApp, parseHtml, type WebTestContext } from '../helpers/web.js';

const HOSTILE = `<script>alert(1)</script>" onmouseover="alert(1)`;

/** The hostile text never becomes markup: no script element, no event-handler attribute, and it is there escaped. */
function assertEscaped(t: Test, body: string, label: string): void {
  t.notOk(body.includes('<script>alert(1)'), `${label}: no script markup`);
  t.equal(parseHtml(body).all('[onmouseover]').length, 0, `${label}: no onmouseover attribute`);
  t.ok(body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), `${label}: the text is shown escaped`);
}

async function json<T>(res: Promise<{ statusCode: number; json: () => unknown; body: string }>): Promise<T> {
  const answer = await res;
  if (answer.statusCode >= 300) throw new Error(`${answer.statusCode} ${answer.body}`);
  return answer.json() as T;
}

interface Story { id: string; authorId: string; seriesId: string; tags: Array<{ name: string }> }

async function hostileLibrary(ctx: WebTestContext): Promise<Story> {
  const story = await json<Story>(
    ctx.post('/api/stories', {
      title: `T ${HOSTILE}`,
      authorName: `A ${HOSTILE}`,
      seriesName: `S ${HOSTILE}`,
      tagNames: [`G ${HOSTILE}`],
      volume: 2,
      rating: 4,
      contentHtml: '<p>x</p>',
    }),
  );
  await json(ctx.put(`/api/authors/${story.authorId}`, { notes: `line one ${HOSTILE}\nline two`, urls: ['https://example.org/a'] }));
  await json(ctx.put(`/api/stories/${story.id}/progress`, { progress: 0.4, position: null }));
  return story;
}

t.test('every browse page renders a full hostile model escaped, with working links', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await hostileLibrary(ctx);
  const tagName = story.tags[0]!.name;
  const pages = {
    home: '/',
    libraryGrid: '/library',
    libraryList: '/library?view=list',
    author: `/authors/${story.authorId}`,
    series: `/series/${story.seriesId}`,
    tag: `/tags/${encodeURIComponent(tagName)}`,
  };
  for (const [label, url] of Object.entries(pages)) {
    const res = await ctx.page(url);
    t.equal(res.statusCode, 200, `${label} is 200`);
    t.match(res.headers['content-type'], /text\/html/);
    assertEscaped(t, res.body, label);
    const html = parseHtml(res.body);
    t.equal(html.all('h1').length, 1, `${label}: one h1`);
    t.ok(html.one(`a[href="/stories/${story.id}"]`), `${label}: links to the story`);
    if (label !== 'series') t.ok(html.one(`a[href="/tags/${encodeURIComponent(tagName)}"]`), `${label}: links to the tag, percent-encoded`);
    t.ok(html.one(`a[href="/authors/${story.authorId}"]`) || label === 'author', `${label}: links to the author`);
  }
  const home = parseHtml((await ctx.page('/')).body);
  t.equal(home.attr('progress', 'value'), '40', 'continue reading shows the progress');
  t.match(home.text('#home-continue'), 'Continue reading');
  const author = parseHtml((await ctx.page(pages.author)).body);
  t.equal(author.all('.notes br').length, 1, 'line breaks in notes are kept');
  t.equal(author.attr('.author-links a', 'rel'), 'noopener noreferrer nofollow');
  const list = parseHtml((await ctx.page('/library?view=list')).body);
  t.ok(list.one('table.story-table'), 'the list layout is a table');
  t.equal(list.text('table td.num'), '1 word');
});

t.test('an empty library renders the empty models with help to add a story', async (t) => {
  const ctx = await buildWebTestApp(t);
  for (const url of ['/', '/library']) {
    const res = await ctx.page(url);
    t.equal(res.statusCode, 200);
    const html = parseHtml(res.body);
    t.ok(html.one('a[href="/stories/new"]'), `${url}: an Add story link`);
    t.equal(html.all('.story-card').length, 0);
  }
  const author = await json<{ id: string }>(ctx.post('/api/authors', { name: 'Nobody' }));
  const page = parseHtml((await ctx.page(`/authors/${author.id}`)).body);
  t.match(page.text('.empty'), 'No stories by this author');
  const series = await json<{ id: string }>(ctx.post('/api/series', { name: 'Empty' }));
  t.match(parseHtml((await ctx.page(`/series/${series.id}`)).body).text('.empty'), 'no stories');
});

t.test('unknown ids and tags are 404 pages; bad query values are 400 pages naming the field', async (t) => {
  const ctx = await buildWebTestApp(t);
  for (const url of [`/authors/${MISSING_ID}`, `/series/${MISSING_ID}`, '/tags/no-such-tag']) {
    const res = await ctx.page(url);
    t.equal(res.statusCode, 404, url);
    t.match(res.headers['content-type'], /text\/html/);
    t.equal(parseHtml(res.body).text('h1'), 'Page not found');
  }
  const bad = {
    '/library?sortBy=nope': 'sortBy',
    '/library?sortDir=sideways': 'sortDir',
    '/library?page=-1': 'page',
    '/library?size=1000': 'size',
    '/library?view=cards': 'view',
    '/library?minRating=9': 'minRating',
    '/library?author=not-a-uuid': 'author',
    [`/library?series=${MISSING_ID}`]: 'series',
    '/library?tag=unknown-tag': 'tag',
    '/library?page=1e308': 'page',
    '/authors/not-a-uuid': 'id',
    '/tags/x?page=abc': 'page',
  };
  for (const [url, field] of Object.entries(bad)) {
    const res = await ctx.page(url);
    t.equal(res.statusCode, 400, url);
    t.match(res.headers['content-type'], /text\/html/);
    t.match(parseHtml(res.body).text('.error-details'), field, `${url} names ${field}`);
  }
  const blanks = await ctx.page('/library?sortBy=title&tag=&minRating=&author=');
  t.equal(blanks.statusCode, 200, 'blank form fields are no filter');
});

t.test('paging keeps every filter and the sort; the sort is reflected in the form', async (t) => {
  const ctx = await buildWebTestApp(t);
  const author = await json<{ id: string }>(ctx.post('/api/authors', { name: 'Pager' }));
  for (let i = 0; i < 7; i += 1) {
    await json(ctx.post('/api/stories', { title: `P${i}`, authorId: author.id, tagNames: ['paged'], rating: 1 + (i % 5) }));
  }
  await json(ctx.post('/api/stories', { title: 'Other', tagNames: ['paged'], rating: 5 }));
  const url = `/library?sortBy=title&sortDir=asc&tag=paged&author=${author.id}&minRating=2&size=2&view=list`;
  const res = await ctx.page(url);
  t.equal(res.statusCode, 200);
  const html = parseHtml(res.body);
  t.same(html.texts('table th[scope="row"] a'), ['P1', 'P2'], 'filtered (rating ≥ 2, this author, not Other) and sorted by title');
  t.equal(html.attr('#library-sort option[selected]', 'value'), 'title', 'sort reflected');
  t.equal(html.attr('#library-dir option[selected]', 'value'), 'asc');
  t.equal(html.attr('#library-rating option[selected]', 'value'), '2');
  t.equal(html.attr('#library-tag', 'value'), 'paged');
  t.equal(html.attr('input[name="author"]', 'value'), author.id, 'the author filter is kept in the form');
  const next = html.attr('a[rel="next"]', 'href')!;
  const params = new URL(next, 'http://x').searchParams;
  for (const [name, value] of <Array<[string, string]>>[['sortBy', 'title'], ['sortDir', 'asc'], ['tag', 'paged'], ['author', author.id], ['minRating', '2'], ['size', '2'], ['view', 'list'], ['page', '1']]) {
    t.equal(params.get(name), value, `next keeps ${name}`);
  }
  const second = parseHtml((await ctx.page(next)).body);
  t.same(second.texts('table th[scope="row"] a'), ['P3', 'P4'], 'the next page continues the order');
  t.ok(second.attr('a[rel="prev"]', 'href')?.includes('tag=paged'), 'prev keeps the filters');
  t.equal(second.attr('.pager a[aria-current="page"]', 'aria-label'), 'Page 2, current');
  const all = parseHtml((await ctx.page('/library?sortBy=title&sortDir=desc&size=3')).body);
  t.same(all.texts('.story-card .card-title a'), ['P6', 'P5', 'P4'], 'unfiltered: the API list order');
});

t.test('a tag named with URL syntax round-trips through its percent-encoded link', async (t) => {
  const ctx = await buildWebTestApp(t);
  const name = 'a/b ?&#%';
  await json(ctx.post('/api/stories', { title: 'Odd tag', tagNames: [name] }));
  const library = parseHtml((await ctx.page('/library')).body);
  const href = library.attr('.tag-list a', 'href')!;
  t.equal(href, `/tags/${encodeURIComponent(name)}`);
  const res = await ctx.page(href);
  t.equal(res.statusCode, 200);
  const html = parseHtml(res.body);
  t.equal(html.text('h1'), `Tag: ${name}`);
  t.same(html.texts('.card-title a'), ['Odd tag']);
  const filtered = parseHtml((await ctx.page(html.attr('main p a', 'href')!)).body);
  t.same(filtered.texts('.card-title a'), ['Odd tag'], 'the library link filters by the same tag');
});

t.test('a stored javascript: author URL is shown as text, never as a link', async (t) => {
  const ctx = await buildWebTestApp(t);
  const author = await json<{ id: string }>(ctx.post('/api/authors', { name: 'Old data', urls: ['https://ok.example/'] }));
  ctx.app.db.$client.prepare('INSERT INTO author_urls (author_id, position, url) VALUES (?, 9, ?)').run(author.id, 'javascript:alert(1)');
  const res = await ctx.page(`/authors/${author.id}`);
  const html = parseHtml(res.body);
  t.same(html.all('a').filter((a) => (a.attribs.href ?? '').toLowerCase().startsWith('javascript')), [], 'no javascript: href');
  t.equal(html.text('.unsafe-url'), 'javascript:alert(1)', 'shown as text');
  t.equal(html.attr('.author-links a', 'href'), 'https://ok.example/');
});

t.test('the library and home pages run no query per story', async (t) => {
  const ctx = await buildWebTestApp(t);
  const client = ctx.app.db.$client;
  const proto = Object.getPrototypeOf(client.prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>;
  let statements = 0;
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  for (const method of ['all', 'get', 'run', 'iterate']) {
    const original = proto[method]!;
    originals.set(method, original);
    proto[method] = function (this: unknown, ...args: unknown[]) {
      statements += 1;
      return original.apply(this, args);
    };
  }
  t.teardown(() => {
    for (const [method, original] of originals) proto[method] = original;
  });
  const count = async (url: string) => {
    statements = 0;
    const res = await ctx.page(url);
    t.equal(res.statusCode, 200, url);
    return statements;
  };
  const add = async (n: number) => {
    for (let i = 0; i < n; i += 1) {
      const story = await json<{ id: string }>(ctx.post('/api/stories', { title: `N${i}`, authorName: `W${i}`, seriesName: `S${i}`, tagNames: [`t${i}`, 'all'], rating: 3 }));
      await json(ctx.put(`/api/stories/${story.id}/progress`, { progress: 0.5, position: null }));
    }
  };
  await add(2);
  const urls = ['/', '/library', '/library?view=list&sortBy=title', '/library?tag=all&minRating=2', '/tags/all'];
  const few: Array<[string, number]> = [];
  for (const url of urls) few.push([url, await count(url)]);
  await add(8);
  for (const [url, before] of few) {
    const after = await count(url);
    t.ok(after > 0, `${url}: statements are counted`);
    t.equal(after, before, `${url}: ${after} statements for 2 or 10 stories`);
  }
});
