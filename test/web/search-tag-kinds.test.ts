/**
 * The search page by tag kind (docs/decisions.md, "Search page", "Tag kinds"): each kind's facet
 * is a list of links adding that name to the kind's filter, the filter narrows the hits, a chosen
 * name stays in the form as a ticked box and in every paging link.
 */
import t from 'tap';
import { writeTransaction } from '../../src/db/transaction.js';
import { nameKey } from '../../src/lib/names.js';
import { findOrCreateTags, setMissingTagKinds } from '../../src/tags/repository.js';
import { buildWebTestApp, parseHtml } from '../helpers/web.js';
import { createStory } from '../helpers/factories.js';

t.test('fandom facet links filter by fandom, kept in the form and the pages', async (t) => {
  const ctx = await buildWebTestApp(t);
  await createStory(ctx, { title: 'Potions', tagNames: ['Harry Potter', 'angst'], contentHtml: '<p>A lantern.</p>' });
  await createStory(ctx, { title: 'Warp', tagNames: ['Star Trek'], contentHtml: '<p>A lantern.</p>' });
  await createStory(ctx, { title: 'Both', tagNames: ['Harry Potter', 'Star Trek'], contentHtml: '<p>A lantern.</p>' });
  writeTransaction(ctx.app.db, (tx) => {
    setMissingTagKinds(tx, findOrCreateTags(tx, ['harry potter', 'star trek']), new Map([[nameKey('harry potter'), 'fandom'], [nameKey('star trek'), 'fandom']]));
  });

  const page = parseHtml((await ctx.page('/search?q=lantern')).body);
  t.same(page.texts('ul[aria-labelledby="search-facet-fandom"] a'), ['harry potter', 'star trek'], 'the fandoms, most stories first');
  t.notOk(page.one('#search-facet-character'), 'a kind no match has is not shown');
  const href = page.attr('ul[aria-labelledby="search-facet-fandom"] a', 'href') as string;
  t.same(new URL(href, 'http://x').searchParams.getAll('fandoms'), ['harry potter'], 'the link sets the fandom filter');

  const filtered = parseHtml((await ctx.page(href)).body);
  t.same(filtered.texts('.search-hit h2, .search-hit h3').sort(), ['Both', 'Potions'], 'only that fandom');
  t.equal(filtered.attr('input[name="fandoms"][checked]', 'value'), 'harry potter', 'the form keeps it');
  t.same(filtered.texts('ul[aria-labelledby="search-facet-fandom"] a'), ['star trek'], 'a chosen fandom is not offered again');
  const both = new URL(filtered.attr('ul[aria-labelledby="search-facet-fandom"] a', 'href') as string, 'http://x').searchParams.getAll('fandoms');
  t.same(both, ['harry potter', 'star trek'], 'a second fandom adds to the first');

  const only = parseHtml((await ctx.page('/search?fandoms=star+trek&size=1')).body);
  t.equal(only.all('.search-hit').length, 1, 'a kind filter alone asks for results');
  const next = only.attr('a[rel="next"]', 'href');
  t.ok(next !== undefined && new URL(next, 'http://x').searchParams.get('fandoms') === 'star trek', 'paging keeps the kind filter');

  const tooMany = await ctx.page(`/search?${Array.from({ length: 101 }, (_, i) => `fandoms=f${i}`).join('&')}`);
  t.equal(tooMany.statusCode, 400);
  t.match(parseHtml(tooMany.body).text('.error-details'), 'fandoms', 'too many names is a 400 page naming the field');
});
