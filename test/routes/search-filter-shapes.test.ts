import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import { STORY_SEARCH_SORT_KEYS } from '../../src/schemas/search.js';
import { SHAPED_STATEMENTS_MAX, shapedStatementCount } from '../../src/search/embedded/stories.js';
import { sqliteClient } from '../../src/db/statements.js';

const TAGS = Array.from({ length: 30 }, (_, i) => `shape${String(i).padStart(2, '0')}`);

t.test('many distinct filter shapes keep the statement cache bounded and every answer right', async (t) => {
  const ctx = await buildTestApp(t);
  const tagged = await createStory(ctx, { title: 'Tagged fox', rating: 3, authorName: 'Ann Shape', tagNames: TAGS, contentHtml: '<p>A fox.</p>' });
  await createStory(ctx, { title: 'Other fox', rating: 5, tagNames: [TAGS[0]], contentHtml: '<p>Another fox.</p>' });
  const client = sqliteClient(ctx.app.db);

  // Each count of tags, sort key and direction is its own SQL text: 30 x 6 x 2 = 360 shapes.
  const shapes: { shape: string; total: number }[] = [];
  for (let count = 1; count <= TAGS.length; count += 1) {
    for (const sortBy of STORY_SEARCH_SORT_KEYS) {
      for (const sortDir of ['asc', 'desc']) {
        const params = new URLSearchParams({ query: count % 2 === 0 ? 'fox' : '*', sortBy, sortDir, tags: TAGS.slice(0, count).join(',') });
        if (count % 3 === 0) params.set('minRating', '2');
        // Only the first tag is on both stories.
        shapes.push({ shape: params.toString(), total: count === 1 ? 2 : 1 });
      }
    }
  }
  const check = async ({ shape, total }: { shape: string; total: number }) => {
    const res = await ctx.get(`/api/stories/search?${shape}`);
    t.equal(res.statusCode, 200, shape);
    const body = res.json() as { results: { id: string }[]; totalHits: number };
    t.equal(body.totalHits, total, `${shape}: total`);
    t.ok(body.results.some((hit) => hit.id === tagged.id), `${shape}: the tagged story`);
  };
  for (const shape of shapes) await check(shape);
  t.ok(shapedStatementCount(client) <= SHAPED_STATEMENTS_MAX, `${shapedStatementCount(client)} statements kept, at most ${SHAPED_STATEMENTS_MAX}`);
  t.ok(shapes.length > SHAPED_STATEMENTS_MAX, 'the test made more shapes than the bound');

  // The first shapes were evicted: asked again, they are prepared again and answer the same.
  for (const shape of shapes.slice(0, 20)) await check(shape);
  t.ok(shapedStatementCount(client) <= SHAPED_STATEMENTS_MAX);
});
