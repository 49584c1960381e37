import t from 'tap';
import { eq } from 'drizzle-orm';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory, createTag, MISSING_ID } from '../helpers/factories.js';
import { stories } from '../../src/db/schema.js';
import { findOrCreateAuthor } from '../../src/authors/repository.js';
import { findOrCreateSeries } from '../../src/series/repository.js';

interface Story {
  id: string;
  title: string;
  createdAt: string;
  rating: number | null;
  volume: number | null;
}

const titles = (list: Story[]) => list.map((s) => s.title);

/** Sets a story's createdAt directly (equal or ordered timestamps cannot be made through the API). */
function setCreatedAt(ctx: TestContext, id: string, day: number): void {
  const createdAt = `2026-03-${String(day).padStart(2, '0')}T00:00:00.000Z`;
  ctx.app.db.update(stories).set({ createdAt }).where(eq(stories.id, id)).run();
}

t.test('stories of an author: paged, default newest first, 404 for an unknown author', async (t) => {
  const ctx = await buildTestApp(t);
  const a1 = await createStory(ctx, { title: 'A one', authorName: 'Scoped Author' });
  const a2 = await createStory(ctx, { title: 'A two', authorName: 'scoped author' });
  const a3 = await createStory(ctx, { title: 'A three', authorName: 'Scoped Author' });
  await createStory(ctx, { title: 'Other', authorName: 'Someone Else' });
  await createStory(ctx, { title: 'Nobody' });
  setCreatedAt(ctx, a1.id, 1);
  setCreatedAt(ctx, a2.id, 3);
  setCreatedAt(ctx, a3.id, 2);
  const authorId = a1.authorId as string;

  const res = await ctx.get(`/api/stories/author/${authorId}`);
  t.equal(res.statusCode, 200);
  t.same(titles(res.json().content), ['A two', 'A three', 'A one']);
  t.match(res.json(), { totalElements: 3, totalPages: 1, first: true, last: true });

  const paged = (await ctx.get(`/api/stories/author/${authorId}?size=2&page=1&sortBy=title&sortDir=asc`)).json();
  t.same(titles(paged.content), ['A two']);
  t.match(paged, { totalElements: 3, totalPages: 2, last: true, number: 1 });

  const lonely = findOrCreateAuthor(ctx.app.db, 'No Stories Yet');
  const empty = await ctx.get(`/api/stories/author/${lonely.id}`);
  t.equal(empty.statusCode, 200, 'an author without stories is an empty page');
  t.match(empty.json(), { content: [], totalElements: 0, empty: true });

  const unknown = await ctx.get(`/api/stories/author/${MISSING_ID}`);
  t.equal(unknown.statusCode, 404);
  t.match(unknown.json().error, MISSING_ID);
  const malformed = await ctx.get('/api/stories/author/nope');
  t.equal(malformed.statusCode, 400);
  t.ok(malformed.json().details.authorId, 'details.authorId');
});

t.test('stories of a series: volume ascending, unnumbered last, then oldest first', async (t) => {
  const ctx = await buildTestApp(t);
  const made = [
    { title: 'vol 2', volume: 2, day: 1 },
    { title: 'no volume, newer', volume: null, day: 9 },
    { title: 'vol 0', volume: 0, day: 5 },
    { title: 'vol 1 later', volume: 1, day: 8 },
    { title: 'no volume, older', volume: null, day: 2 },
    { title: 'vol 1 earlier', volume: 1, day: 3 },
  ];
  let seriesId = '';
  for (const { title, volume, day } of made) {
    const story = await createStory(ctx, { title, volume, seriesName: 'Ordered Saga' });
    seriesId = story.seriesId as string;
    setCreatedAt(ctx, story.id, day);
  }
  await createStory(ctx, { title: 'elsewhere', seriesName: 'Another Saga', volume: 0 });

  const res = await ctx.get(`/api/stories/series/${seriesId}`);
  t.equal(res.statusCode, 200);
  t.ok(Array.isArray(res.json()), 'a plain array, not a page');
  t.same(titles(res.json()), ['vol 0', 'vol 1 earlier', 'vol 1 later', 'vol 2', 'no volume, older', 'no volume, newer']);
  t.equal(res.json()[0].seriesName, 'Ordered Saga');

  const emptySeries = findOrCreateSeries(ctx.app.db, 'Empty Saga');
  t.same((await ctx.get(`/api/stories/series/${emptySeries.id}`)).json(), []);

  const unknown = await ctx.get(`/api/stories/series/${MISSING_ID}`);
  t.equal(unknown.statusCode, 404);
  t.match(unknown.json().error, MISSING_ID);
  const malformed = await ctx.get('/api/stories/series/123');
  t.equal(malformed.statusCode, 400);
  t.ok(malformed.json().details.seriesId, 'details.seriesId');
});

