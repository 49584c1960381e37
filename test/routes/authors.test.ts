import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { authorUrls } from '../../src/db/schema.js';
import { AuthorDto } from '../../src/schemas/author.js';
import { buildTestApp } from '../helpers/app.js';
import { createAuthor, MISSING_ID } from '../helpers/factories.js';
import { assertMatches } from '../helpers/schema.js';

t.test('create, read, update and delete an author', async (t) => {
  const ctx = await buildTestApp(t);
  const created = await ctx.post('/api/authors', { name: '  Ursula K. Le Guin ', notes: 'Earthsea', urls: ['https://a.example', ' https://b.example '] });
  t.equal(created.statusCode, 201);
  const author = created.json();
  assertMatches(t, AuthorDto, author, 'matches AuthorDto');
  t.equal(author.name, 'Ursula K. Le Guin', 'trimmed');
  t.equal(author.notes, 'Earthsea');
  t.same(author.urls, ['https://a.example', 'https://b.example'], 'URLs trimmed, in the order given');
  t.equal(author.avatarImagePath, null);
  t.equal(author.authorRating, null);
  t.equal(author.averageStoryRating, null);
  t.equal(author.storyCount, 0);
  t.match(author.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  t.match(author.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.equal(author.updatedAt, author.createdAt);

  const fetched = await ctx.get(`/api/authors/${author.id}`);
  t.equal(fetched.statusCode, 200);
  t.same(fetched.json(), author);

  await sleep(5);
  const updated = await ctx.put(`/api/authors/${author.id}`, { name: 'Ursula Le Guin', rating: 5 });
  t.equal(updated.statusCode, 200);
  const after = updated.json();
  assertMatches(t, AuthorDto, after);
  t.equal(after.name, 'Ursula Le Guin');
  t.equal(after.authorRating, 5, 'the body says rating, the DTO authorRating');
  t.equal(after.notes, 'Earthsea', 'absent notes untouched');
  t.same(after.urls, author.urls, 'absent urls untouched');
  t.equal(after.createdAt, author.createdAt);
  t.ok(after.updatedAt > author.updatedAt, 'updatedAt moves on');
  t.same((await ctx.get(`/api/authors/${author.id}`)).json(), after, 'the update is stored');

  const deleted = await ctx.del(`/api/authors/${author.id}`);
  t.equal(deleted.statusCode, 200);
  t.same(deleted.json(), { message: 'Author deleted successfully' });
  t.equal((await ctx.get(`/api/authors/${author.id}`)).statusCode, 404);
  t.equal(ctx.app.db.select().from(authorUrls).where(eq(authorUrls.authorId, author.id)).all().length, 0, 'URLs went with the author');
});

t.test('a minimal author has every field, unset ones null', async (t) => {
  const ctx = await buildTestApp(t);
  const res = await ctx.post('/api/authors', { name: 'Solo', notes: null, urls: null });
  t.equal(res.statusCode, 201);
  const { id, createdAt, updatedAt, ...rest } = res.json();
  t.same(rest, { name: 'Solo', notes: null, avatarImagePath: null, authorRating: null, averageStoryRating: null, urls: [], storyCount: 0 });
  t.ok(id && createdAt && updatedAt);
});

t.test('create validation', async (t) => {
  const ctx = await buildTestApp(t);
  const cases: Array<[string, unknown, string]> = [
    ['missing name', {}, 'name'],
    ['blank name', { name: '   ' }, 'name'],
    ['name not a string', { name: 42 }, 'name'],
    ['null name', { name: null }, 'name'],
    ['name over 255', { name: 'x'.repeat(256) }, 'name'],
    ['notes over 10000', { name: 'A', notes: 'n'.repeat(10_001) }, 'notes'],
    ['notes not a string', { name: 'A', notes: 5 }, 'notes'],
    ['urls not an array', { name: 'A', urls: 'https://x.example' }, 'urls'],
    ['a blank URL', { name: 'A', urls: ['https://x.example', '   '] }, 'urls'],
    ['an empty URL', { name: 'A', urls: [''] }, 'urls'],
    ['a URL over 2048', { name: 'A', urls: [`https://x.example/${'p'.repeat(2049)}`] }, 'urls'],
    ['a URL not a string', { name: 'A', urls: [7] }, 'urls'],
    ['101 URLs', { name: 'A', urls: Array.from({ length: 101 }, (_, i) => `https://x.example/${i}`) }, 'urls'],
  ];
  for (const [label, body, field] of cases) {
    const res = await ctx.post('/api/authors', body);
    t.equal(res.statusCode, 400, label);
    t.type(res.json().details?.[field], 'string', `${label}: details.${field}`);
  }
  t.equal((await ctx.post('/api/authors', { name: 'A' })).statusCode, 201, 'nothing was created by the failures');

  t.equal((await ctx.post('/api/authors', { name: 'é'.repeat(255) })).statusCode, 201, '255 code points is allowed');
  t.equal((await ctx.post('/api/authors', { name: 'Notes', notes: 'n'.repeat(10_000) })).statusCode, 201, '10000-character notes allowed');
  const many = await ctx.post('/api/authors', { name: 'Many', urls: Array.from({ length: 100 }, (_, i) => `https://x.example/${i}`) });
  t.equal(many.statusCode, 201, '100 URLs allowed');
  t.equal(many.json().urls.length, 100);
  const repeats = await ctx.post('/api/authors', { name: 'Repeats', urls: ['https://a.example', 'https://b.example', ' https://a.example '] });
  t.same(repeats.json().urls, ['https://a.example', 'https://b.example'], 'a repeated URL is kept once, where it first appeared');

  const text = await ctx.request({ method: 'POST', url: '/api/authors', payload: 'name=A', headers: { 'content-type': 'text/plain' } });
  t.equal(text.statusCode, 415);
  const malformed = await ctx.request({ method: 'POST', url: '/api/authors', payload: '{"name":', headers: { 'content-type': 'application/json' } });
  t.equal(malformed.statusCode, 400);
});

t.test('names are unique case-insensitively', async (t) => {
  const ctx = await buildTestApp(t);
  const ann = await createAuthor(ctx, { name: 'Ann' });
  const clash = await ctx.post('/api/authors', { name: ' ANN ' });
  t.equal(clash.statusCode, 409);
  t.type(clash.json().error, 'string');
  t.type(clash.json().details.name, 'string');

  await createAuthor(ctx, { name: 'Émile' });
  t.equal((await ctx.post('/api/authors', { name: 'ÉMILE' })).statusCode, 409, 'non-ASCII letters fold too');

  const bob = await createAuthor(ctx, { name: 'Bob' });
  const rename = await ctx.put(`/api/authors/${bob.id}`, { name: 'ann ' });
  t.equal(rename.statusCode, 409);
  t.type(rename.json().details.name, 'string');
  t.equal((await ctx.get(`/api/authors/${bob.id}`)).json().name, 'Bob', 'a failed rename changes nothing');

  const recase = await ctx.put(`/api/authors/${ann.id}`, { name: 'ANN' });
  t.equal(recase.statusCode, 200, 'an author may change the case of its own name');
  t.equal(recase.json().name, 'ANN');
  t.equal((await ctx.put(`/api/authors/${ann.id}`, { name: 'ANN' })).statusCode, 200, 'renaming to the same name is fine');
});

t.test('partial update and null semantics', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx, { notes: 'some notes', urls: ['https://one.example', 'https://two.example'] });
  await ctx.put(`/api/authors/${author.id}`, { rating: 3 });

  await sleep(5);
  const before = (await ctx.get(`/api/authors/${author.id}`)).json();
  const empty = await ctx.put(`/api/authors/${author.id}`, {});
  t.equal(empty.statusCode, 200);
  const unchanged = empty.json();
  t.same({ ...unchanged, updatedAt: null }, { ...before, updatedAt: null }, 'an empty patch changes no field');
  t.ok(unchanged.updatedAt > before.updatedAt, 'but counts as an update');

  const replaced = (await ctx.put(`/api/authors/${author.id}`, { urls: ['https://three.example', ' https://one.example'] })).json();
  t.same(replaced.urls, ['https://three.example', 'https://one.example'], 'urls replace all, in the order given');
  t.equal(replaced.notes, 'some notes');
  t.equal(replaced.authorRating, 3);

  const cleared = (await ctx.put(`/api/authors/${author.id}`, { notes: null, rating: null })).json();
  t.equal(cleared.notes, null, 'notes: null clears');
  t.equal(cleared.authorRating, null, 'rating: null clears');
  t.same(cleared.urls, replaced.urls, 'urls untouched when absent');

  t.same((await ctx.put(`/api/authors/${author.id}`, { urls: [] })).json().urls, [], 'urls: [] removes all');
  await ctx.put(`/api/authors/${author.id}`, { urls: ['https://x.example'] });
  t.same((await ctx.put(`/api/authors/${author.id}`, { urls: null })).json().urls, [], 'urls: null removes all');

  const noted = (await ctx.put(`/api/authors/${author.id}`, { notes: 'new notes', rating: 1 })).json();
  t.equal(noted.notes, 'new notes');
  t.equal(noted.authorRating, 1);
  t.equal((await ctx.get(`/api/authors/${author.id}`)).json().authorRating, 1);
});

