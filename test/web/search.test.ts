import t, { type Test } from 'tap';
import { buildWebTestApp, parseHtml } from '../helpers/web.js';
import { createStory } from '../helpers/factories.js';
import { safeSnippet, searchHref } from '../../src/web/search/view.js';

const SCRIPT = '<script>alert(1)</script>';
const ATTR = '" onmouseover="alert(1)';
const IMG = '<img src=x onerror=alert(1)>';

/** No element or attribute a hostile string could have made. */
function assertNoInjectedMarkup(t: Test, body: string): void {
  const html = parseHtml(body);
  t.equal(html.all('img').length, 0, 'no <img> made from text');
  t.equal(html.all('[onmouseover]').length + html.all('[onerror]').length, 0, 'no event handler attribute');
  t.equal(html.all('script').filter((script) => script.attribs.src === undefined).length, 0, 'no inline script');
  t.notMatch(body, SCRIPT, 'the script tag never appears raw');
}

t.test('with nothing asked, the page is the form and the help, not every story', async (t) => {
  const ctx = await buildWebTestApp(t);
  await createStory(ctx, { title: 'Dragon tale', tagNames: ['popular one'] });
  const res = await ctx.page('/search');
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /text\/html/);
  const html = parseHtml(res.body);
  t.equal(html.all('h1').length, 1);
  t.equal(html.text('h1'), 'Search');
  t.equal(html.attr('form.search-page-form', 'action'), '/search');
  t.equal(html.attr('form.search-page-form', 'method'), 'get');
  for (const id of ['search-q', 'search-author-add', 'search-tag-add', 'search-min-rating', 'search-max-rating', 'search-sort']) {
    t.ok(html.one(`label[for="${id}"]`), `${id} has a label`);
  }
  t.ok(html.one('#search-help-heading'), 'the help is shown');
  t.equal(html.all('.search-hit').length, 0, 'no story listed');
  t.equal(html.attr('#search-summary', 'aria-live'), 'polite', 'the live region is there, empty');
  t.equal(html.text('#search-summary'), '');
  t.same(
    html.all('#search-tag-choices option').map((option) => option.attribs.value),
    ['popular one'],
    'the tag input offers the used tags',
  );
  t.equal(html.attr('#search-q', 'hx-get'), '/search/suggestions');
  t.equal(html.attr('#search-q', 'hx-target'), '#search-suggestions');
  t.equal(html.attr('#search-suggestions', 'aria-live'), 'polite');
  t.equal(html.attr('#site-search-q', 'hx-get'), '/search/suggestions', 'the header box suggests too');
  t.equal(html.attr('a[href="/search"]', 'aria-current'), 'page');
});

t.test('results: links, marks kept, every other string escaped', async (t) => {
  const ctx = await buildWebTestApp(t);
  const hostile = await createStory(ctx, {
    title: `${SCRIPT} dragon ${ATTR}`,
    authorName: `${SCRIPT} author ${ATTR}`,
    seriesName: `${SCRIPT} series`,
    volume: 2,
    rating: 4,
    tagNames: [`${SCRIPT} tag`, 'a/b?c#d'],
    contentHtml: `<p>The dragon sleeps. ${'&lt;b&gt;bold&lt;/b&gt;'}</p>`,
  });
  const img = await createStory(ctx, { title: IMG, contentHtml: '<p>A dragon of images.</p>' });

  const res = await ctx.page(`/search?q=${encodeURIComponent(`dragon`)}`);
  t.equal(res.statusCode, 200);
  assertNoInjectedMarkup(t, res.body);
  const html = parseHtml(res.body);
  t.equal(html.all('.search-hit').length, 2);
  t.equal(html.text('#search-summary'), '2 stories found for “dragon”.');
  t.equal(html.attr('#search-summary', 'aria-live'), 'polite');
  t.equal(html.text('h1'), 'Search results for “dragon”');

  t.same(
    html.texts('.search-hit__title a').sort(),
    [`${SCRIPT} dragon ${ATTR}`, IMG].sort(),
    'titles are text, whatever they hold',
  );
  t.ok(html.one(`.search-hit__title a[href="/stories/${hostile.id}"]`), 'the title links to the story');
  t.ok(html.one(`.search-hit__title a[href="/stories/${img.id}"]`));
  t.equal(html.text(`.search-hit__meta a[href="/authors/${String(hostile.authorId)}"]`), `${SCRIPT} author ${ATTR}`);
  t.equal(html.text(`.search-hit__meta a[href="/series/${String(hostile.seriesId)}"]`), `${SCRIPT} series, volume 2`);
  t.match(html.text('.search-hit__meta'), /Rating 4 of 5/);
  t.ok(html.one(`.search-hit__tags a[href="/tags/${encodeURIComponent(`${SCRIPT} tag`)}"]`), 'tag names are percent-encoded');
  t.ok(html.one('.search-hit__tags a[href="/tags/a%2Fb%3Fc%23d"]'));

  const snippets = html.all('.search-hit__snippet');
  t.ok(snippets.length > 0, 'snippets are shown');
  t.ok(html.all('.search-hit__snippet mark').length > 0, 'matches are marked');
  for (const snippet of snippets) {
    const tags = snippet.children.filter((child) => child.type === 'tag').map((child) => (child as { name: string }).name);
    t.same([...new Set(tags)], ['mark'], 'a snippet holds no markup but <mark>');
  }
  t.equal(html.all('.search-hit__snippet b').length, 0, 'escaped text in a story stays text in its snippet');
});

