import t, { type Test } from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory, MISSING_ID } from '../helpers/factories.js';

/** Expects a 400 {error, details} whose details name exactly `fields`; returns the details. */
async function expectInvalid(
  t: Test,
  response: Promise<{ statusCode: number; json: () => unknown }>,
  fields: string[],
  label: string,
): Promise<Record<string, string>> {
  const res = await response;
  t.equal(res.statusCode, 400, `${label}: 400`);
  const body = res.json() as { error: unknown; details?: Record<string, string> };
  t.type(body.error, 'string', `${label}: has an error message`);
  t.same(Object.keys(body.details ?? {}).sort(), [...fields].sort(), `${label}: details name ${fields.join(', ')}`);
  for (const field of fields) t.type(body.details?.[field], 'string', `${label}: ${field} has a message`);
  return body.details ?? {};
}

async function storyCount(ctx: TestContext): Promise<number> {
  return (await ctx.get('/api/stories')).json().totalElements as number;
}

t.test('title is required, trimmed and not blank', async (t) => {
  const ctx = await buildTestApp(t);
  const missing = await expectInvalid(t, ctx.post('/api/stories', { summary: 'no title' }), ['title'], 'missing title');
  t.equal(missing.title, 'is required');
  const blank = await expectInvalid(t, ctx.post('/api/stories', { title: '   ' }), ['title'], 'blank title');
  t.match(blank.title, /blank/);
  await expectInvalid(t, ctx.post('/api/stories', { title: '' }), ['title'], 'empty title');
  await expectInvalid(t, ctx.post('/api/stories', { title: '\t\n\u00a0' }), ['title'], 'whitespace-only title');
  await expectInvalid(t, ctx.post('/api/stories', { title: null }), ['title'], 'null title');
  await expectInvalid(t, ctx.post('/api/stories', { title: 42 }), ['title'], 'numeric title');
  await expectInvalid(t, ctx.post('/api/stories'), ['body'], 'no body');
  t.equal(await storyCount(ctx), 0, 'nothing was created');
});

t.test('lengths count code points: 255 for title, 1000 for description', async (t) => {
  const ctx = await buildTestApp(t);
  const astral = '😀'; // two UTF-16 units, one code point
  const title255 = await ctx.post('/api/stories', { title: astral.repeat(255) });
  t.equal(title255.statusCode, 201, '255 code points is fine');
  t.equal(title255.json().title, astral.repeat(255));
  t.equal((await ctx.post('/api/stories', { title: 'x'.repeat(255) })).statusCode, 201);
  const title256 = await expectInvalid(t, ctx.post('/api/stories', { title: 'x'.repeat(256) }), ['title'], '256 characters');
  t.match(title256.title, /255/);
  await expectInvalid(t, ctx.post('/api/stories', { title: astral.repeat(256) }), ['title'], '256 code points');

  t.equal((await ctx.post('/api/stories', { title: 'd', description: 'é'.repeat(1000) })).statusCode, 201, '1000 is fine');
  t.equal((await ctx.post('/api/stories', { title: 'd', description: astral.repeat(1000) })).statusCode, 201);
  const desc = await expectInvalid(t, ctx.post('/api/stories', { title: 'd', description: 'x'.repeat(1001) }), ['description'], '1001');
  t.match(desc.description, /1000/);

  const story = await createStory(ctx);
  await expectInvalid(t, ctx.put(`/api/stories/${story.id}`, { title: 'x'.repeat(256) }), ['title'], 'update title 256');
  await expectInvalid(t, ctx.put(`/api/stories/${story.id}`, { description: 'x'.repeat(1001) }), ['description'], 'update desc 1001');
  t.equal((await ctx.put(`/api/stories/${story.id}`, { title: 'y'.repeat(255), description: 'z'.repeat(1000) })).statusCode, 200);
});

