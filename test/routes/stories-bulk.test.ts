import { eq } from 'drizzle-orm';
import t from 'tap';
import { stories } from '../../src/db/schema.js';
import { BULK_IDS_MAX, BulkEditResult } from '../../src/schemas/bulk.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory, MISSING_ID } from '../helpers/factories.js';
import { assertMatches } from '../helpers/schema.js';

async function shelf(ctx: TestContext, body: Record<string, unknown>): Promise<{ id: string }> {
  return (await ctx.post('/api/shelves', body)).json();
}

async function story(ctx: TestContext, id: string): Promise<Record<string, any>> {
  return (await ctx.get(`/api/stories/${id}`)).json();
}

async function searchTitles(ctx: TestContext, query: string): Promise<string[]> {
  return (await ctx.get(`/api/stories/search?query=${encodeURIComponent(query)}`)).json().results.map((hit: { title: string }) => hit.title).sort();
}

t.test('tags, shelves and fields change on every story at once', async (t) => {
  const ctx = await buildTestApp(t);
  const a = await createStory(ctx, { title: 'Alpha', tagNames: ['old', 'keep'] });
  const b = await createStory(ctx, { title: 'Beta', tagNames: ['old'] });
  const c = await createStory(ctx, { title: 'Gamma' });
  const list = await shelf(ctx, { name: 'Picks', kind: 'manual' });
  await ctx.put(`/api/shelves/${list.id}/stories`, { storyIds: [c.id] });

  const res = await ctx.post('/api/stories/bulk', {
    ids: [a.id, b.id, a.id],
    add: { tagNames: ['  Brand New ', 'keep'], shelfIds: [list.id] },
    remove: { tagNames: ['OLD', 'never-existed'] },
    set: { authorName: 'Ann', seriesName: 'Saga', rating: 4, readingStatus: 'finished', favourite: true },
  });
  t.equal(res.statusCode, 200, res.body);
  assertMatches(t, BulkEditResult, res.json());
  t.same(res.json(), { message: '2 stories changed', storyCount: 2 }, 'a repeated id counts once');

  for (const id of [a.id, b.id]) {
    const changed = await story(ctx, id);
    t.same(
      changed.tags.map((tag: { name: string }) => tag.name),
      ['brand new', 'keep'],
      'added tags created (stored lowercased), removed ones gone',
    );
    t.match(changed, { authorName: 'Ann', seriesName: 'Saga', rating: 4 });
    const row = ctx.app.db
      .select({ readingStatus: stories.readingStatus, favourite: stories.favourite, readCount: stories.readCount, finishedAt: stories.finishedAt })
      .from(stories)
      .where(eq(stories.id, id))
      .get();
    t.match(row, { readingStatus: 'finished', favourite: true, readCount: 1, finishedAt: String }, 'finished by hand is a finish, as for one story');
  }
  t.same((await story(ctx, c.id)).tags, [], 'a story not named is untouched');
  const authors = (await ctx.get('/api/authors/search?query=ann')).json().content;
  t.equal(authors.length, 1, 'one author made for all of them');
  t.equal(authors[0].storyCount, 2, 'counts follow in the same transaction');
  t.equal((await ctx.get('/api/tags/search?query=old')).json().content[0].storyCount, 0);
  t.same(await searchTitles(ctx, 'brand'), ['Alpha', 'Beta'], 'the search index follows');
  t.same(await searchTitles(ctx, 'saga'), ['Alpha', 'Beta']);
  t.same(
    (await ctx.get(`/api/shelves/${list.id}/stories`)).json().content.map((s: { title: string }) => s.title),
    ['Gamma', 'Alpha', 'Beta'],
    "added after the shelf's last, in the order given",
  );

  const cleared = await ctx.post('/api/stories/bulk', { ids: [a.id], set: { authorName: null, rating: null }, remove: { shelfIds: [list.id] } });
  t.equal(cleared.statusCode, 200);
  t.match(await story(ctx, a.id), { authorName: null, rating: null, seriesName: 'Saga' }, 'null clears, absent fields stay');
  t.equal((await ctx.get(`/api/shelves/${list.id}`)).json().storyCount, 2);
});

