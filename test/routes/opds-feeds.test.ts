/**
 * The OPDS catalog's feeds (docs/api.md, "OPDS catalog"; docs/decisions.md, "OPDS catalog") through the
 * real HTTP stack on a real SQLite file: the shape of each feed kind, the entries, paging, the
 * sort facets, the navigation to authors, series and tags, continue reading, search, the
 * OpenSearch description, and conditional GETs.
 */
import t, { type Test } from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory, MISSING_ID } from '../helpers/factories.js';
import { linkHref, parseFeed, type ParsedFeed } from '../helpers/opds.js';

const NAV = 'application/atom+xml;profile=opds-catalog;kind=navigation';
const ACQ = 'application/atom+xml;profile=opds-catalog;kind=acquisition';
const FACET = 'http://opds-spec.org/facet';

async function feed(t: Test, ctx: TestContext, url: string, kind: 'navigation' | 'acquisition'): Promise<ParsedFeed> {
  const res = await ctx.get(url);
  t.equal(res.statusCode, 200, `GET ${url}`);
  t.equal(res.headers['content-type'], kind === 'navigation' ? NAV : ACQ, `${url} is a ${kind} feed`);
  return parseFeed(res.body);
}

t.test('the root is a navigation feed of every list, with search', async (t) => {
  const ctx = await buildTestApp(t);
  const root = await feed(t, ctx, '/opds', 'navigation');
  t.equal(root.root, 'feed');
  t.equal(root.id, 'urn:storyshelf:opds:catalog');
  t.equal(linkHref(root.links, 'self'), '/opds');
  t.equal(linkHref(root.links, 'start'), '/opds');
  t.equal(linkHref(root.links, 'search', 'application/opensearchdescription+xml'), '/opds/search.xml');
  t.equal(linkHref(root.links, 'search', ACQ), '/opds/search?q={searchTerms}');
  t.same(
    root.entries.map((entry) => [entry.title, entry.links[0]?.href, entry.links[0]?.type]),
    [
      ['Continue reading', '/opds/continue', ACQ],
      ['Updated', '/opds/updated', ACQ],
      ['Want to read', '/opds/want-to-read', ACQ],
      ['Reading', '/opds/reading', ACQ],
      ['Favourites', '/opds/favourites', ACQ],
      ['Recently added', '/opds/stories?sort=added', ACQ],
      ['Recently updated', '/opds/stories?sort=updated', ACQ],
      ['All stories A–Z', '/opds/stories', ACQ],
      ['Top rated', '/opds/top-rated', ACQ],
      ['Authors', '/opds/authors', NAV],
      ['Series', '/opds/series', NAV],
      ['Tags', '/opds/tags', NAV],
      ['Shelves', '/opds/shelves', NAV],
      ['By fandom', '/opds/fandoms', NAV],
    ],
  );
  t.equal(root.updated, '1970-01-01T00:00:00.000Z', 'an empty library is as old as the epoch');
  t.equal((await ctx.get('/opds/')).statusCode, 200, 'the trailing slash is the same feed');
});

t.test('an entry names the story, its author, tags, summary, EPUB, cover and web page', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, {
    title: 'The Long Walk',
    summary: 'Two friends walk.',
    authorName: 'Ada Writer',
    seriesName: 'Walks',
    volume: 2,
    tagNames: ['travel', 'friendship'],
  });
  const all = await feed(t, ctx, '/opds/stories', 'acquisition');
  t.equal(all.entries.length, 1);
  const entry = all.entries[0]!;
  t.equal(entry.id, `urn:uuid:${story.id}`);
  t.equal(entry.title, 'The Long Walk');
  t.equal(entry.updated, story.updatedAt);
  t.same(entry.authors, [{ name: 'Ada Writer', uri: `/opds/authors/${story.authorId as string}` }]);
  t.same(
    entry.categories.map((category) => category.term),
    ['friendship', 'travel'],
    'one category per tag, by name',
  );
  t.equal(entry.content, '1 chapter\n\nSeries: Walks, volume 2\n\nTwo friends walk.');
  t.equal(entry.language, undefined, 'no language given, none claimed');
  t.same(
    entry.links.map((link) => [link.rel, link.type, link.href]),
    [
      ['http://opds-spec.org/acquisition', 'application/epub+zip', `/opds/stories/${story.id}.epub`],
      ['alternate', 'text/html', `/stories/${story.id}`],
    ],
    'no cover, no image links',
  );
});

