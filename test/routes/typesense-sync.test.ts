/**
 * With Typesense configured, every change reaches it exactly as the tables say
 * (docs/typesense.md): direct changes to stories and authors, the indirect ones (renames of
 * authors, series and tags, tag deletion, links), and the attributes only Typesense's documents
 * carry (rating, cover, volume). Without TYPESENSE_URL nothing is queued at all.
 */
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { createAuthor, createStory, createTag } from '../helpers/factories.js';
import { startFakeTypesense } from '../helpers/fake-typesense/index.js';
import { assertInStep, AUTHORS, buildTypesenseApp, drained, outboxRows, STORIES, waitFor } from '../helpers/fake-typesense/app.js';

t.test('creates, updates and deletes of stories and authors reach Typesense', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake);
  t.ok(fake.aliasTarget(STORIES)?.startsWith(`${STORIES}_`), 'the stories alias was created on first use');
  t.ok(fake.aliasTarget(AUTHORS)?.startsWith(`${AUTHORS}_`), 'the authors alias was created on first use');

  const story = await createStory(ctx, { title: 'Moonlight', summary: 'A night walk', authorName: 'Ada Lane', tagNames: ['Night', 'walk'] });
  const other = await createStory(ctx, { title: 'Daybreak', contentHtml: '<p>Morning light.</p>' });
  await assertInStep(t, ctx, 'after creates');
  const doc = ctx.fake.document(STORIES, story.id);
  t.equal(doc?.idKey, story.id, 'the document id is the story UUID');
  t.equal(doc?.authorNameKey, 'ada lane');
  t.equal(doc?.titleKey, 'moonlight');

  t.equal((await ctx.put(`/api/stories/${story.id}`, { title: 'Moonlight Sonata', rating: 4 })).statusCode, 200);
  t.equal((await ctx.post(`/api/stories/${other.id}/rating`, { rating: 2 })).statusCode, 200);
  await assertInStep(t, ctx, 'after updates and a rating');
  t.equal(ctx.fake.document(STORIES, story.id)?.rating, 4, 'a rating change alone reaches Typesense');

  const author = await createAuthor(ctx, { notes: 'Writes at night', urls: ['https://example.com/ada'] });
  t.equal((await ctx.put(`/api/authors/${author.id}`, { notes: 'Writes at dawn', rating: 5 })).statusCode, 200);
  t.equal((await ctx.post(`/api/authors/${author.id}/urls`, { url: 'https://example.org/more' })).statusCode, 200);
  await assertInStep(t, ctx, 'after author changes');

  t.equal((await ctx.del(`/api/stories/${other.id}`)).statusCode, 200);
  t.equal((await ctx.del(`/api/authors/${author.id}`)).statusCode, 200);
  await assertInStep(t, ctx, 'after deletes');
  t.equal(ctx.fake.document(STORIES, other.id), undefined, 'the deleted story is gone from Typesense');
});