t.test('stories with a tag: name matched case-insensitively after trimming; 404 for an unknown tag', async (t) => {
  const ctx = await buildTestApp(t);
  const s1 = await createStory(ctx, { title: 'tagged one', tagNames: ['Space Opera', 'other'] });
  const s2 = await createStory(ctx, { title: 'tagged two', tagNames: ['space opera'] });
  await createStory(ctx, { title: 'untagged' });
  await createStory(ctx, { title: 'other tag', tagNames: ['other'] });
  setCreatedAt(ctx, s1.id, 2);
  setCreatedAt(ctx, s2.id, 1);

  for (const name of ['space%20opera', 'SPACE%20OPERA', '%20Space%20Opera%20']) {
    const res = await ctx.get(`/api/stories/tags/${name}`);
    t.equal(res.statusCode, 200, `${name} finds the tag`);
    t.same(titles(res.json().content), ['tagged one', 'tagged two'], `${name}: newest first`);
    t.equal(res.json().totalElements, 2);
  }
  const asc = (await ctx.get('/api/stories/tags/space%20opera?sortDir=asc&size=1')).json();
  t.same(titles(asc.content), ['tagged two']);
  t.match(asc, { totalPages: 2, last: false });

  const unused = await createTag(ctx, 'unused tag');
  t.match((await ctx.get(`/api/stories/tags/${encodeURIComponent(unused.name)}`)).json(), { content: [], totalElements: 0 });

  const unknown = await ctx.get('/api/stories/tags/no-such-tag');
  t.equal(unknown.statusCode, 404);
  t.match(unknown.json().error, 'no-such-tag');
  t.equal((await ctx.get('/api/stories/tags/%20')).statusCode, 404, 'a blank name matches no tag');
});

t.test('recent: newest first, limit default 10, validated', async (t) => {
  const ctx = await buildTestApp(t);
  const made: string[] = [];
  for (let i = 1; i <= 12; i += 1) {
    const story = await createStory(ctx, { title: `r${i}` });
    setCreatedAt(ctx, story.id, i);
    made.push(story.id);
  }
  const res = await ctx.get('/api/stories/recent');
  t.equal(res.statusCode, 200);
  t.same(titles(res.json()), ['r12', 'r11', 'r10', 'r9', 'r8', 'r7', 'r6', 'r5', 'r4', 'r3'], 'default limit 10, newest first');
  t.same(titles((await ctx.get('/api/stories/recent?limit=2')).json()), ['r12', 'r11']);
  t.equal((await ctx.get('/api/stories/recent?limit=100')).json().length, 12);
  for (const limit of ['0', '101', '-1', '2.5', 'x']) {
    const bad = await ctx.get(`/api/stories/recent?limit=${limit}`);
    t.equal(bad.statusCode, 400, `limit=${limit} is 400`);
    t.ok(bad.json().details.limit, 'details.limit');
  }
});

t.test('top-rated: rated only, rating desc then newest first, limit default 10', async (t) => {
  const ctx = await buildTestApp(t);
  const rows = [
    { title: 'five old', rating: 5, day: 1 },
    { title: 'unrated', rating: null, day: 20 },
    { title: 'three', rating: 3, day: 2 },
    { title: 'five new', rating: 5, day: 3 },
    { title: 'one', rating: 1, day: 4 },
  ];
  for (const { title, rating, day } of rows) setCreatedAt(ctx, (await createStory(ctx, { title, rating })).id, day);
  for (let i = 0; i < 8; i += 1) setCreatedAt(ctx, (await createStory(ctx, { title: `two ${i}`, rating: 2 })).id, 10 + i);

  const res = await ctx.get('/api/stories/top-rated');
  t.equal(res.statusCode, 200);
  t.same(titles(res.json()), ['five new', 'five old', 'three', 'two 7', 'two 6', 'two 5', 'two 4', 'two 3', 'two 2', 'two 1'], 'default limit 10');
  t.ok(res.json().every((s: Story) => s.rating !== null));

  const all = (await ctx.get('/api/stories/top-rated?limit=100')).json() as Story[];
  t.equal(all.length, 12, 'every rated story, and no unrated one');
  t.equal(all.at(-1)?.title, 'one');
  t.same(titles((await ctx.get('/api/stories/top-rated?limit=1')).json()), ['five new']);
  for (const limit of ['0', '101']) t.equal((await ctx.get(`/api/stories/top-rated?limit=${limit}`)).statusCode, 400, `limit=${limit}`);
});

t.test('literal segments win over {id}', async (t) => {
  const ctx = await buildTestApp(t);
  await createStory(ctx, { rating: 4 });
  for (const path of ['recent', 'top-rated']) {
    const res = await ctx.get(`/api/stories/${path}`);
    t.equal(res.statusCode, 200, `/stories/${path} is its list, not a story id`);
    t.equal(res.json().length, 1);
  }
});
