import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';

/**
 * Found by the hostile sweep: `page=1e308` passed the schema (an integer at least 0) and reached
 * SQLite as a REAL OFFSET, a 500 on every paginated list. A page whose offset is no longer an
 * exact integer is out of range: 400 naming `page`. The largest page that is not is a page past
 * the end: 200, empty (docs/decisions.md, "Lists and pagination").
 */
t.test('a page too far out for an exact offset is 400 on every paginated list', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, { authorName: 'Paged Author', tagNames: ['paged'] });
  const lists = [
    '/api/stories?',
    `/api/stories/author/${story.authorId as string}?`,
    '/api/stories/tags/paged?',
    '/api/authors?',
    '/api/authors/search?query=paged&',
    '/api/tags?',
    '/api/tags/search?query=paged&',
    '/api/series?',
    '/api/series/search?query=x&',
  ];
  for (const list of lists) {
    for (const page of ['1e308', '1e17', String(2 ** 53)]) {
      const res = await ctx.get(`${list}page=${page}&size=20`);
      t.equal(res.statusCode, 400, `${list} page=${page}`);
      t.same(res.json(), { error: 'Validation failed', details: { page: 'must be at most 450359962737049' } });
    }
    const last = await ctx.get(`${list}page=450359962737049&size=20`);
    t.equal(last.statusCode, 200, `${list} the largest page is a page past the end`);
    t.same(last.json().content, []);
    t.equal(last.json().pageable.offset, 9007199254740980);
  }
});

/**
 * Found by the hostile sweep: `?page=Infinity` was coerced to Infinity, which Ajv took for an
 * integer of at least 0; story search then failed serializing its answer (a 500).
 */
t.test('Infinity in any integer query parameter is a 400 naming it', async (t) => {
  const ctx = await buildTestApp(t);
  const cases = [
    ['/api/stories?page=Infinity', 'page'],
    ['/api/stories/search?query=x&page=Infinity', 'page'],
    ['/api/stories/search?query=x&minRating=Infinity', 'minRating'],
    ['/api/stories/recent?limit=Infinity', 'limit'],
    ['/api/tags/popular?limit=-Infinity', 'limit'],
    ['/api/authors?size=Infinity', 'size'],
  ] as const;
  for (const [url, field] of cases) {
    const res = await ctx.get(url);
    t.equal(res.statusCode, 400, url);
    t.type(res.json().details?.[field], 'string', `${url} names ${field}`);
  }
});