t.test('acquisition feeds page 50 at a time with first, previous, next, last and the OpenSearch counts', async (t) => {
  const ctx = await buildTestApp(t);
  for (let i = 0; i < 101; i += 1) await createStory(ctx, { title: `Story ${String(i).padStart(3, '0')}` });

  const first = await feed(t, ctx, '/opds/stories', 'acquisition');
  t.equal(first.totalResults, 101);
  t.equal(first.entries.length, 50);
  t.equal(first.entries[0]!.title, 'Story 000', 'A–Z by default');
  t.equal(linkHref(first.links, 'first'), '/opds/stories');
  t.equal(linkHref(first.links, 'previous'), undefined, 'no previous on the first page');
  t.equal(linkHref(first.links, 'next'), '/opds/stories?page=1');
  t.equal(linkHref(first.links, 'last'), '/opds/stories?page=2');

  const middle = await feed(t, ctx, '/opds/stories?sort=added&page=1', 'acquisition');
  t.equal(middle.entries.length, 50);
  const api = (await ctx.get('/api/stories?sortBy=createdAt&sortDir=desc&page=1&size=50')).json() as { content: { id: string }[] };
  t.same(
    middle.entries.map((entry) => entry.id),
    api.content.map((story) => `urn:uuid:${story.id}`),
    'page 1 newest first is the API page 1 of the same order',
  );
  t.equal(linkHref(middle.links, 'self'), '/opds/stories?sort=added&page=1');
  t.equal(linkHref(middle.links, 'first'), '/opds/stories?sort=added', 'paging keeps the sort');
  t.equal(linkHref(middle.links, 'previous'), '/opds/stories?sort=added');
  t.equal(linkHref(middle.links, 'next'), '/opds/stories?sort=added&page=2');
  t.equal(linkHref(middle.links, 'last'), '/opds/stories?sort=added&page=2');

  const last = await feed(t, ctx, '/opds/stories?page=2', 'acquisition');
  t.same(
    last.entries.map((entry) => entry.title),
    ['Story 100'],
  );
  t.equal(linkHref(last.links, 'next'), undefined, 'no next on the last page');
  t.equal(linkHref(last.links, 'previous'), '/opds/stories?page=1');

  const beyond = await feed(t, ctx, '/opds/stories?page=7', 'acquisition');
  t.equal(beyond.entries.length, 0, 'a page past the end is empty, not an error');
  t.equal(linkHref(beyond.links, 'previous'), '/opds/stories?page=2', 'previous from beyond the end is the last page');

  for (const bad of ['page=-1', 'page=x', 'sort=author', `page=${Number.MAX_SAFE_INTEGER}`]) {
    const res = await ctx.get(`/opds/stories?${bad}`);
    t.equal(res.statusCode, 400, `${bad} is a 400`);
    t.ok(res.json().details, 'naming the field');
  }
});