t.test('update validation', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx, { name: 'Valid', notes: 'keep' });
  const cases: Array<[string, unknown, string]> = [
    ['rating 0', { rating: 0 }, 'rating'],
    ['rating 6', { rating: 6 }, 'rating'],
    ['rating 3.5', { rating: 3.5 }, 'rating'],
    ['rating as text', { rating: '5' }, 'rating'],
    ['blank name', { name: '  ' }, 'name'],
    ['null name', { name: null }, 'name'],
    ['name over 255', { name: 'y'.repeat(256) }, 'name'],
    ['notes over 10000', { notes: 'n'.repeat(10_001) }, 'notes'],
    ['blank URL', { urls: [' '] }, 'urls'],
    ['101 URLs', { urls: Array.from({ length: 101 }, (_, i) => `u${i}`) }, 'urls'],
  ];
  for (const [label, body, field] of cases) {
    const res = await ctx.put(`/api/authors/${author.id}`, body);
    t.equal(res.statusCode, 400, label);
    t.type(res.json().details?.[field], 'string', `${label}: details.${field}`);
  }
  const stored = (await ctx.get(`/api/authors/${author.id}`)).json();
  t.equal(stored.name, 'Valid');
  t.equal(stored.notes, 'keep');

  const both = await ctx.put(`/api/authors/${author.id}`, { name: 'Other', rating: 9 });
  t.equal(both.statusCode, 400);
  t.equal((await ctx.get(`/api/authors/${author.id}`)).json().name, 'Valid', 'a rejected update changes nothing');
});