t.test('volume is an integer >= 0; rating an integer 1 to 5', async (t) => {
  const ctx = await buildTestApp(t);
  for (const volume of [-1, 1.5, '2', true]) {
    await expectInvalid(t, ctx.post('/api/stories', { title: 'v', volume }), ['volume'], `volume ${JSON.stringify(volume)}`);
  }
  t.equal((await ctx.post('/api/stories', { title: 'v', volume: 0 })).json().volume, 0);
  t.equal((await ctx.post('/api/stories', { title: 'v', volume: 12 })).json().volume, 12);

  for (const rating of [0, 6, 2.5, '5', -3]) {
    await expectInvalid(t, ctx.post('/api/stories', { title: 'r', rating }), ['rating'], `create rating ${JSON.stringify(rating)}`);
  }
  for (const rating of [1, 5]) t.equal((await ctx.post('/api/stories', { title: 'r', rating })).json().rating, rating);

  const story = await createStory(ctx, { rating: 3, volume: 2 });
  for (const rating of [0, 6, 2.5, '5']) {
    await expectInvalid(t, ctx.put(`/api/stories/${story.id}`, { rating }), ['rating'], `update rating ${JSON.stringify(rating)}`);
  }
  await expectInvalid(t, ctx.put(`/api/stories/${story.id}`, { volume: -1 }), ['volume'], 'update volume -1');
  const after = (await ctx.get(`/api/stories/${story.id}`)).json();
  t.equal(after.rating, 3, 'rejected updates changed nothing');
  t.equal(after.volume, 2);
});

t.test('either authorId or authorName, either seriesId or seriesName', async (t) => {
  const ctx = await buildTestApp(t);
  const linked = await createStory(ctx, { authorName: 'Both Author', seriesName: 'Both Series' });
  const authorId = linked.authorId as string;
  const seriesId = linked.seriesId as string;

  const both = await expectInvalid(t, ctx.post('/api/stories', { title: 'b', authorId, authorName: 'Both Author' }), ['authorId', 'authorName'], 'both author forms');
  t.match(both.authorName, /either/);
  await expectInvalid(t, ctx.post('/api/stories', { title: 'b', seriesId, seriesName: 'Other' }), ['seriesId', 'seriesName'], 'both series forms');
  await expectInvalid(t, ctx.post('/api/stories', { title: 'b', authorId: null, authorName: 'X' }), ['authorId', 'authorName'], 'null id with a name');
  await expectInvalid(t, ctx.put(`/api/stories/${linked.id}`, { authorId, authorName: 'x' }), ['authorId', 'authorName'], 'both on update');
  await expectInvalid(t, ctx.put(`/api/stories/${linked.id}`, { seriesId: null, seriesName: 'S' }), ['seriesId', 'seriesName'], 'both series on update');

  t.equal((await ctx.post('/api/stories', { title: 'by id', authorId, seriesId })).json().authorName, 'Both Author', 'authorId alone links');
  t.equal(await storyCount(ctx), 2, 'nothing else was created');
});

t.test('authorId or seriesId that does not exist is 400 naming the field', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await expectInvalid(t, ctx.post('/api/stories', { title: 'a', authorId: MISSING_ID }), ['authorId'], 'unknown authorId');
  t.match(author.authorId, /author/);
  await expectInvalid(t, ctx.post('/api/stories', { title: 'a', seriesId: MISSING_ID }), ['seriesId'], 'unknown seriesId');
  await expectInvalid(
    t,
    ctx.post('/api/stories', { title: 'a', authorId: MISSING_ID, seriesId: MISSING_ID }),
    ['authorId', 'seriesId'],
    'both unknown at once',
  );
  await expectInvalid(t, ctx.post('/api/stories', { title: 'a', authorId: 'not-a-uuid' }), ['authorId'], 'malformed authorId');

  // A failed create must not leave the author or tags it would have created behind.
  await expectInvalid(t, ctx.post('/api/stories', { title: 'a', authorName: 'Ghost', tagNames: ['ghost'], seriesId: MISSING_ID }), ['seriesId'], 'rolled back');
  t.equal((await ctx.get('/api/tags')).json().totalElements, 0, 'no tag was left behind');
  const withGhost = await createStory(ctx, { authorName: 'Ghost' });
  t.equal(withGhost.authorName, 'Ghost');

  const story = await createStory(ctx);
  await expectInvalid(t, ctx.put(`/api/stories/${story.id}`, { authorId: MISSING_ID }), ['authorId'], 'unknown authorId on update');
  await expectInvalid(t, ctx.put(`/api/stories/${story.id}`, { seriesId: MISSING_ID }), ['seriesId'], 'unknown seriesId on update');
  t.equal(await storyCount(ctx), 2);
});