t.test('hostile search text stays in the box as text', async (t) => {
  const ctx = await buildWebTestApp(t);
  for (const q of [SCRIPT, ATTR, IMG]) {
    const res = await ctx.page(`/search?q=${encodeURIComponent(q)}&tags=${encodeURIComponent(ATTR)}&authors=${encodeURIComponent(SCRIPT)}`);
    t.equal(res.statusCode, 200, q);
    assertNoInjectedMarkup(t, res.body);
    const html = parseHtml(res.body);
    t.equal(html.attr('#search-q', 'value'), q);
    t.equal(html.attr('#site-search-q', 'value'), q, 'the header box keeps it too');
    t.equal(html.attr('input[name="tags"][checked]', 'value'), ATTR, 'the chosen tag is a checked box');
    t.equal(html.attr('input[name="authors"][checked]', 'value'), SCRIPT);
    t.equal(html.text('#search-summary'), `0 stories found for “${q}”.`);
  }
});

t.test('filters are applied and kept in every paging link', async (t) => {
  const ctx = await buildWebTestApp(t);
  for (let i = 0; i < 7; i += 1) await createStory(ctx, { title: `Fox ${i}`, tagNames: ['wild west'], rating: 4, authorName: 'Ann Author' });
  await createStory(ctx, { title: 'Fox untagged', rating: 4, authorName: 'Ann Author' });
  await createStory(ctx, { title: 'Fox low', tagNames: ['wild west'], rating: 1, authorName: 'Ann Author' });

  const first = await ctx.page('/search?q=fox&tags=wild+west&authors=Ann+Author&minRating=3&maxRating=5&sort=title&size=3&authors=&tags=');
  t.equal(first.statusCode, 200, 'blank fields of a submitted form are ignored');
  const html = parseHtml(first.body);
  t.equal(html.text('#search-summary'), '7 stories found for “fox”.');
  t.same(html.texts('.search-hit__title a'), ['Fox 0', 'Fox 1', 'Fox 2'], 'sorted by title, 3 a page');
  t.equal(html.attr('#search-min-rating option[selected]', 'value'), '3');
  t.equal(html.attr('#search-max-rating option[selected]', 'value'), '5');
  t.equal(html.attr('#search-sort option[selected]', 'value'), 'title');
  t.equal(html.attr('input[type="hidden"][name="size"]', 'value'), '3', 'the page size is kept by the form');

  const links = html.all('.search-pages a');
  t.same(links.map((a) => a.attribs['aria-current'] ?? ''), ['page', '', '', ''], 'pages 1-3 and next');
  const expected = (page: number) => `/search?q=fox&authors=Ann+Author&tags=wild+west&minRating=3&maxRating=5&sort=title&size=3${page > 0 ? `&page=${page}` : ''}`;
  t.same(links.map((a) => a.attribs.href), [expected(0), expected(1), expected(2), expected(1)]);
  t.equal(html.attr('.search-pages a[rel="next"]', 'href'), expected(1));

  const last = parseHtml((await ctx.page(expected(2))).body);
  t.same(last.texts('.search-hit__title a'), ['Fox 6'], 'the filter still applies on the last page');
  t.equal(last.attr('.search-pages a[rel="prev"]', 'href'), expected(1));
  t.notOk(last.one('.search-pages a[rel="next"]'), 'no next on the last page');

  const past = await ctx.page(expected(9));
  t.equal(past.statusCode, 200, 'a page past the last is a page, not an error');
  t.equal(parseHtml(past.body).attr('.search-results p a', 'href'), expected(0), 'with a way back');

  const blank = parseHtml((await ctx.page('/search?q=&tags=wild+west')).body);
  t.equal(blank.text('#search-summary'), '8 stories found.', 'blank text with a filter lists every story it keeps');
  const star = parseHtml((await ctx.page('/search?q=*')).body);
  t.equal(star.text('#search-summary'), '9 stories found.', '* lists every story, as in the API');
});

t.test('bounded page numbers', async (t) => {
  t.equal(searchHref({ q: 'a b', page: 0, size: 20, tags: ['x,y'] }, 4), '/search?q=a+b&tags=x&tags=y&page=4', 'comma lists are split');
  const ctx = await buildWebTestApp(t);
  for (let i = 0; i < 30; i += 1) await createStory(ctx, { title: `Owl ${i}` });
  const html = parseHtml((await ctx.page('/search?q=owl&size=1&page=15')).body);
  t.same(html.texts('.search-pages li'), ['Previous', 'Page 1', '…', 'Page 14', 'Page 15', 'Page 16', 'Page 17', 'Page 18', '…', 'Page 30', 'Next']);
});