t.test('unknown and malformed ids', async (t) => {
  const ctx = await buildTestApp(t);
  const expected = `Author not found with id: ${MISSING_ID}`;
  const calls = [
    () => ctx.get(`/api/authors/${MISSING_ID}`),
    () => ctx.put(`/api/authors/${MISSING_ID}`, { name: 'X' }),
    () => ctx.del(`/api/authors/${MISSING_ID}`),
    () => ctx.post(`/api/authors/${MISSING_ID}/urls`, { url: 'https://x.example' }),
    () => ctx.del(`/api/authors/${MISSING_ID}/urls`, { url: 'https://x.example' }),
  ];
  for (const call of calls) {
    const res = await call();
    t.equal(res.statusCode, 404);
    t.same(res.json(), { error: expected });
  }
  const bad = await ctx.get('/api/authors/not-a-uuid');
  t.equal(bad.statusCode, 400);
  t.type(bad.json().details.id, 'string');
  t.equal((await ctx.put('/api/authors/not-a-uuid', {})).statusCode, 400);
  t.equal((await ctx.del('/api/authors/not-a-uuid')).statusCode, 400);
  t.equal((await ctx.post('/api/authors/not-a-uuid/urls', { url: 'x' })).statusCode, 400);

  const anonymous = await ctx.app.inject({ method: 'GET', url: '/api/authors' });
  t.equal(anonymous.statusCode, 401, 'the routes need the token');
});

