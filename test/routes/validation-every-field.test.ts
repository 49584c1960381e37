import t, { type Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createAuthor, createSeries, createStory, MISSING_ID } from '../helpers/factories.js';
import { multipart } from '../helpers/multipart.js';

/**
 * docs/decisions.md, "Validation": one 400 names every offending field of a body, whether the
 * schema or a service rule (blank name, both forms of a link, unknown id) refused it, and
 * nothing is written.
 */

async function expectFields(t: Test, response: Promise<LightMyRequestResponse>, fields: string[], label: string): Promise<void> {
  const res = await response;
  t.equal(res.statusCode, 400, `${label}: 400`);
  const body = res.json() as { error?: unknown; details?: Record<string, unknown> };
  t.type(body.error, 'string', `${label}: has an error message`);
  t.same(Object.keys(body.details ?? {}).sort(), [...fields].sort(), `${label}: details name ${fields.join(', ')}`);
}

async function total(ctx: TestContext, url: string): Promise<number> {
  return (await ctx.get(url)).json().totalElements as number;
}

t.test('stories: a schema failure and service rules are reported together', async (t) => {
  const ctx = await buildTestApp(t);
  const long = 'x'.repeat(1001);
  await expectFields(t, ctx.post('/api/stories', { title: '   ', description: long }), ['title', 'description'], 'blank title + long description');
  await expectFields(
    t,
    ctx.post('/api/stories', { title: 't', rating: 9, authorId: MISSING_ID }),
    ['rating', 'authorId'],
    'bad rating + unknown author id',
  );
  await expectFields(
    t,
    ctx.post('/api/stories', { title: 't', volume: -1, seriesId: MISSING_ID, seriesName: 'S', tagNames: ['  '] }),
    ['volume', 'seriesId', 'seriesName', 'tagNames'],
    'bad volume + both series forms + blank tag',
  );
  await expectFields(
    t,
    ctx.post('/api/stories', { title: '  ', authorId: MISSING_ID, seriesId: MISSING_ID }),
    ['title', 'authorId', 'seriesId'],
    'blank title + unknown ids, no schema failure',
  );
  t.equal(await total(ctx, '/api/stories'), 0, 'no story was created');

  const story = await createStory(ctx, { title: 'Kept' });
  await expectFields(
    t,
    ctx.put(`/api/stories/${story.id}`, { title: '', description: long, authorName: '  ' }),
    ['title', 'description', 'authorName'],
    'update: blank title + long description + blank author name',
  );
  t.equal((await ctx.get(`/api/stories/${story.id}`)).json().title, 'Kept', 'the story is unchanged');
  t.equal(await total(ctx, '/api/authors'), 0, 'no author was created');
});

t.test('authors: JSON create and update, and the multipart form', async (t) => {
  const ctx = await buildTestApp(t);
  await expectFields(t, ctx.post('/api/authors', { name: '  ', notes: 'n'.repeat(10_001) }), ['name', 'notes'], 'create: blank name + long notes');
  await expectFields(t, ctx.post('/api/authors', { name: '  ', urls: 'https://x.example' }), ['name', 'urls'], 'create: blank name + urls not a list');
  t.equal(await total(ctx, '/api/authors'), 0, 'no author was created');

  const author = await createAuthor(ctx, { name: 'Kept' });
  await expectFields(t, ctx.put(`/api/authors/${author.id}`, { name: ' ', rating: 7 }), ['name', 'rating'], 'update: blank name + bad rating');
  await expectFields(
    t,
    ctx.put(`/api/authors/${author.id}`, { urls: ['  '], avatarImagePath: 'covers/x.jpg', notes: 5 }),
    ['urls', 'avatarImagePath', 'notes'],
    'update: blank URL + avatar path of the wrong folder + notes not text',
  );
  const form = multipart([
    { name: 'name', value: '   ' },
    { name: 'authorRating', value: 'five' },
    { name: 'notes', value: 'n'.repeat(10_001) },
  ]);
  await expectFields(
    t,
    ctx.request({ method: 'PUT', url: `/api/authors/${author.id}`, payload: form.payload, headers: form.headers }),
    ['name', 'authorRating', 'notes'],
    'form: blank name + rating not a number + long notes',
  );
  t.equal((await ctx.get(`/api/authors/${author.id}`)).json().name, 'Kept', 'the author is unchanged');
});

t.test('series, tags and login: every offending field at once', async (t) => {
  const ctx = await buildTestApp(t);
  await expectFields(t, ctx.post('/api/series', { name: ' ', description: 'd'.repeat(1001) }), ['name', 'description'], 'series create');
  const series = await createSeries(ctx, { name: 'Kept' });
  await expectFields(t, ctx.put(`/api/series/${series.id}`, { name: '', description: 7 }), ['name', 'description'], 'series update');
  t.equal((await ctx.get(`/api/series/${series.id}`)).json().name, 'Kept', 'the series is unchanged');
  await expectFields(t, ctx.post('/api/tags', { name: 7 }), ['name'], 'tag create');
  const login = ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: '' } });
  await expectFields(t, login, ['password'], 'login');
});
