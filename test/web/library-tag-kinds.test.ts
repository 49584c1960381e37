/**
 * The library page by tag kind (docs/decisions.md, "Tag kinds"; "Browse pages"): `fandom` and the
 * other kinds' names filter `/library`, alone, together and with the other filters; the page lists
 * each kind's most used tags as links that set the filter with the others kept; a name that is no
 * tag of that kind is a 400 page naming the field.
 */
import t, { type Test } from 'tap';
import { writeTransaction } from '../../src/db/transaction.js';
import { nameKey } from '../../src/lib/names.js';
import type { TagKind } from '../../src/schemas/tag.js';
import { findOrCreateTags, setMissingTagKinds } from '../../src/tags/repository.js';
import { buildWebTestApp, parseHtml, type WebTestContext } from '../helpers/web.js';

/** Gives tags their kinds the way an importer does. */
function giveKinds(ctx: WebTestContext, kinds: Record<string, TagKind>): void {
  writeTransaction(ctx.app.db, (tx) => {
    setMissingTagKinds(tx, findOrCreateTags(tx, Object.keys(kinds)), new Map(Object.entries(kinds).map(([name, kind]) => [nameKey(name), kind])));
  });
}

async function library(t: Test, ctx: WebTestContext, url: string): Promise<{ titles: string[]; html: ReturnType<typeof parseHtml> }> {
  const res = await ctx.page(url);
  t.equal(res.statusCode, 200, `${url}: 200`);
  const html = parseHtml(res.body);
  return { titles: html.texts('.card-title').sort(), html };
}

t.test('filter by fandom and the other kinds; the lists link to them with the filters kept', async (t) => {
  const ctx = await buildWebTestApp(t);
  const stories: Array<[string, string[], number]> = [
    ['Alpha', ['Harry Potter', 'Teen', 'angst'], 4],
    ['Beta', ['Harry Potter', 'Explicit'], 2],
    ['Gamma', ['Star Trek', 'Teen', 'Harry Potter/Draco Malfoy'], 5],
    ['Delta', ['harry potter/draco malfoy'], 3],
  ];
  for (const [title, tagNames, rating] of stories) {
    const res = await ctx.post('/api/stories', { title, tagNames, rating, contentHtml: '<p>x</p>' });
    t.equal(res.statusCode, 201);
  }
  giveKinds(ctx, { 'harry potter': 'fandom', 'star trek': 'fandom', teen: 'rating', explicit: 'rating', 'harry potter/draco malfoy': 'relationship' });

  const all = await library(t, ctx, '/library');
  t.same(all.titles, ['Alpha', 'Beta', 'Delta', 'Gamma']);
  const fandoms = 'ul[aria-labelledby="library-kind-fandom"]';
  t.same(all.html.texts(`${fandoms} a`), ['harry potter', 'star trek'], 'each fandom, most stories first');
  t.same(
    all.html.all(`${fandoms} a`).map((link) => link.attribs.href),
    ['/library?fandom=harry+potter', '/library?fandom=star+trek'],
    'each a link to its filter',
  );
  t.match(all.html.text(fandoms), /harry potter \(2\).*star trek \(1\)/, 'with the story counts');
  t.ok(all.html.one('#library-kind-rating'), 'the content ratings are listed too');
  t.notOk(all.html.one('#library-kind-character'), 'a kind with no tag is not');

  t.same((await library(t, ctx, '/library?fandom=Harry%20Potter')).titles, ['Alpha', 'Beta'], 'one fandom, any letter case');
  t.same((await library(t, ctx, '/library?fandom=harry+potter&contentRating=teen')).titles, ['Alpha'], 'two kinds: both required');
  t.same((await library(t, ctx, '/library?relationship=harry+potter%2Fdraco+malfoy')).titles, ['Delta', 'Gamma'], 'a relationship');
  t.same((await library(t, ctx, '/library?fandom=harry+potter&minRating=3&tag=angst')).titles, ['Alpha'], 'with the other filters');
  t.same((await library(t, ctx, '/library?tag=harry+potter')).titles, ['Alpha', 'Beta'], '`tag` still names a tag whatever its kind');

  const filtered = await library(t, ctx, '/library?fandom=harry+potter&sortBy=title&view=list');
  t.match(filtered.html.text('.filter-chips'), /Fandoms: harry potter/, 'the fandom filter is shown');
  t.equal(filtered.html.attr('.filter-chips a', 'href'), '/library?view=list&sortBy=title', 'its removal keeps the rest');
  t.equal(filtered.html.attr('input[type="hidden"][name="fandom"]', 'value'), 'harry potter', 'the form keeps it');
  t.notOk(filtered.html.one('#library-kind-fandom'), 'the kind already filtered is not offered again');
  t.equal(
    filtered.html.attr('ul[aria-labelledby="library-kind-rating"] a', 'href'),
    '/library?view=list&sortBy=title&fandom=harry+potter&contentRating=teen',
    "another kind's link keeps the fandom, the sort and the layout",
  );
});

t.test('a name that is no tag of that kind is a 400 naming the field; blanks are no filter', async (t) => {
  const ctx = await buildWebTestApp(t);
  await ctx.post('/api/stories', { title: 'One', tagNames: ['harry potter', 'angst'], contentHtml: '<p>x</p>' });
  giveKinds(ctx, { 'harry potter': 'fandom' });
  for (const [url, field] of [
    ['/library?fandom=nobody', 'fandom'],
    ['/library?fandom=angst', 'fandom'],
    ['/library?character=harry+potter', 'character'],
    [`/library?warning=${'x'.repeat(256)}`, 'warning'],
  ] as const) {
    const res = await ctx.page(url);
    t.equal(res.statusCode, 400, url);
    t.match(parseHtml(res.body).text('.error-details'), field, `${url} names ${field}`);
  }
  t.equal((await ctx.page('/library?fandom=&character=')).statusCode, 200, 'blank fields filter nothing');
});
