/**
 * The search page's typo notice and facet links (docs/decisions.md, "Search page", "Typo
 * tolerance", "Search facets"): what the engine corrected is said, with a link to the words as
 * typed; facets are links that add one filter each; every name is escaped.
 */
import t from 'tap';
import { buildWebTestApp, parseHtml } from '../helpers/web.js';
import { createStory } from '../helpers/factories.js';
import type { EmbeddedSearchEngine } from '../../src/search/embedded/engine.js';
import { exactWordsText } from '../../src/web/search/query.js';

const HOSTILE = '<b>Lane</b> & "Co"';

t.test('a corrected search says so and links to the words as typed', async (t) => {
  const ctx = await buildWebTestApp(t);
  await createStory(ctx, { title: 'The Keeper', contentHtml: '<p>A silver dollar under the stairs.</p>' });
  await (ctx.app.searchEngine as EmbeddedSearchEngine).refreshTerms();

  const res = await ctx.page('/search?q=silver+dolar');
  t.equal(res.statusCode, 200);
  const html = parseHtml(res.body);
  t.equal(html.all('.search-hit').length, 1);
  t.equal(html.text('#search-correction strong'), 'silver dollar');
  t.match(html.text('#search-correction'), /^Showing results for silver dollar\. Search for exactly “silver dolar” instead\.$/);
  t.equal(html.text('#search-summary'), '1 story found for “silver dollar”.');
  const exact = html.attr('#search-correction a', 'href') as string;
  t.equal(new URL(exact, 'http://x').searchParams.get('q'), '"silver dolar"', 'the link searches the words quoted');

  const typed = parseHtml((await ctx.page(exact)).body);
  t.equal(typed.all('.search-hit').length, 0, 'the words as typed find nothing');
  t.notOk(typed.one('#search-correction'), 'and are not corrected again');
  t.equal(typed.text('#search-summary'), '0 stories found for “"silver dolar"”.');

  const plain = parseHtml((await ctx.page('/search?q=dollar')).body);
  t.notOk(plain.one('#search-correction'), 'no notice for an exact hit');

  // A quoted piece is shown as typed in the correction: markup in it must stay text.
  const hostile = await ctx.page(`/search?q=${encodeURIComponent('dolar "under<!--"')}`);
  const marked = parseHtml(hostile.body);
  t.equal(marked.all('.search-hit').length, 1, 'the quoted word matches, the other is corrected');
  t.equal(marked.text('#search-correction strong'), 'dollar "under<!--"', 'shown as typed');
  t.notMatch(hostile.body, 'under<!--', 'the markup never appears raw');
});

t.test('exact-words text quotes the whole text once', async (t) => {
  t.equal(exactWordsText('silver dolar'), '"silver dolar"');
  t.equal(exactWordsText('a "b" c'), '"a  b  c"');
  t.equal(exactWordsText('"'), '"');
});

t.test('facet links add one filter each, counted over every result, names escaped', async (t) => {
  const ctx = await buildWebTestApp(t);
  for (let i = 0; i < 3; i += 1) {
    await createStory(ctx, { title: `Lantern ${i}`, authorName: HOSTILE, tagNames: ['sea & sky', `only ${i}`], rating: 4 });
  }
  await createStory(ctx, { title: 'Lantern 3', authorName: 'Ann Other', tagNames: ['sea & sky'], rating: 2 });

  const res = await ctx.page('/search?q=lantern&size=2');
  const html = parseHtml(res.body);
  t.equal(html.all('.search-hit').length, 2, 'a page of two');
  t.equal(html.all('.search-facets b').length, 0, 'a name with markup is text');
  t.same(html.texts('ul[aria-labelledby="search-facet-authors"] li'), [`${HOSTILE} (3)`, 'Ann Other (1)'], 'authors counted over all four');
  t.same(html.texts('ul[aria-labelledby="search-facet-tags"] li'), ['sea & sky (4)', 'only 0 (1)', 'only 1 (1)', 'only 2 (1)']);
  t.same(html.texts('ul[aria-labelledby="search-facet-ratings"] li'), ['4 of 5 (3)', '2 of 5 (1)']);

  const authorLink = html.attr('ul[aria-labelledby="search-facet-authors"] a', 'href') as string;
  const authorUrl = new URL(authorLink, 'http://x');
  t.same(authorUrl.searchParams.getAll('authors'), [HOSTILE]);
  t.equal(authorUrl.searchParams.get('q'), 'lantern');
  t.equal(authorUrl.searchParams.get('size'), '2', 'the page size is kept');
  t.equal(authorUrl.searchParams.get('page'), null, 'back to the first page');
  const byAuthor = parseHtml((await ctx.page(authorLink)).body);
  t.equal(byAuthor.text('#search-summary'), '3 stories found for “lantern”.');
  t.same(byAuthor.texts('ul[aria-labelledby="search-facet-authors"] li'), [], 'the chosen author is not offered again');

  const link = (group: string, index: number) => html.all(`ul[aria-labelledby="search-facet-${group}"] a`)[index]?.attribs.href as string;
  const ratingLink = link('ratings', 1);
  const ratingUrl = new URL(ratingLink, 'http://x');
  t.equal(ratingUrl.searchParams.get('minRating'), '2');
  t.equal(ratingUrl.searchParams.get('maxRating'), '2');
  t.equal(parseHtml((await ctx.page(ratingLink)).body).all('.search-hit').length, 1);

  const tagLink = link('tags', 1);
  t.same(new URL(tagLink, 'http://x').searchParams.getAll('tags'), ['only 0']);
  const byTag = parseHtml((await ctx.page(tagLink)).body);
  t.equal(byTag.all('.search-hit').length, 1);
  t.same(byTag.texts('ul[aria-labelledby="search-facet-tags"] li'), ['sea & sky (1)'], 'the chosen tag is not offered again');

  const nothing = parseHtml((await ctx.page('/search?q=zeppelin')).body);
  t.notOk(nothing.one('.search-facets'), 'no facets when nothing matched');
});
