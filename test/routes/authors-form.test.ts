import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { AuthorDto } from '../../src/schemas/author.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createAuthor, MISSING_ID } from '../helpers/factories.js';
import * as img from '../helpers/images.js';
import { multipart, type Part } from '../helpers/multipart.js';
import { assertMatches } from '../helpers/schema.js';

/** The multipart form of PUT /api/authors/{id} (docs/decisions.md, "Images"). */

function putForm(ctx: TestContext, id: string, parts: Part[]) {
  const body = multipart(parts);
  return ctx.request({ method: 'PUT', url: `/api/authors/${id}`, payload: body.payload, headers: body.headers });
}

t.test('every field at once, urls as repeated parts in order, and the avatar', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx, { notes: 'old', urls: ['https://old.example'] });
  await sleep(2);
  const res = await putForm(ctx, author.id, [
    { name: 'name', value: '  Octavia E. Butler ' },
    { name: 'urls', value: 'https://b.example' },
    { name: 'avatar', data: img.jpeg(), filename: 'me.png', contentType: 'image/png' },
    { name: 'notes', value: 'Kindred' },
    { name: 'urls', value: ' https://a.example' },
    { name: 'authorRating', value: '5' },
  ]);
  t.equal(res.statusCode, 200);
  const body = res.json();
  assertMatches(t, AuthorDto, body, 'an AuthorDto, as for JSON');
  t.equal(body.name, 'Octavia E. Butler', 'trimmed as in JSON');
  t.equal(body.notes, 'Kindred');
  t.same(body.urls, ['https://b.example', 'https://a.example'], 'the order of the parts, trimmed');
  t.equal(body.authorRating, 5);
  t.match(body.avatarImagePath, /^avatars\/[0-9a-f-]{36}\.jpg$/, 'the type from the bytes');
  t.ok(body.updatedAt > (author.updatedAt as string));
  t.same((await ctx.get(`/api/authors/${author.id}`)).json(), body, 'stored');
  const served = await ctx.get(`/api/files/images/${body.avatarImagePath}`);
  t.equal(served.headers['content-type'], 'image/jpeg');
  t.same(served.rawPayload, img.jpeg());
  t.same(img.imageFolderFiles(ctx.dataDir), [body.avatarImagePath]);
});

t.test('absent parts leave their fields; a new avatar replaces the old file', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx, { notes: 'keep', urls: ['https://keep.example'] });
  const first = (await putForm(ctx, author.id, [{ name: 'avatar', data: img.png() }])).json();
  t.equal(first.notes, 'keep');
  t.same(first.urls, ['https://keep.example']);

  const rated = (await putForm(ctx, author.id, [{ name: 'authorRating', value: ' 3 ' }])).json();
  t.equal(rated.authorRating, 3);
  t.equal(rated.avatarImagePath, first.avatarImagePath, 'no avatar part: the avatar stays');
  t.same(img.imageFolderFiles(ctx.dataDir), [first.avatarImagePath]);

  const replaced = (await putForm(ctx, author.id, [{ name: 'avatar', data: img.webp() }])).json();
  t.match(replaced.avatarImagePath, /\.webp$/);
  t.equal(replaced.authorRating, 3);
  t.same(img.imageFolderFiles(ctx.dataDir), [replaced.avatarImagePath], 'the old avatar is gone');
  t.same(img.trashedImages(ctx.dataDir), [first.avatarImagePath]);

  const none = await putForm(ctx, author.id, []);
  t.equal(none.statusCode, 200, 'an empty form is an empty patch');
  t.same({ ...none.json(), updatedAt: null }, { ...replaced, updatedAt: null });
});

t.test('a form cannot send null: empty notes and authorRating clear, one empty urls part removes all', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx, { notes: 'n', urls: ['https://x.example', 'https://y.example'] });
  await ctx.put(`/api/authors/${author.id}`, { rating: 4 });
  const res = await putForm(ctx, author.id, [
    { name: 'notes', value: '' },
    { name: 'authorRating', value: '' },
    { name: 'urls', value: '' },
  ]);
  t.equal(res.statusCode, 200);
  t.equal(res.json().notes, null);
  t.equal(res.json().authorRating, null);
  t.same(res.json().urls, []);
});

