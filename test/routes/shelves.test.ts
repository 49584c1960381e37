import { eq } from 'drizzle-orm';
import t from 'tap';
import { epubRenditions, shelfStories } from '../../src/db/schema.js';
import { ShelfDto, ShelfPage, SHELF_STORIES_MAX } from '../../src/schemas/shelf.js';
import { StoryPage } from '../../src/schemas/story.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory, MISSING_ID } from '../helpers/factories.js';
import { assertMatches } from '../helpers/schema.js';

async function shelf(ctx: TestContext, body: Record<string, unknown>): Promise<Record<string, unknown> & { id: string }> {
  const res = await ctx.post('/api/shelves', body);
  if (res.statusCode !== 201) throw new Error(`shelf create failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

async function titlesOn(ctx: TestContext, id: string, query = ''): Promise<string[]> {
  const res = await ctx.get(`/api/shelves/${id}/stories${query}`);
  if (res.statusCode !== 200) throw new Error(`shelf stories failed: ${res.statusCode} ${res.body}`);
  return res.json().content.map((story: { title: string }) => story.title);
}

t.test('create, read, update and delete a manual shelf', async (t) => {
  const ctx = await buildTestApp(t);
  const created = await ctx.post('/api/shelves', { name: '  To read ', description: 'Next up', kind: 'manual' });
  t.equal(created.statusCode, 201);
  const item = created.json();
  assertMatches(t, ShelfDto, item, 'matches ShelfDto');
  t.match(item, { name: 'To read', description: 'Next up', kind: 'manual', query: null, storyCount: 0 });
  t.same((await ctx.get(`/api/shelves/${item.id}`)).json(), item);

  const renamed = await ctx.put(`/api/shelves/${item.id}`, { name: 'Later', description: null });
  t.equal(renamed.statusCode, 200);
  t.match(renamed.json(), { name: 'Later', description: null, kind: 'manual', createdAt: item.createdAt });
  t.ok(renamed.json().updatedAt > item.updatedAt, 'updatedAt moves on');

  await shelf(ctx, { name: 'Another', kind: 'manual' });
  const list = await ctx.get('/api/shelves');
  assertMatches(t, ShelfPage, list.json(), 'the list is a paged envelope');
  t.same(
    list.json().content.map((s: ShelfDto) => s.name),
    ['Another', 'Later'],
    'by name A to Z',
  );
  t.same(
    (await ctx.get('/api/shelves?sortBy=name&sortDir=DESC&size=1&page=1')).json().content.map((s: ShelfDto) => s.name),
    ['Another'],
    'sorted and paged',
  );

  const deleted = await ctx.del(`/api/shelves/${item.id}`);
  t.same(deleted.json(), { message: 'Shelf deleted successfully' });
  t.equal((await ctx.get(`/api/shelves/${item.id}`)).statusCode, 404);
  t.equal((await ctx.del(`/api/shelves/${item.id}`)).statusCode, 404);
});

t.test('shelf validation names every bad field and writes nothing', async (t) => {
  const ctx = await buildTestApp(t);
  const cases: Array<[string, unknown, string[]]> = [
    ['missing name and kind', {}, ['name', 'kind']],
    ['blank name', { name: ' ', kind: 'manual' }, ['name']],
    ['name over 255', { name: 'n'.repeat(256), kind: 'manual' }, ['name']],
    ['unknown kind', { name: 'S', kind: 'clever' }, ['kind']],
    ['description over 1000', { name: 'S', kind: 'manual', description: 'd'.repeat(1001) }, ['description']],
    ['a manual shelf with a query', { name: 'S', kind: 'manual', query: { tags: ['a'] } }, ['query']],
    ['a smart shelf without one', { name: 'S', kind: 'smart' }, ['query']],
    ['an unknown sort', { name: 'S', kind: 'smart', query: { sortBy: 'colour' } }, ['query']],
    ['a rating out of range', { name: 'S', kind: 'smart', query: { minRating: 6 } }, ['query']],
    ['an unknown reading status', { name: 'S', kind: 'smart', query: { readingStatus: 'skimmed' } }, ['query']],
    ['favourite not a boolean', { name: 'S', kind: 'smart', query: { favourite: 'yes' } }, ['query']],
    ['min above max', { name: 'S', kind: 'smart', query: { minRating: 4, maxRating: 2 } }, ['query.minRating']],
    ['too many tag names', { name: 'S', kind: 'smart', query: { tags: [Array.from({ length: 101 }, (_, i) => `t${i}`).join(',')] } }, ['query.tags']],
    ['blank name and bad query together', { name: '', kind: 'smart', query: { minRating: 5, maxRating: 1 } }, ['name', 'query.minRating']],
  ];
  for (const [label, body, fields] of cases) {
    const res = await ctx.post('/api/shelves', body);
    t.equal(res.statusCode, 400, label);
    for (const field of fields) t.type(res.json().details?.[field], 'string', `${label}: details.${field}`);
  }
  t.equal((await ctx.get('/api/shelves')).json().totalElements, 0, 'nothing was created');

  await shelf(ctx, { name: 'Taken', kind: 'manual' });
  const clash = await ctx.post('/api/shelves', { name: ' TAKEN ', kind: 'manual' });
  t.equal(clash.statusCode, 409, 'names are unique case-insensitively');
  t.type(clash.json().details.name, 'string');
  const other = await shelf(ctx, { name: 'Other', kind: 'manual' });
  t.equal((await ctx.put(`/api/shelves/${other.id}`, { name: 'taken' })).statusCode, 409);
  t.equal((await ctx.put(`/api/shelves/${other.id}`, { name: 'OTHER' })).statusCode, 200, 'a shelf may recase its own name');
  t.equal((await ctx.put(`/api/shelves/${other.id}`, { kind: 'smart' })).statusCode, 400, 'turning smart needs a query');
  t.equal((await ctx.put(`/api/shelves/${other.id}`, { query: { tags: ['a'] } })).statusCode, 400, 'a manual shelf takes no query');

  for (const res of [await ctx.get(`/api/shelves/${MISSING_ID}`), await ctx.put(`/api/shelves/${MISSING_ID}`, { name: 'X' }), await ctx.get(`/api/shelves/${MISSING_ID}/stories`)]) {
    t.equal(res.statusCode, 404);
    t.same(res.json(), { error: `Shelf not found with id: ${MISSING_ID}` });
  }
  t.equal((await ctx.get('/api/shelves/nope')).statusCode, 400);
  t.equal((await ctx.get('/api/shelves?sortBy=size')).statusCode, 400);
  t.equal((await ctx.app.inject({ method: 'GET', url: '/api/shelves' })).statusCode, 401);
});

t.test("a manual shelf's stories: set and order, add, remove", async (t) => {
  const ctx = await buildTestApp(t);
  const [a, b, c] = [await createStory(ctx, { title: 'A' }), await createStory(ctx, { title: 'B' }), await createStory(ctx, { title: 'C' })];
  const list = await shelf(ctx, { name: 'List', kind: 'manual' });

  const set = await ctx.put(`/api/shelves/${list.id}/stories`, { storyIds: [c.id, a.id, c.id, b.id] });
  t.equal(set.statusCode, 200);
  t.equal(set.json().storyCount, 3, 'a repeated id keeps its first place');
  const page = await ctx.get(`/api/shelves/${list.id}/stories`);
  assertMatches(t, StoryPage, page.json(), 'the paged story envelope');
  t.same(await titlesOn(ctx, list.id), ['C', 'A', 'B'], 'in the order given');
  t.same(await titlesOn(ctx, list.id, '?page=1&size=2'), ['B'], 'paged');
  t.match((await ctx.get(`/api/shelves/${list.id}/stories?page=5`)).json(), { content: [], totalElements: 3, empty: true });

  const unknown = await ctx.put(`/api/shelves/${list.id}/stories`, { storyIds: [a.id, MISSING_ID, 'ffffffff-ffff-4fff-8fff-ffffffffffff'] });
  t.equal(unknown.statusCode, 400);
  t.match(unknown.json().details.storyIds, new RegExp(`${MISSING_ID}.*ffffffff-ffff`), 'every unknown id is named');
  t.same(await titlesOn(ctx, list.id), ['C', 'A', 'B'], 'a refused PUT changes nothing');
  const tooMany = await ctx.put(`/api/shelves/${list.id}/stories`, { storyIds: Array.from({ length: SHELF_STORIES_MAX + 1 }, () => a.id) });
  t.equal(tooMany.statusCode, 400);
  t.type(tooMany.json().details.storyIds, 'string');
  t.equal((await ctx.put(`/api/shelves/${list.id}/stories`, { storyIds: ['nope'] })).statusCode, 400);
  t.equal((await ctx.put(`/api/shelves/${MISSING_ID}/stories`, { storyIds: [] })).statusCode, 404);

  t.equal((await ctx.del(`/api/shelves/${list.id}/stories/${c.id}`)).json().storyCount, 2);
  t.equal((await ctx.del(`/api/shelves/${list.id}/stories/${c.id}`)).statusCode, 200, 'removing a story not on it changes nothing');
  t.equal((await ctx.post(`/api/shelves/${list.id}/stories/${c.id}`)).json().storyCount, 3);
  t.equal((await ctx.post(`/api/shelves/${list.id}/stories/${c.id}`)).json().storyCount, 3, 'adding one already on it changes nothing');
  t.same(await titlesOn(ctx, list.id), ['A', 'B', 'C'], 'an added story goes after the last');
  const missing = await ctx.post(`/api/shelves/${list.id}/stories/${MISSING_ID}`);
  t.equal(missing.statusCode, 404);
  t.same(missing.json(), { error: `Story not found with id: ${MISSING_ID}` });

  t.equal((await ctx.del(`/api/stories/${a.id}`)).statusCode, 200);
  t.same(await titlesOn(ctx, list.id), ['B', 'C'], 'a deleted story leaves the shelf');
  t.equal((await ctx.del(`/api/shelves/${list.id}`)).statusCode, 200);
  t.equal((await ctx.get(`/api/stories/${b.id}`)).statusCode, 200, 'a deleted shelf leaves its stories in the library');
  t.equal(ctx.app.db.select().from(shelfStories).all().length, 0, 'its links go with it');
});

t.test('a smart shelf holds what its saved search finds now', async (t) => {
  const ctx = await buildTestApp(t);
  await createStory(ctx, { title: 'Dragon tale', tagNames: ['fantasy'], rating: 5, authorName: 'Ann' });
  await createStory(ctx, { title: 'Dragon war', tagNames: ['fantasy', 'war'], rating: 2, authorName: 'Bo' });
  await createStory(ctx, { title: 'Sea', tagNames: ['fantasy'], rating: 4 });
  const smart = await ctx.post('/api/shelves', {
    name: 'Good fantasy',
    kind: 'smart',
    query: { query: '  ', tags: ['Fantasy'], minRating: 3, sortBy: 'title', sortDir: 'ASC', page: 3 },
  });
  t.equal(smart.statusCode, 201);
  t.same(smart.json().query, { tags: ['Fantasy'], minRating: 3, sortBy: 'title', sortDir: 'asc' }, 'stored as the search reads it: blank text and unknown fields left out');
  t.equal(smart.json().storyCount, null, 'a smart shelf has no stored count');
  t.same(await titlesOn(ctx, smart.json().id), ['Dragon tale', 'Sea'], 'the search, with its filters and sort');
  t.equal((await ctx.put(`/api/shelves/${smart.json().id}/stories`, { storyIds: [] })).statusCode, 409, 'its stories cannot be chosen');

  await createStory(ctx, { title: 'Dragon peace', tagNames: ['fantasy'], rating: 3 });
  t.same(await titlesOn(ctx, smart.json().id), ['Dragon peace', 'Dragon tale', 'Sea'], 'a new story that matches is on it at once');

  const text = await shelf(ctx, { name: 'Dragons', kind: 'smart', query: { query: 'dragon', authors: ['ann,bo'], sortBy: 'rating' } });
  t.same(await titlesOn(ctx, text.id), ['Dragon tale', 'Dragon war'], 'text and author filters, best rated first');
  t.match((await ctx.get(`/api/shelves/${text.id}/stories?size=1`)).json(), { totalElements: 2, totalPages: 2, numberOfElements: 1 });

  const tale = (await ctx.get('/api/stories/search?query=tale')).json().results[0].id;
  await ctx.put(`/api/stories/${tale}/reading-status`, { status: 'reading' });
  await ctx.put(`/api/stories/${tale}/favourite`, { favourite: true });
  const reading = await shelf(ctx, { name: 'Reading', kind: 'smart', query: { readingStatus: 'reading' } });
  t.same(await titlesOn(ctx, reading.id), ['Dragon tale'], 'the reading status filter applies');
  const loved = await shelf(ctx, { name: 'Loved', kind: 'smart', query: { favourite: true } });
  t.same(await titlesOn(ctx, loved.id), ['Dragon tale'], 'and the favourite filter');

  const turned = await ctx.put(`/api/shelves/${text.id}`, { kind: 'manual' });
  t.match(turned.json(), { kind: 'manual', query: null, storyCount: 0 }, 'turned manual: no search, no stories yet');
  const back = await ctx.put(`/api/shelves/${text.id}`, { kind: 'smart', query: { maxRating: 2 } });
  t.match(back.json(), { kind: 'smart', query: { maxRating: 2 } });
  t.same(await titlesOn(ctx, text.id), ['Dragon war']);
});

t.test("a shelf's EPUB and its records", async (t) => {
  const ctx = await buildTestApp(t);
  const a = await createStory(ctx, { title: 'One', contentHtml: '<p>First</p>' });
  const b = await createStory(ctx, { title: 'Two', contentHtml: '<p>Second</p>' });
  const list = await shelf(ctx, { name: 'Book', kind: 'manual' });
  await ctx.put(`/api/shelves/${list.id}/stories`, { storyIds: [b.id, a.id] });
  const book = await ctx.get(`/api/shelves/${list.id}/epub`);
  t.equal(book.statusCode, 200);
  t.equal(book.headers['content-type'], 'application/epub+zip');
  t.match(String(book.headers['content-disposition']), /Shelf/);
  const rows = ctx.app.db.select().from(epubRenditions).where(eq(epubRenditions.kind, 'shelf')).all();
  t.ok(rows.length > 0, 'recorded for KOReader sync as a shelf book');
  t.same(
    JSON.parse(rows[0]!.spine).map((item: { story: string } | null) => item && item.story),
    [null, b.id, a.id],
    "in the shelf's order",
  );
  const smart = await shelf(ctx, { name: 'All', kind: 'smart', query: {} });
  t.equal((await ctx.get(`/api/shelves/${smart.id}/epub`)).statusCode, 200, 'a smart shelf makes a book too');
  t.equal((await ctx.get(`/api/shelves/${MISSING_ID}/epub`)).statusCode, 404);

  await ctx.del(`/api/shelves/${list.id}`);
  t.equal(
    ctx.app.db.select().from(epubRenditions).where(eq(epubRenditions.entityKey, list.id)).all().length,
    0,
    "the shelf's records go with it",
  );
});
