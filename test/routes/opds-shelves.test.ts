/**
 * Shelves in the OPDS catalog (docs/api.md, "OPDS catalog"; docs/decisions.md, "Shelves"): the
 * root leads to a navigation feed of shelves, each to an acquisition feed of its stories in the
 * shelf's order, valid Atom.
 */
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { createStory, MISSING_ID } from '../helpers/factories.js';
import { checkDocuments, linkHref, parseFeed } from '../helpers/opds.js';

const NAV = 'application/atom+xml;profile=opds-catalog;kind=navigation';
const ACQ = 'application/atom+xml;profile=opds-catalog;kind=acquisition';

t.test('the root leads to the shelves, each shelf to its stories in its order', async (t) => {
  const ctx = await buildTestApp(t);
  const a = await createStory(ctx, { title: 'Alpha', tagNames: ['sea'] });
  const b = await createStory(ctx, { title: 'Beta <&>', tagNames: ['sea'] });
  await createStory(ctx, { title: 'Gamma' });
  const manual = (await ctx.post('/api/shelves', { name: 'Next <up>', kind: 'manual' })).json();
  await ctx.put(`/api/shelves/${manual.id}/stories`, { storyIds: [b.id, a.id] });
  const smart = (await ctx.post('/api/shelves', { name: 'At sea', kind: 'smart', query: { tags: ['sea'], sortBy: 'title', sortDir: 'asc' } })).json();

  const root = parseFeed((await ctx.get('/opds')).body);
  const entry = root.entries.find((candidate) => candidate.title === 'Shelves');
  t.same([entry?.links[0]?.href, entry?.links[0]?.type], ['/opds/shelves', NAV], 'reachable from the catalog root');

  const list = await ctx.get('/opds/shelves');
  t.equal(list.headers['content-type'], NAV);
  const shelves = parseFeed(list.body);
  t.same(
    shelves.entries.map((item) => [item.title, item.content, item.links[0]?.href, item.links[0]?.type]),
    [
      ['At sea', 'A saved search', `/opds/shelves/${smart.id}`, ACQ],
      ['Next <up>', '2 stories', `/opds/shelves/${manual.id}`, ACQ],
    ],
    'A–Z, a manual shelf with its count',
  );

  const next = await ctx.get(`/opds/shelves/${manual.id}`);
  t.equal(next.headers['content-type'], ACQ);
  const nextFeed = parseFeed(next.body);
  t.equal(nextFeed.title, 'Next <up>');
  t.equal(linkHref(nextFeed.links, 'up'), '/opds/shelves');
  t.same(nextFeed.entries.map((item) => item.title), ['Beta <&>', 'Alpha'], "the shelf's order");
  const atSea = await ctx.get(`/opds/k/${'x'.repeat(3)}/shelves/${smart.id}`);
  t.equal(atSea.statusCode, 401, 'the path form needs a real token');
  const seaFeed = parseFeed((await ctx.get(`/opds/shelves/${smart.id}`)).body);
  t.same(seaFeed.entries.map((item) => item.title), ['Alpha', 'Beta <&>'], "a smart shelf's search, in its sort");

  await checkDocuments(t, [
    { name: 'shelves', xml: list.body, atom: true },
    { name: 'shelf', xml: next.body, atom: true },
  ]);
  t.equal((await ctx.get(`/opds/shelves/${MISSING_ID}`)).statusCode, 404);
  t.equal((await ctx.get('/opds/shelves/nope')).statusCode, 400);
});