t.test('adding and removing URLs', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx, { urls: ['https://one.example'] });
  const url = `/api/authors/${author.id}/urls`;

  await sleep(5);
  const added = await ctx.post(url, { url: ' https://two.example ' });
  t.equal(added.statusCode, 200);
  const withTwo = added.json();
  assertMatches(t, AuthorDto, withTwo);
  t.same(withTwo.urls, ['https://one.example', 'https://two.example'], 'appended, trimmed');
  t.ok(withTwo.updatedAt > (author.updatedAt as string), 'adding a URL is an update');

  await sleep(5);
  const again = await ctx.post(url, { url: 'https://one.example' });
  t.equal(again.statusCode, 200);
  t.same(again.json(), withTwo, 'adding a URL already present is a no-op');

  const removed = await ctx.del(url, { url: 'https://one.example' });
  t.equal(removed.statusCode, 200);
  t.same(removed.json().urls, ['https://two.example']);

  const absent = await ctx.del(url, { url: 'https://never.example' });
  t.equal(absent.statusCode, 200, 'removing an absent URL is idempotent');
  t.same(absent.json(), removed.json(), 'and returns the author unchanged');

  const readded = await ctx.post(url, { url: 'https://one.example' });
  t.same(readded.json().urls, ['https://two.example', 'https://one.example'], 'a re-added URL goes to the end');
  t.same((await ctx.get(`/api/authors/${author.id}`)).json().urls, ['https://two.example', 'https://one.example']);

  for (const [label, body] of [
    ['blank url', { url: '  ' }],
    ['missing url', {}],
    ['url not a string', { url: 3 }],
    ['url over 2048', { url: 'u'.repeat(2049) }],
  ] as const) {
    const res = await ctx.post(url, body);
    t.equal(res.statusCode, 400, `add: ${label}`);
    t.type(res.json().details?.url, 'string', `add: ${label}: details.url`);
  }
  t.equal((await ctx.del(url, { url: ' ' })).statusCode, 400, 'remove: blank url');
  t.equal((await ctx.del(url)).statusCode, 400, 'remove: no body');
  t.equal((await ctx.post(url)).statusCode, 400, 'add: no body');
});

t.test('an author carries at most 100 URLs', async (t) => {
  const ctx = await buildTestApp(t);
  const urls = Array.from({ length: 100 }, (_, i) => `https://x.example/${i}`);
  const author = await createAuthor(ctx, { urls });
  const full = await ctx.post(`/api/authors/${author.id}/urls`, { url: 'https://x.example/100' });
  t.equal(full.statusCode, 400);
  t.type(full.json().details.url, 'string');
  t.equal((await ctx.post(`/api/authors/${author.id}/urls`, { url: 'https://x.example/5' })).statusCode, 200, 'a present URL is still a no-op');
  await ctx.del(`/api/authors/${author.id}/urls`, { url: 'https://x.example/0' });
  const room = await ctx.post(`/api/authors/${author.id}/urls`, { url: 'https://x.example/100' });
  t.equal(room.statusCode, 200);
  t.equal(room.json().urls.length, 100);
  t.equal(room.json().urls.at(-1), 'https://x.example/100');
});
