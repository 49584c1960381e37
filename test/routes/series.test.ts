import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { series } from '../../src/db/schema.js';
import { SeriesDto } from '../../src/schemas/series.js';
import { buildTestApp } from '../helpers/app.js';
import { createSeries, createStory, MISSING_ID } from '../helpers/factories.js';
import { assertMatches } from '../helpers/schema.js';

t.test('create, read, update and delete a series', async (t) => {
  const ctx = await buildTestApp(t);
  const created = await ctx.post('/api/series', { name: '  The Expanse ', description: 'Space' });
  t.equal(created.statusCode, 201);
  const item = created.json();
  assertMatches(t, SeriesDto, item, 'matches SeriesDto');
  t.same(Object.keys(item).sort(), ['createdAt', 'description', 'id', 'name', 'storyCount']);
  t.equal(item.name, 'The Expanse', 'trimmed');
  t.equal(item.description, 'Space');
  t.equal(item.storyCount, 0);
  t.match(item.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  t.same((await ctx.get(`/api/series/${item.id}`)).json(), item);

  const bare = await ctx.post('/api/series', { name: 'Bare' });
  t.equal(bare.json().description, null, 'an unset description is null, not omitted');
  t.equal((await ctx.post('/api/series', { name: 'Null', description: null })).json().description, null);

  await sleep(5);
  const renamed = await ctx.put(`/api/series/${item.id}`, { name: 'Expanse' });
  t.equal(renamed.statusCode, 200);
  t.match(renamed.json(), { name: 'Expanse', description: 'Space', createdAt: item.createdAt }, 'absent description untouched');
  const stored = ctx.app.db.select().from(series).where(eq(series.id, item.id)).get();
  t.ok(stored && stored.updatedAt > item.createdAt, 'updatedAt moves on (kept in the table)');

  const described = (await ctx.put(`/api/series/${item.id}`, { description: 'Longer' })).json();
  t.match(described, { name: 'Expanse', description: 'Longer' }, 'absent name untouched');
  const cleared = (await ctx.put(`/api/series/${item.id}`, { description: null })).json();
  t.equal(cleared.description, null, 'description: null clears');
  t.equal(cleared.name, 'Expanse');
  t.same((await ctx.put(`/api/series/${item.id}`, {})).json(), cleared, 'an empty patch changes nothing visible');
  t.same((await ctx.get(`/api/series/${item.id}`)).json(), cleared);

  const deleted = await ctx.del(`/api/series/${item.id}`);
  t.equal(deleted.statusCode, 200);
  t.same(deleted.json(), { message: 'Series deleted successfully' });
  t.equal((await ctx.get(`/api/series/${item.id}`)).statusCode, 404);
  t.equal((await ctx.del(`/api/series/${item.id}`)).statusCode, 404);
});

t.test('series validation', async (t) => {
  const ctx = await buildTestApp(t);
  const createCases: Array<[string, unknown, string]> = [
    ['missing name', {}, 'name'],
    ['blank name', { name: ' \t ' }, 'name'],
    ['null name', { name: null }, 'name'],
    ['name not a string', { name: 1 }, 'name'],
    ['name over 255', { name: 's'.repeat(256) }, 'name'],
    ['description over 1000', { name: 'S', description: 'd'.repeat(1001) }, 'description'],
    ['description not a string', { name: 'S', description: 3 }, 'description'],
  ];
  for (const [label, body, field] of createCases) {
    const res = await ctx.post('/api/series', body);
    t.equal(res.statusCode, 400, label);
    t.type(res.json().details?.[field], 'string', `${label}: details.${field}`);
  }
  t.equal((await ctx.get('/api/series/stats')).json().totalSeries, 0, 'nothing was created by the failures');
  t.equal((await ctx.post('/api/series', { name: '名'.repeat(255), description: 'ü'.repeat(1000) })).statusCode, 201, 'limits count code points');
  t.equal((await ctx.post('/api/series', { name: '😀'.repeat(255) })).statusCode, 201, 'astral characters count once');

  const item = await createSeries(ctx, { name: 'Valid', description: 'keep' });
  const updateCases: Array<[string, unknown, string]> = [
    ['blank name', { name: '' }, 'name'],
    ['null name', { name: null }, 'name'],
    ['name over 255', { name: 's'.repeat(256) }, 'name'],
    ['description over 1000', { description: 'd'.repeat(1001) }, 'description'],
  ];
  for (const [label, body, field] of updateCases) {
    const res = await ctx.put(`/api/series/${item.id}`, body);
    t.equal(res.statusCode, 400, `update: ${label}`);
    t.type(res.json().details?.[field], 'string', `update: ${label}: details.${field}`);
  }
  t.match((await ctx.get(`/api/series/${item.id}`)).json(), { name: 'Valid', description: 'keep' });

  const text = await ctx.request({ method: 'POST', url: '/api/series', payload: 'x', headers: { 'content-type': 'text/plain' } });
  t.equal(text.statusCode, 415);
});

t.test('series names are unique case-insensitively', async (t) => {
  const ctx = await buildTestApp(t);
  const ann = await createSeries(ctx, { name: 'Ann' });
  const clash = await ctx.post('/api/series', { name: ' ANN ' });
  t.equal(clash.statusCode, 409);
  t.type(clash.json().details.name, 'string');

  const other = await createSeries(ctx, { name: 'Other' });
  const rename = await ctx.put(`/api/series/${other.id}`, { name: 'aNN' });
  t.equal(rename.statusCode, 409);
  t.type(rename.json().details.name, 'string');
  t.equal((await ctx.get(`/api/series/${other.id}`)).json().name, 'Other');
  const recase = await ctx.put(`/api/series/${ann.id}`, { name: 'ANN' });
  t.equal(recase.statusCode, 200, 'a series may change the case of its own name');
  t.equal(recase.json().name, 'ANN');
});

t.test('unknown and malformed series ids', async (t) => {
  const ctx = await buildTestApp(t);
  for (const res of [
    await ctx.get(`/api/series/${MISSING_ID}`),
    await ctx.put(`/api/series/${MISSING_ID}`, { name: 'X' }),
    await ctx.del(`/api/series/${MISSING_ID}`),
  ]) {
    t.equal(res.statusCode, 404);
    t.same(res.json(), { error: `Series not found with id: ${MISSING_ID}` });
  }
  const bad = await ctx.get('/api/series/nope');
  t.equal(bad.statusCode, 400);
  t.type(bad.json().details.id, 'string');
  t.equal((await ctx.put('/api/series/nope', {})).statusCode, 400);
  t.equal((await ctx.del('/api/series/nope')).statusCode, 400);
  t.equal((await ctx.app.inject({ method: 'GET', url: '/api/series' })).statusCode, 401);
});

t.test('deleting a series keeps its stories, unlinked', async (t) => {
  const ctx = await buildTestApp(t);
  const doomed = await createSeries(ctx, { name: 'Doomed' });
  const story = await createStory(ctx, { seriesName: 'doomed', volume: 2, authorName: 'Writer' });
  t.equal(story.seriesId, doomed.id);
  const bystander = await createStory(ctx, { seriesName: 'Bystander' });

  t.equal((await ctx.del(`/api/series/${doomed.id}`)).statusCode, 200);
  const kept = await ctx.get(`/api/stories/${story.id}`);
  t.equal(kept.statusCode, 200, 'the story is kept');
  t.match(kept.json(), { seriesId: null, seriesName: null, authorName: 'Writer' });
  t.equal((await ctx.get(`/api/stories/${bystander.id}`)).json().seriesName, 'Bystander');
  t.equal((await ctx.post('/api/series', { name: 'DOOMED' })).statusCode, 201, 'the name is free again');
});