t.test('the all-stories feed offers five sort facets, the current one active', async (t) => {
  const ctx = await buildTestApp(t);
  await createStory(ctx, { title: 'Bravo', rating: 2, contentHtml: '<p>one two three</p>' });
  await createStory(ctx, { title: 'alpha', rating: 5, contentHtml: '<p>one</p>' });
  await createStory(ctx, { title: 'Charlie', contentHtml: '<p>one two three four five</p>' });

  const byWords = await feed(t, ctx, '/opds/stories?sort=words', 'acquisition');
  const facets = byWords.links.filter((link) => link.rel === FACET);
  t.same(
    facets.map((link) => [link.href, link['opds:facetGroup'], link['opds:activeFacet']]),
    [
      ['/opds/stories?sort=added', 'Sort', undefined],
      ['/opds/stories?sort=updated', 'Sort', undefined],
      ['/opds/stories?sort=title', 'Sort', undefined],
      ['/opds/stories?sort=rating', 'Sort', undefined],
      ['/opds/stories?sort=words', 'Sort', 'true'],
    ],
  );
  t.ok(facets.every((link) => link.type === ACQ && link.title !== undefined));
  t.same(
    byWords.entries.map((entry) => entry.title),
    ['Charlie', 'Bravo', 'alpha'],
    'longest first',
  );
  const titles = async (url: string) => (await feed(t, ctx, url, 'acquisition')).entries.map((entry) => entry.title);
  t.same(await titles('/opds/stories'), ['alpha', 'Bravo', 'Charlie'], 'A–Z ignores case');
  t.same(await titles('/opds/stories?sort=rating'), ['alpha', 'Bravo', 'Charlie'], 'best first, unrated last');
  t.same(await titles('/opds/top-rated'), ['alpha', 'Bravo'], 'top rated leaves unrated stories out');
  const top = await feed(t, ctx, '/opds/top-rated', 'acquisition');
  t.equal(top.totalResults, 2, 'counts rated stories only');
  t.equal(
    top.links.filter((link) => link.rel === FACET).length,
    0,
    'facets belong to the all-stories feed only',
  );
});

t.test('authors, series and tags lead to acquisition feeds of their stories', async (t) => {
  const ctx = await buildTestApp(t);
  const third = await createStory(ctx, { title: 'Part three', authorName: 'Zed', seriesName: 'Saga', volume: 3, tagNames: ['epic'] });
  const first = await createStory(ctx, { title: 'Part one', authorName: 'Zed', seriesName: 'Saga', volume: 1, tagNames: ['epic', 'short'] });
  const loose = await createStory(ctx, { title: 'Part unnumbered', authorName: 'Amy', seriesName: 'Saga' });

  const authors = await feed(t, ctx, '/opds/authors', 'navigation');
  t.same(
    authors.entries.map((entry) => [entry.title, entry.content, entry.links[0]?.rel, entry.links[0]?.type]),
    [
      ['Amy', '1 story', 'subsection', ACQ],
      ['Zed', '2 stories', 'subsection', ACQ],
    ],
    'A–Z, with counts',
  );
  t.equal(authors.totalResults, 2);
  const zed = await feed(t, ctx, authors.entries[1]!.links[0]!.href!, 'acquisition');
  t.equal(zed.title, 'Zed');
  t.equal(linkHref(zed.links, 'up'), '/opds/authors');
  t.same(
    zed.entries.map((entry) => entry.id),
    [`urn:uuid:${first.id}`, `urn:uuid:${third.id}`],
    'newest first',
  );

  const series = await feed(t, ctx, '/opds/series', 'navigation');
  t.same(
    series.entries.map((entry) => entry.title),
    ['Saga'],
  );
  const saga = await feed(t, ctx, series.entries[0]!.links[0]!.href!, 'acquisition');
  t.same(
    saga.entries.map((entry) => entry.title),
    ['Part one', 'Part three', 'Part unnumbered'],
    'volume order, unnumbered last',
  );
  t.equal(saga.totalResults, 3);
  t.equal(loose.seriesId, first.seriesId);

  const tags = await feed(t, ctx, '/opds/tags', 'navigation');
  t.same(
    tags.entries.map((entry) => [entry.title, entry.content]),
    [
      ['epic', '2 stories'],
      ['short', '1 story'],
    ],
    'most used first',
  );
  const epic = await feed(t, ctx, tags.entries[0]!.links[0]!.href!, 'acquisition');
  t.equal(epic.title, 'epic');
  t.equal(epic.entries.length, 2);

  for (const url of [`/opds/authors/${MISSING_ID}`, `/opds/series/${MISSING_ID}`, `/opds/tags/${MISSING_ID}`]) {
    const res = await ctx.get(url);
    t.equal(res.statusCode, 404, `${url} is a 404`);
    t.match(res.json(), { error: String });
  }
  t.equal((await ctx.get('/opds/authors/not-a-uuid')).statusCode, 400);
  t.equal((await ctx.get('/opds/nothing-here')).statusCode, 404);
});

