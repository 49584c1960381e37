/**
 * A tag on more than a thousand stories pages by walking the order's own index
 * (src/stories/page-queries.ts, WIDE_TAG_STORIES): every page, in every order, must list exactly
 * what the plain plan lists, and the total must be the tag's count.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { createStory, createTag } from '../helpers/factories.js';

const WIDE = 1_050;

t.test('every page of a wide tag, in four orders, matches the order computed from the rows', async (t) => {
  const ctx = await buildTestApp(t);
  const tag = await createTag(ctx, 'everywhere');
  await createStory(ctx, { title: 'Not tagged' });
  const client = ctx.app.db.$client;
  const insertStory = client.prepare(
    'INSERT INTO stories (id, title, word_count, rating, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const link = client.prepare('INSERT INTO story_tags (story_id, tag_id) VALUES (?, ?)');
  const rows: { id: string; title: string; wordCount: number; rating: number | null; createdAt: string }[] = [];
  client.transaction(() => {
    for (let i = 0; i < WIDE; i++) {
      // Repeated keys on purpose: ties must fall back to the id as in the plain plan.
      const row = {
        id: randomUUID(),
        title: `Story ${(i * 7919) % 500}`,
        wordCount: (i * 31) % 97,
        rating: i % 4 === 0 ? null : (i % 5) + 1,
        createdAt: new Date(Date.UTC(2026, 0, 1) + ((i * 104729) % 800) * 60_000).toISOString(),
      };
      insertStory.run(row.id, row.title, row.wordCount, row.rating, row.createdAt, row.createdAt);
      link.run(row.id, tag.id);
      rows.push(row);
    }
  })();

  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const expected: Record<string, string[]> = {
    createdAt: [...rows].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : -byId(a, b))).map((r) => r.id),
    wordCount: [...rows].sort((a, b) => a.wordCount - b.wordCount || byId(a, b)).map((r) => r.id),
    title: [...rows].sort((a, b) => (a.title.toLowerCase() < b.title.toLowerCase() ? -1 : a.title.toLowerCase() > b.title.toLowerCase() ? 1 : byId(a, b))).map((r) => r.id),
    rating: [
      ...rows.filter((r) => r.rating !== null).sort((a, b) => b.rating! - a.rating! || -byId(a, b)),
      ...rows.filter((r) => r.rating === null).sort((a, b) => -byId(a, b)),
    ].map((r) => r.id),
  };
  const directions: Record<string, string> = { createdAt: 'desc', wordCount: 'asc', title: 'asc', rating: 'desc' };
  for (const [sortBy, ids] of Object.entries(expected)) {
    const seen: string[] = [];
    for (let page = 0; page * 100 < WIDE; page++) {
      const res = await ctx.get(`/api/stories/tags/everywhere?sortBy=${sortBy}&sortDir=${directions[sortBy]}&size=100&page=${page}`);
      t.equal(res.statusCode, 200);
      const body = res.json() as { content: { id: string }[]; totalElements: number };
      if (page === 0) t.equal(body.totalElements, WIDE, `${sortBy}: the total is the tag's count`);
      seen.push(...body.content.map((story) => story.id));
    }
    t.same(seen, ids, `${sortBy}: every page in order`);
  }
});