t.test('bad parameters are a 400 page naming the field, never a 500', async (t) => {
  const ctx = await buildWebTestApp(t);
  const cases: Array<[string, string]> = [
    ['minRating=9', 'minRating'],
    ['maxRating=0', 'maxRating'],
    ['minRating=5&maxRating=2', 'minRating'],
    ['page=-1', 'page'],
    ['page=1e308', 'page'],
    ['page=900719925474099', 'page'],
    ['size=1000', 'size'],
    ['size=0', 'size'],
    ['sort=sideways', 'sort'],
    [`tags=${'a,'.repeat(101)}`, 'tags'],
  ];
  for (const [params, field] of cases) {
    const res = await ctx.page(`/search?q=fox&${params}`.replace('q=fox&q=', 'q='));
    t.equal(res.statusCode, 400, params);
    t.match(res.headers['content-type'], /text\/html/, `${params}: an HTML page`);
    const html = parseHtml(res.body);
    t.equal(html.all('h1').length, 1);
    t.match(html.texts('.error-details strong'), [field], `${params}: names ${field}`);
  }
  // The API takes a malformed percent-encoding (a lone surrogate's UTF-8, a stray byte) as the
  // literal text; so does the page: a search for that text, never a 500.
  for (const raw of ['%ED%A0%80', '%FF']) {
    const res = await ctx.page(`/search?q=${raw}`);
    t.equal(res.statusCode, 200, raw);
    t.equal(parseHtml(res.body).attr('#search-q', 'value'), raw, `${raw}: kept as typed`);
  }
});

t.test('logged out, the page sends to the login', async (t) => {
  const ctx = await buildWebTestApp(t);
  const res = await ctx.anonymous.page('/search?q=fox');
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, `/login?next=${encodeURIComponent('/search?q=fox')}`);
  t.equal((await ctx.anonymous.page('/search/suggestions?q=fox')).statusCode, 303);
});

t.test('suggestions: a fragment of links to their searches', async (t) => {
  const ctx = await buildWebTestApp(t);
  await createStory(ctx, { title: 'Dragonfly summer' });
  await createStory(ctx, { title: `Dragon ${SCRIPT}`, authorName: `Drago ${ATTR}` });
  const res = await ctx.page('/search/suggestions?q=drag');
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /text\/html/);
  t.notMatch(res.body, /<html|<main|<h1/i, 'a fragment, not a page');
  assertNoInjectedMarkup(t, res.body);
  const html = parseHtml(res.body);
  const labels = html.texts('.search-suggestions__list a');
  t.ok(labels.includes('Dragonfly summer'), 'titles are suggested');
  t.ok(labels.includes(`Dragon ${SCRIPT}`), 'hostile text is text');
  t.equal(html.attr('.search-suggestions__list a', 'href'), `/search?q=${encodeURIComponent(labels[0]!).replace(/%20/g, '+')}`);
  t.ok(labels.length <= 8, 'bounded');

  for (const q of ['', '%20', 'zzzz']) {
    const empty = await ctx.page(`/search/suggestions?q=${q}`);
    t.equal(empty.statusCode, 200, `q=${q}`);
    t.equal(parseHtml(empty.body).all('a').length, 0, `q=${q}: nothing suggested`);
  }
  t.equal((await ctx.page('/search/suggestions')).statusCode, 200, 'no q is no suggestion');
  t.equal((await ctx.page(`/search/suggestions?q=${'a'.repeat(201)}`)).statusCode, 400);
});

t.test('a snippet with any markup but <mark> is escaped whole', async (t) => {
  t.equal(safeSnippet('a <mark>fox</mark> &amp; b'), 'a <mark>fox</mark> &amp; b');
  t.equal(safeSnippet(`<mark>x</mark>${IMG}`), '&lt;mark&gt;x&lt;/mark&gt;&lt;img src=x onerror=alert(1)&gt;');
  t.equal(safeSnippet('<mark onclick="x">a</mark>'), '&lt;mark onclick=&quot;x&quot;&gt;a&lt;/mark&gt;');
  t.equal(safeSnippet(null), undefined);
  t.equal(safeSnippet(''), undefined);
});

t.test('a hit in a chapter of a longer work says which chapter; a one-chapter story says none', async (t) => {
  const ctx = await buildWebTestApp(t);
  await createStory(ctx, {
    title: 'Harbour nights',
    chapters: [
      { title: 'Dusk', contentHtml: '<p>The lamp was lit.</p>' },
      { title: `Dawn ${SCRIPT}`, contentHtml: '<p>A cormorant landed.</p>' },
    ],
  });
  await createStory(ctx, { title: 'Inland', contentHtml: '<p>A cormorant inland.</p>' });
  const res = await ctx.page('/search?q=cormorant');
  t.equal(res.statusCode, 200);
  assertNoInjectedMarkup(t, res.body);
  t.same(parseHtml(res.body).texts('.search-hit__chapter'), [`In chapter 2: Dawn ${SCRIPT}`], 'the title is text');
});