t.test('continue reading lists the stories in progress, last read first', async (t) => {
  const ctx = await buildTestApp(t);
  const a = await createStory(ctx, { title: 'A' });
  const b = await createStory(ctx, { title: 'B' });
  await createStory(ctx, { title: 'Unread' });
  const done = await createStory(ctx, { title: 'Finished' });
  for (const [id, progress] of [
    [b.id, 0.5],
    [a.id, 0.2],
    [done.id, 1],
  ] as const) {
    t.equal((await ctx.put(`/api/stories/${id}/progress`, { progress, position: null })).statusCode, 200);
  }
  const continuing = await feed(t, ctx, '/opds/continue', 'acquisition');
  t.same(
    continuing.entries.map((entry) => entry.title),
    ['A', 'B'],
  );
  t.equal(continuing.totalResults, 2);
});

t.test("the reader's lists: want to read, reading and favourites, newest first, paged", async (t) => {
  const ctx = await buildTestApp(t);
  const made: Record<string, string> = {};
  for (const title of ['Wish one', 'Wish two', 'Begun', 'Held', 'Loved']) made[title] = (await createStory(ctx, { title })).id;
  for (const [title, status] of [
    ['Wish one', 'want-to-read'],
    ['Wish two', 'want-to-read'],
    ['Held', 'on-hold'],
  ] as const) {
    t.equal((await ctx.put(`/api/stories/${made[title]}/reading-status`, { status })).statusCode, 200);
  }
  t.equal((await ctx.put(`/api/stories/${made.Begun}/progress`, { progress: 0.1, position: null })).statusCode, 200, 'opened: reading');
  for (const title of ['Loved', 'Wish one']) t.equal((await ctx.put(`/api/stories/${made[title]}/favourite`, { favourite: true })).statusCode, 200);

  const wanted = await feed(t, ctx, '/opds/want-to-read', 'acquisition');
  t.equal(wanted.id, 'urn:storyshelf:opds:want-to-read');
  t.equal(wanted.title, 'Want to read');
  t.same(wanted.entries.map((entry) => entry.title), ['Wish two', 'Wish one'], 'newest first');
  t.equal(wanted.totalResults, 2);
  t.same((await feed(t, ctx, '/opds/reading', 'acquisition')).entries.map((entry) => entry.title), ['Begun'], 'a story opened is reading; on hold is not');
  t.same((await feed(t, ctx, '/opds/favourites', 'acquisition')).entries.map((entry) => entry.title), ['Loved', 'Wish one']);
  t.equal((await feed(t, ctx, '/opds/favourites?page=1', 'acquisition')).entries.length, 0, 'a page past the end is empty');
  t.equal((await ctx.get('/opds/reading?page=-1')).statusCode, 400, 'a bad page is 400');
});

t.test('search answers through the search service, with an OpenSearch description', async (t) => {
  const ctx = await buildTestApp(t);
  const dragon = await createStory(ctx, { title: 'The dragon of the north', contentHtml: '<p>Scales and fire.</p>' });
  await createStory(ctx, { title: 'A quiet garden' });

  const found = await feed(t, ctx, '/opds/search?q=dragon', 'acquisition');
  t.same(
    found.entries.map((entry) => entry.id),
    [`urn:uuid:${dragon.id}`],
  );
  t.equal(found.totalResults, 1);
  t.equal(linkHref(found.links, 'self'), '/opds/search?q=dragon');
  const everything = await feed(t, ctx, '/opds/search?q=', 'acquisition');
  t.equal(everything.totalResults, 2, 'blank text matches every story, as in the API');
  t.equal((await ctx.get('/opds/search')).statusCode, 400, 'q is required');

  const res = await ctx.request({ method: 'GET', url: '/opds/search.xml', headers: { host: 'books.example:8443' } });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-type'], 'application/opensearchdescription+xml');
  const description = parseFeed(res.body);
  t.equal(description.root, 'OpenSearchDescription');
  t.same(description.addresses, ['http://books.example:8443/opds/search?q={searchTerms}'], 'an absolute template on the host asked for');
});