t.test('indirect changes: renames, tag deletion, links and averages', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake);
  const tag = await createTag(ctx, 'fantasy');
  const a = await createStory(ctx, { title: 'One', authorName: 'Jo Writer', seriesName: 'Saga', tagNames: ['fantasy', 'sea'], rating: undefined });
  const b = await createStory(ctx, { title: 'Two', authorName: 'Jo Writer', seriesName: 'Saga', tagNames: ['fantasy'] });
  await assertInStep(t, ctx, 'initial');

  t.equal((await ctx.put(`/api/tags/${tag.id}`, { name: 'high fantasy' })).statusCode, 200);
  await assertInStep(t, ctx, 'after a tag rename');
  t.same(ctx.fake.document(STORIES, a.id)?.tagNames, ['high fantasy', 'sea'], "the renamed tag is in the stories' tagNames");

  const authorId = a.authorId as string;
  t.equal((await ctx.put(`/api/authors/${authorId}`, { name: 'Jo Penman' })).statusCode, 200);
  const seriesId = a.seriesId as string;
  t.equal((await ctx.put(`/api/series/${seriesId}`, { name: 'The Saga' })).statusCode, 200);
  await assertInStep(t, ctx, 'after author and series renames');
  t.equal(ctx.fake.document(STORIES, b.id)?.authorName, 'Jo Penman');
  t.equal(ctx.fake.document(STORIES, b.id)?.seriesName, 'The Saga');

  t.equal((await ctx.post(`/api/stories/${a.id}/rating`, { rating: 3 })).statusCode, 200);
  t.equal((await ctx.post(`/api/stories/${b.id}/rating`, { rating: 4 })).statusCode, 200);
  await assertInStep(t, ctx, 'after ratings (the author average moves)');
  t.equal(ctx.fake.document(AUTHORS, authorId)?.averageStoryRating, 3.5);

  t.equal((await ctx.del(`/api/tags/${tag.id}`)).statusCode, 200);
  t.equal((await ctx.del(`/api/series/${seriesId}`)).statusCode, 200);
  await assertInStep(t, ctx, 'after deleting a tag and a series');
  t.same(ctx.fake.document(STORIES, b.id)?.tagNames, []);
  t.equal(ctx.fake.document(STORIES, b.id)?.seriesName, undefined, 'an unset value is left out of the document');

  const sea = (await ctx.get('/api/tags/search?query=sea')).json() as { content: { id: string }[] };
  t.equal((await ctx.del(`/api/stories/${a.id}/tags/${sea.content[0]?.id}`)).statusCode, 200);
  t.equal((await ctx.del(`/api/authors/${authorId}`)).statusCode, 200);
  await assertInStep(t, ctx, 'after unlinking a tag and deleting the author');
  t.equal(ctx.fake.document(STORIES, b.id)?.authorName, undefined, "the deleted author's stories lose the name");
});

t.test('the worker sends upserts as JSONL imports and deletes by id', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake);
  const story = await createStory(ctx, { title: 'Short lived' });
  await drained(ctx);
  await ctx.del(`/api/stories/${story.id}`);
  await drained(ctx);
  const imports = fake.requests.filter((request) => request.path === `/collections/${STORIES}/documents/import`);
  t.ok(imports.length > 0, 'imports go through the alias');
  t.ok(imports.every((request) => request.query.get('action') === 'upsert'), 'with action=upsert');
  t.ok(
    fake.requests.some((request) => request.method === 'DELETE' && request.path === `/collections/${STORIES}/documents/${story.id}`),
    'a gone story is deleted by id',
  );
});

t.test('a change made while its delivery is in flight is delivered too', async (t) => {
  const fake = await startFakeTypesense(t);
  const ctx = await buildTypesenseApp(t, fake);
  fake.slow(300, (request) => request.path.endsWith('/documents/import'));
  const story = await createStory(ctx, { title: 'First draft' });
  await waitFor(() => fake.requests.some((request) => request.body.includes('First draft')), 'the first delivery to start');
  t.equal((await ctx.put(`/api/stories/${story.id}`, { title: 'Second draft' })).statusCode, 200);
  t.equal(outboxRows(ctx), 1, 'still one row for the story (coalesced), at a new version');
  await drained(ctx);
  t.equal(fake.document(STORIES, story.id)?.title, 'Second draft', 'the later change was not lost with the earlier delivery');
});

t.test('without TYPESENSE_URL nothing is queued', async (t) => {
  const ctx = await buildTestApp(t);
  t.equal(ctx.app.searchEngine.kind, 'embedded');
  const story = await createStory(ctx, { title: 'Local only', authorName: 'Nobody Else' });
  await ctx.post(`/api/stories/${story.id}/rating`, { rating: 5 });
  await ctx.del(`/api/stories/${story.id}`);
  t.equal(outboxRows(ctx), 0, 'the outbox stays empty');
  const temp = ctx.app.db.$client.prepare("SELECT count(*) FROM sqlite_temp_master WHERE type = 'trigger'").pluck().get();
  t.equal(temp, 0, 'no Typesense triggers are installed');
  const health = await ctx.get('/api/search/health');
  t.equal(health.statusCode, 200);
  t.same(Object.keys(health.json() as object).sort(), ['engine', 'message', 'status']);
});
