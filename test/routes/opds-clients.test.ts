/**
 * What real catalog clients need from the OPDS feeds (docs/decisions.md, "OPDS catalog"): no
 * author, series or tag that leads to an empty feed.
 */
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