t.test('invalid fields: 400 with the same details as JSON, the rating named authorRating', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx, { name: 'Valid', notes: 'keep' });
  const avatar = (await putForm(ctx, author.id, [{ name: 'avatar', data: img.png() }])).json().avatarImagePath;
  const before = (await ctx.get(`/api/authors/${author.id}`)).json();
  const cases: Array<[string, Part[], string, string]> = [
    ['rating 0', [{ name: 'authorRating', value: '0' }], 'authorRating', 'must be an integer from 1 to 5'],
    ['rating 6', [{ name: 'authorRating', value: '6' }], 'authorRating', 'must be an integer from 1 to 5'],
    ['rating 3.5', [{ name: 'authorRating', value: '3.5' }], 'authorRating', 'must be an integer from 1 to 5'],
    ['rating text', [{ name: 'authorRating', value: 'five' }], 'authorRating', 'must be an integer from 1 to 5'],
    ['rating twice', [{ name: 'authorRating', value: '1' }, { name: 'authorRating', value: '2' }], 'authorRating', 'must be given once'],
    ['blank name', [{ name: 'name', value: '   ' }], 'name', 'must not be blank'],
    ['name over 255', [{ name: 'name', value: 'y'.repeat(256) }], 'name', 'must be at most 255 characters long'],
    ['name twice', [{ name: 'name', value: 'A' }, { name: 'name', value: 'B' }], 'name', 'must be given once'],
    ['notes over 10000', [{ name: 'notes', value: 'n'.repeat(10_001) }], 'notes', 'must be at most 10000 characters long'],
    ['a blank URL among others', [{ name: 'urls', value: 'https://a.example' }, { name: 'urls', value: ' ' }], 'urls', 'an item must not be blank'],
    ['101 URLs', Array.from({ length: 101 }, (_, i) => ({ name: 'urls', value: `https://u${i}.example` })), 'urls', 'must have at most 100 items'],
  ];
  for (const [label, parts, field, message] of cases) {
    const res = await putForm(ctx, author.id, [...parts, { name: 'avatar', data: img.jpeg() }]);
    t.equal(res.statusCode, 400, label);
    t.equal(res.json().details?.[field], message, `${label}: details.${field}`);
    t.notOk('rating' in (res.json().details ?? {}), `${label}: never details.rating`);
  }
  t.same((await ctx.get(`/api/authors/${author.id}`)).json(), before, 'the author is unchanged');
  t.same(img.imageFolderFiles(ctx.dataDir), [avatar], 'every uploaded avatar was removed again');
  t.same(img.trashedImages(ctx.dataDir), [], 'deleted outright: never referenced');

  const json = await ctx.put(`/api/authors/${author.id}`, { rating: 0 });
  t.same(json.json().details, { rating: 'must be at least 1' }, 'the JSON form names it rating');
});

t.test('a duplicate name is 409; the uploaded avatar is removed and the row unchanged', async (t) => {
  const ctx = await buildTestApp(t);
  await createAuthor(ctx, { name: 'Taken Name' });
  const author = await createAuthor(ctx, { name: 'Mine' });
  const old = (await putForm(ctx, author.id, [{ name: 'avatar', data: img.png() }])).json().avatarImagePath;
  const before = (await ctx.get(`/api/authors/${author.id}`)).json();
  const res = await putForm(ctx, author.id, [
    { name: 'name', value: 'taken name' },
    { name: 'notes', value: 'new notes' },
    { name: 'avatar', data: img.jpeg() },
  ]);
  t.equal(res.statusCode, 409);
  t.same(res.json().details, { name: 'is already used by another author' });
  t.same((await ctx.get(`/api/authors/${author.id}`)).json(), before, 'no field changed, the avatar included');
  t.same(img.imageFolderFiles(ctx.dataDir), [old], 'the new upload is gone, the old avatar stays');
  t.same(img.trashedImages(ctx.dataDir), []);
});

t.test('a bad avatar is 415/413 naming the avatar part; nothing changes', async (t) => {
  const ctx = await buildTestApp(t);
  const author = await createAuthor(ctx);
  const before = (await ctx.get(`/api/authors/${author.id}`)).json();
  const svg = await putForm(ctx, author.id, [{ name: 'name', value: 'New' }, { name: 'avatar', data: img.svg(), filename: 'a.png', contentType: 'image/png' }]);
  t.equal(svg.statusCode, 415);
  t.same(svg.json().details, { avatar: 'must be a JPEG, PNG or WebP image' });
  const big = await putForm(ctx, author.id, [{ name: 'avatar', data: img.pngOfSize(5 * 1024 * 1024 + 1) }, { name: 'name', value: 'New' }]);
  t.equal(big.statusCode, 413);
  t.same(big.json().details, { avatar: 'must be at most 5 MiB (5242880 bytes)' });
  t.same((await ctx.get(`/api/authors/${author.id}`)).json(), before);
  t.same(img.imageFolderFiles(ctx.dataDir), []);
});

t.test('unknown author: 404 before the form is read; the JSON form still works on the same route', async (t) => {
  const ctx = await buildTestApp(t);
  let saved = 0;
  const save = ctx.app.images.saveUploadedImage.bind(ctx.app.images);
  ctx.app.images.saveUploadedImage = async (...args) => {
    saved += 1;
    return save(...args);
  };
  const res = await putForm(ctx, MISSING_ID, [{ name: 'name', value: 'X' }, { name: 'avatar', data: img.png() }]);
  t.equal(res.statusCode, 404);
  t.same(res.json(), { error: `Author not found with id: ${MISSING_ID}` });
  t.equal(saved, 0);
  t.same(img.imageFolderFiles(ctx.dataDir), []);

  const author = await createAuthor(ctx);
  const json = await ctx.put(`/api/authors/${author.id}`, { name: 'Via JSON', rating: 2, authorRating: 5 });
  t.equal(json.statusCode, 200);
  t.equal(json.json().authorRating, 2, 'JSON takes rating; authorRating there is an unknown field');
  const empty = await ctx.request({ method: 'PUT', url: `/api/authors/${author.id}`, headers: { 'content-type': 'application/json' } });
  t.equal(empty.statusCode, 400, 'JSON without a body');
  const bare = await ctx.request({ method: 'PUT', url: `/api/authors/${author.id}` });
  t.equal(bare.statusCode, 400, 'no body and no Content-Type');
  t.type(bare.json().details?.body, 'string');
  const text = await ctx.request({ method: 'PUT', url: `/api/authors/${author.id}`, payload: 'name=x', headers: { 'content-type': 'text/plain' } });
  t.equal(text.statusCode, 415);
});
