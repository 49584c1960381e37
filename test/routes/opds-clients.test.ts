/**
 * What real catalog clients need from the OPDS feeds (docs/decisions.md, "OPDS catalog"): no
 * author, series or tag that leads to an empty feed; the series where NYPL's and Readium's
 * parsers look for it (each parser's rule written out from its documented behaviour); the
 * summary where Foliate reads it.
 */
import { DomUtils, parseDocument } from 'htmlparser2';
import { isTag, type Element } from 'domhandler';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import { parseFeed } from '../helpers/opds.js';

t.test('authors, series and tags without stories are left out of the navigation feeds', async (t) => {
  const ctx = await buildTestApp(t);
  await createStory(ctx, { title: 'Kept', authorName: 'Stays', seriesName: 'Lasting', tagNames: ['kept'] });
  const gone = await createStory(ctx, { title: 'Gone', authorName: 'Leaves', seriesName: 'Over', tagNames: ['orphan', 'kept'] });
  t.equal((await ctx.del(`/api/stories/${gone.id}`)).statusCode, 200);
  t.equal((await ctx.post('/api/tags', { name: 'never used' })).statusCode, 201);

  const titles = async (url: string) => {
    const feed = parseFeed((await ctx.get(url)).body);
    return { titles: feed.entries.map((entry) => entry.title), total: feed.totalResults };
  };
  t.same(await titles('/opds/authors'), { titles: ['Stays'], total: 1 }, 'the author of a deleted story is gone from the catalog');
  t.same(await titles('/opds/series'), { titles: ['Lasting'], total: 1 });
  t.same(await titles('/opds/tags'), { titles: ['kept'], total: 1 }, 'unused tags are left out');
  const api = (await ctx.get('/api/tags?size=10')).json() as { totalElements: number };
  t.equal(api.totalElements, 3, 'the API still lists every tag');
});

/** The entries of a feed and the prefixes its root declares, by namespace URI. */
function entriesWithPrefixes(xml: string) {
  const root = parseDocument(xml, { xmlMode: true }).children.find((node): node is Element => isTag(node))!;
  const prefixes = new Map<string, string>();
  for (const [name, value] of Object.entries(root.attribs)) if (name.startsWith('xmlns:')) prefixes.set(value, name.slice('xmlns:'.length));
  const entries = root.children.filter((node): node is Element => isTag(node) && node.name === 'entry');
  return { prefixes, entries };
}

const child = (entry: Element, name: string) => entry.children.find((node): node is Element => isTag(node) && node.name === name);

t.test('series as NYPL and Readium read them, the summary as Foliate reads it', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, { title: 'Second', summary: 'Two & more.', seriesName: 'Saga <1>', volume: 2 });
  await createStory(ctx, { title: 'Loose' });
  const { prefixes, entries } = entriesWithPrefixes((await ctx.get('/opds/stories')).body);
  const [loose, second] = entries;

  // NYPL's opds-feed-parser: the prefix the root declares for http://schema.org/, the element
  // <prefix:Series>, its unprefixed name and its prefixed position.
  const nypl = prefixes.get('http://schema.org/');
  t.ok(nypl, 'the root declares http://schema.org/');
  const nyplSeries = child(second!, `${nypl}:Series`);
  t.same([nyplSeries?.attribs.name, nyplSeries?.attribs[`${nypl}:position`]], ['Saga <1>', '2'], 'NYPL: name and position');

  // Readium's r2-opds-js: Series in http://schema.org, with name, position and url in it too.
  const readium = prefixes.get('http://schema.org');
  t.ok(readium, 'the root declares http://schema.org');
  const readiumSeries = child(second!, `${readium}:Series`);
  t.same(
    [readiumSeries?.attribs[`${readium}:name`], readiumSeries?.attribs[`${readium}:position`], readiumSeries?.attribs[`${readium}:url`]],
    ['Saga <1>', '2', `/opds/series/${story.seriesId as string}`],
    'Readium: name, position and the series feed',
  );
  t.equal(child(loose!, `${nypl}:Series`), undefined, 'no series, no element');

  t.equal(DomUtils.textContent(child(second!, 'summary')!), 'Two & more.', 'Foliate reads <summary>');
  t.equal(child(loose!, 'summary'), undefined, 'no summary, no element');
  t.match(DomUtils.textContent(child(second!, 'content')!), /Two & more\./, '<content> keeps it too');
});