t.test('a refused bulk edit names every bad field and id and changes nothing', async (t) => {
  const ctx = await buildTestApp(t);
  const a = await createStory(ctx, { title: 'Alpha', rating: 2 });
  const smart = await shelf(ctx, { name: 'Smart', kind: 'smart', query: {} });
  const other = 'ffffffff-ffff-4fff-8fff-ffffffffffff';
  const res = await ctx.post('/api/stories/bulk', {
    ids: [a.id, MISSING_ID, other],
    add: { tagNames: ['fine', '  '], shelfIds: [smart.id, MISSING_ID] },
    set: { authorName: ' ', rating: 5 },
  });
  t.equal(res.statusCode, 400);
  const details = res.json().details;
  t.match(details.ids, new RegExp(`${MISSING_ID}, ${other}`), 'every unknown story id is named');
  t.type(details['add.tagNames'], 'string');
  t.match(details['add.shelfIds'], new RegExp(`no shelf has this id: ${MISSING_ID}.*smart shelves.*${smart.id}`));
  t.type(details['set.authorName'], 'string');
  t.match(await story(ctx, a.id), { rating: 2, tags: [] }, 'nothing changed');
  t.equal((await ctx.get('/api/tags')).json().totalElements, 0, 'no tag was created');

  const schema = await ctx.post('/api/stories/bulk', { ids: [a.id, 'nope'], set: { rating: 9, authorName: '' }, delete: false });
  t.equal(schema.statusCode, 400);
  for (const field of ['ids', 'set', 'delete']) t.type(schema.json().details[field], 'string', `schema offence: ${field}`);

  const cases: Array<[string, unknown, string]> = [
    ['no ids', { ids: [], set: { rating: 1 } }, 'ids'],
    ['too many ids', { ids: Array.from({ length: BULK_IDS_MAX + 1 }, () => a.id), set: { rating: 1 } }, 'ids'],
    ['nothing to do', { ids: [a.id] }, 'body'],
    ['an empty set', { ids: [a.id], set: {}, add: { tagNames: [] } }, 'body'],
    ['delete with changes', { ids: [a.id], delete: true, set: { rating: 1 } }, 'delete'],
    ['an unknown reading status', { ids: [a.id], set: { readingStatus: 'skimmed' } }, 'set'],
    ['a rating as text', { ids: [a.id], set: { rating: '5' } }, 'set'],
  ];
  for (const [label, body, field] of cases) {
    const refused = await ctx.post('/api/stories/bulk', body);
    t.equal(refused.statusCode, 400, label);
    t.type(refused.json().details?.[field], 'string', `${label}: details.${field}`);
  }
  t.match(await story(ctx, a.id), { rating: 2 }, 'still unchanged');
  t.equal((await ctx.app.inject({ method: 'POST', url: '/api/stories/bulk', payload: { ids: [a.id], delete: true } })).statusCode, 401);
});

t.test('a bulk delete removes every story, its links and its counts, in one go', async (t) => {
  const ctx = await buildTestApp(t);
  const a = await createStory(ctx, { title: 'Alpha', tagNames: ['x'], authorName: 'Ann' });
  const b = await createStory(ctx, { title: 'Beta', tagNames: ['x'], authorName: 'Ann' });
  const c = await createStory(ctx, { title: 'Gamma', tagNames: ['x'] });
  const list = await shelf(ctx, { name: 'Picks', kind: 'manual' });
  await ctx.put(`/api/shelves/${list.id}/stories`, { storyIds: [a.id, c.id] });

  const refused = await ctx.post('/api/stories/bulk', { ids: [a.id, MISSING_ID], delete: true });
  t.equal(refused.statusCode, 400);
  t.equal((await ctx.get(`/api/stories/${a.id}`)).statusCode, 200, 'all or nothing: no story went');

  const res = await ctx.post('/api/stories/bulk', { ids: [a.id, b.id], delete: true });
  t.same(res.json(), { message: '2 stories deleted', storyCount: 2 });
  for (const id of [a.id, b.id]) t.equal((await ctx.get(`/api/stories/${id}`)).statusCode, 404);
  t.equal((await ctx.get('/api/tags/search?query=x')).json().content[0].storyCount, 1);
  t.equal((await ctx.get('/api/authors/search?query=ann')).json().content[0].storyCount, 0);
  t.same(await searchTitles(ctx, '*'), ['Gamma'], 'gone from the search index');
  t.equal((await ctx.get(`/api/shelves/${list.id}`)).json().storyCount, 1, 'and from shelves');
});