t.test('blank names are 400 naming the field', async (t) => {
  const ctx = await buildTestApp(t);
  await expectInvalid(t, ctx.post('/api/stories', { title: 'n', authorName: '  ' }), ['authorName'], 'blank authorName');
  await expectInvalid(t, ctx.post('/api/stories', { title: 'n', seriesName: '' }), ['seriesName'], 'empty seriesName');
  await expectInvalid(t, ctx.post('/api/stories', { title: 'n', tagNames: ['ok', ' '] }), ['tagNames'], 'blank tag name');
  await expectInvalid(t, ctx.post('/api/stories', { title: 'n', tagNames: ['x'.repeat(101)] }), ['tagNames'], 'tag name over 100');
  await expectInvalid(t, ctx.post('/api/stories', { title: 'n', tagNames: 'solo' }), ['tagNames'], 'tagNames not an array');
  await expectInvalid(t, ctx.post('/api/stories', { title: 'n', tagNames: [3] }), ['tagNames'], 'tag name not a string');
  await expectInvalid(t, ctx.post('/api/stories', { title: 'n', authorName: 'x'.repeat(256) }), ['authorName'], 'authorName over 255');
  const all = await expectInvalid(
    t,
    ctx.post('/api/stories', { title: ' ', authorName: ' ', seriesName: ' ', tagNames: [''] }),
    ['title', 'authorName', 'seriesName', 'tagNames'],
    'every blank field at once',
  );
  t.match(all.tagNames, /blank/);

  const story = await createStory(ctx);
  await expectInvalid(t, ctx.put(`/api/stories/${story.id}`, { title: null }), ['title'], 'null title on update');
  await expectInvalid(t, ctx.put(`/api/stories/${story.id}`, { title: '  ' }), ['title'], 'blank title on update');
  await expectInvalid(t, ctx.put(`/api/stories/${story.id}`, { authorName: '' }), ['authorName'], 'blank authorName on update');
  await expectInvalid(t, ctx.put(`/api/stories/${story.id}`, { tagNames: ['\t'] }), ['tagNames'], 'blank tag on update');
  t.equal(await storyCount(ctx), 1);
});

t.test('wrong types and content types', async (t) => {
  const ctx = await buildTestApp(t);
  await expectInvalid(t, ctx.post('/api/stories', { title: 't', summary: 5 }), ['summary'], 'summary number');
  await expectInvalid(t, ctx.post('/api/stories', { title: 't', contentHtml: ['<p>'] }), ['contentHtml'], 'contentHtml array');
  await expectInvalid(t, ctx.post('/api/stories', { title: 't', sourceUrl: {} }), ['sourceUrl'], 'sourceUrl object');
  const malformed = await ctx.request({ method: 'POST', url: '/api/stories', headers: { 'content-type': 'application/json' }, payload: '{"title":' });
  t.equal(malformed.statusCode, 400, 'malformed JSON');
  const text = await ctx.request({ method: 'POST', url: '/api/stories', headers: { 'content-type': 'text/plain' }, payload: 'title' });
  t.equal(text.statusCode, 415, 'not JSON');
  t.type(text.json().error, 'string');
});