t.test('feeds carry an ETag and answer 304 while unchanged', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, { title: 'Before' });
  const first = await ctx.get('/opds/stories');
  const etag = first.headers.etag as string;
  t.match(etag, /^W\/"[\w-]+"$/);
  t.equal(first.headers['cache-control'], 'private, no-cache');
  const again = await ctx.request({ method: 'GET', url: '/opds/stories', headers: { 'if-none-match': etag } });
  t.equal(again.statusCode, 304);
  t.equal(again.body, '');
  t.equal((await ctx.put(`/api/stories/${story.id}`, { title: 'After' })).statusCode, 200);
  const changed = await ctx.request({ method: 'GET', url: '/opds/stories', headers: { 'if-none-match': etag } });
  t.equal(changed.statusCode, 200, 'a change makes a new feed');
  t.not(changed.headers.etag, etag);
});

t.test('top rated pages through the rated stories only, in the rating order of the lists', async (t) => {
  const ctx = await buildTestApp(t);
  for (let i = 0; i < 51; i += 1) await createStory(ctx, { title: `Rated ${i}`, rating: (i % 5) + 1 });
  for (let i = 0; i < 5; i += 1) await createStory(ctx, { title: `Unrated ${i}` });
  const first = await feed(t, ctx, '/opds/top-rated', 'acquisition');
  const second = await feed(t, ctx, '/opds/top-rated?page=1', 'acquisition');
  t.equal(first.totalResults, 51);
  t.equal(first.entries.length, 50);
  t.equal(second.entries.length, 1, 'the last page stops where the rated stories do');
  t.equal(linkHref(first.links, 'last'), '/opds/top-rated?page=1');
  const api = (await ctx.get('/api/stories?sortBy=rating&sortDir=desc&size=100')).json() as { content: { id: string }[] };
  t.same(
    [...first.entries, ...second.entries].map((entry) => entry.id),
    api.content.slice(0, 51).map((story) => `urn:uuid:${story.id}`),
    'the order of the API rating sort, unrated left out',
  );
  t.equal((await feed(t, ctx, '/opds/top-rated?page=2', 'acquisition')).entries.length, 0);
});

t.test('an entry gives every author, its chapters, status and language; "By fandom" leads to the fandoms\' stories', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, {
    title: 'Harbour lights',
    authorNames: ['Ada Shore', 'Ben Quay'],
    tagNames: ['Sea Tales', 'gulls'],
    status: 'in-progress',
    language: 'pt-BR',
    chapters: [
      { title: 'One', contentHtml: '<p>First.</p>' },
      { title: 'Two', contentHtml: '<p>Second.</p>' },
    ],
  });
  const other = await createStory(ctx, { title: 'Inland', tagNames: ['gulls'] });
  // Kinds come from importers only: the probe gives the rows theirs.
  ctx.app.db.$client.prepare("UPDATE tags SET kind = 'fandom' WHERE name = 'sea tales'").run();
  ctx.app.db.$client.prepare("UPDATE tags SET kind = 'freeform' WHERE name = 'gulls'").run();

  const all = await feed(t, ctx, '/opds/stories', 'acquisition');
  const entry = all.entries.find((candidate) => candidate.id === `urn:uuid:${story.id}`)!;
  const ids = (story.authors as { id: string }[]).map((author) => author.id);
  t.same(entry.authors, [
    { name: 'Ada Shore', uri: `/opds/authors/${ids[0]}` },
    { name: 'Ben Quay', uri: `/opds/authors/${ids[1]}` },
  ], 'one <author> each, in order');
  t.equal(entry.content, '2 chapters · In progress');
  t.equal(entry.language, 'pt-BR');
  t.equal(all.entries.find((candidate) => candidate.id === `urn:uuid:${other.id}`)?.language, undefined);

  const fandoms = await feed(t, ctx, '/opds/fandoms', 'navigation');
  t.equal(fandoms.title, 'By fandom');
  t.equal(linkHref(fandoms.links, 'up', NAV), '/opds');
  t.same(fandoms.entries.map((item) => [item.title, item.content]), [['sea tales', '1 story']], 'only tags of kind fandom');
  const fandomFeed = await feed(t, ctx, fandoms.entries[0]!.links[0]!.href!, 'acquisition');
  t.same(fandomFeed.entries.map((item) => item.id), [`urn:uuid:${story.id}`]);
});
