import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { createStory, createTag } from '../helpers/factories.js';

t.test('create, read, rename and delete a tag', async (t) => {
  const ctx = await buildTestApp(t);
  const created = await ctx.post('/api/tags', { name: '  Science Fiction ' });
  t.equal(created.statusCode, 201);
  const tag = created.json();
  t.equal(tag.name, 'science fiction', 'trimmed and lowercased');
  t.equal(tag.storyCount, 0);
  t.match(tag.id, /^[0-9a-f-]{36}$/);
  t.match(tag.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  const fetched = await ctx.get(`/api/tags/${tag.id}`);
  t.same(fetched.json(), tag);

  const renamed = await ctx.put(`/api/tags/${tag.id}`, { name: 'SF' });
  t.equal(renamed.statusCode, 200);
  t.equal(renamed.json().name, 'sf');

  const unchanged = await ctx.put(`/api/tags/${tag.id}`, {});
  t.equal(unchanged.json().name, 'sf', 'an absent name changes nothing');

  const deleted = await ctx.del(`/api/tags/${tag.id}`);
  t.equal(deleted.statusCode, 200);
  t.type(deleted.json().message, 'string');
  t.equal((await ctx.get(`/api/tags/${tag.id}`)).statusCode, 404);
  t.equal((await ctx.del(`/api/tags/${tag.id}`)).statusCode, 404);
});

t.test('tag validation and conflicts', async (t) => {
  const ctx = await buildTestApp(t);
  const blank = await ctx.post('/api/tags', { name: '   ' });
  t.equal(blank.statusCode, 400);
  t.ok(blank.json().details.name);

  const missing = await ctx.post('/api/tags', {});
  t.equal(missing.statusCode, 400);
  t.equal(missing.json().details.name, 'is required');

  const tooLong = await ctx.post('/api/tags', { name: 'x'.repeat(101) });
  t.equal(tooLong.statusCode, 400);
  t.ok(tooLong.json().details.name);
  t.equal((await ctx.post('/api/tags', { name: 'é'.repeat(100) })).statusCode, 201, '100 code points is allowed');

  const wrongType = await ctx.post('/api/tags', { name: 42 });
  t.equal(wrongType.statusCode, 400);

  await createTag(ctx, 'Horror');
  const duplicate = await ctx.post('/api/tags', { name: 'HORROR' });
  t.equal(duplicate.statusCode, 409);
  t.ok(duplicate.json().details.name);

  const other = await createTag(ctx, 'comedy');
  const renameClash = await ctx.put(`/api/tags/${other.id}`, { name: ' horror' });
  t.equal(renameClash.statusCode, 409);

  t.equal((await ctx.get('/api/tags/not-a-uuid')).statusCode, 400);
  t.equal((await ctx.get('/api/tags/00000000-0000-4000-8000-000000000000')).statusCode, 404);
});

t.test('tag lists, search, autocomplete, popular, unused and stats', async (t) => {
  const ctx = await buildTestApp(t);
  for (const name of ['alpha', 'beta', 'gamma', 'alphabet', 'delta']) await createTag(ctx, name);
  await createStory(ctx, { tagNames: ['beta', 'alphabet'] });
  await createStory(ctx, { tagNames: ['beta'] });

  const page = (await ctx.get('/api/tags?size=2&page=1')).json();
  t.same(
    page.content.map((tag: { name: string }) => tag.name),
    ['beta', 'delta'],
    'sorted by name ascending by default',
  );
  t.equal(page.totalElements, 5);
  t.equal(page.totalPages, 3);
  t.equal(page.first, false);
  t.equal(page.last, false);
  t.equal(page.pageable.offset, 2);

  const byCount = (await ctx.get('/api/tags?sortBy=storyCount&sortDir=DESC')).json();
  t.equal(byCount.content[0].name, 'beta');
  t.equal(byCount.content[0].storyCount, 2);

  const search = (await ctx.get('/api/tags/search?query=ALPH')).json();
  t.same(search.content.map((tag: { name: string }) => tag.name), ['alpha', 'alphabet']);

  const literal = (await ctx.get('/api/tags/search?query=%25')).json();
  t.equal(literal.totalElements, 0, '% is matched literally');

  const auto = (await ctx.get('/api/tags/autocomplete?query=al&limit=5')).json();
  t.same(auto.map((tag: { name: string }) => tag.name), ['alphabet', 'alpha'], 'most used first, then name');

  const popular = (await ctx.get('/api/tags/popular')).json();
  t.same(popular.map((tag: { name: string }) => tag.name), ['beta', 'alphabet']);

  const unused = (await ctx.get('/api/tags/unused')).json();
  t.same(unused.map((tag: { name: string }) => tag.name), ['alpha', 'delta', 'gamma']);

  t.same((await ctx.get('/api/tags/stats')).json(), { totalTags: 5, usedTags: 2, unusedTags: 3 });

  t.equal((await ctx.get('/api/tags/autocomplete')).statusCode, 400, 'query is required');
  t.equal((await ctx.get('/api/tags/popular?limit=0')).statusCode, 400);
  t.equal((await ctx.get('/api/tags/popular?limit=101')).statusCode, 400);
});
