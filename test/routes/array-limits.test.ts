import t from 'tap';
import type { RouteOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { STORY_TAG_NAMES_MAX } from '../../src/schemas/story.js';
import { buildTestApp, TEST_PASSWORD, tempDataDir } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';

/**
 * docs/decisions.md, "Validation": every array a client can send (body, query, path, headers)
 * has a `maxItems`, so no request can make the server walk an unbounded list.
 */

/** JSON pointers of every `type: 'array'` without `maxItems` in `schema`, however deep. */
function unboundedArrays(schema: unknown, at: string): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  const node = schema as Record<string, unknown>;
  const here = node.type === 'array' && typeof node.maxItems !== 'number' ? [at] : [];
  return here.concat(Object.entries(node).flatMap(([key, value]) => unboundedArrays(value, `${at}/${key}`)));
}

t.test('every array in every request schema has a maxItems', async (t) => {
  const routes: RouteOptions[] = [];
  const config = loadConfig({ APP_PASSWORD: TEST_PASSWORD, LOG_LEVEL: 'silent', DATA_DIR: tempDataDir(t) });
  const app = await buildApp(config, { logger: false, onRoute: (route) => routes.push(route) });
  t.teardown(() => app.close());
  await app.ready();

  let arrays = 0;
  const unbounded: string[] = [];
  for (const route of routes) {
    for (const part of ['body', 'querystring', 'params', 'headers'] as const) {
      const schema = route.schema?.[part];
      const where = `${String(route.method)} ${route.url} ${part}`;
      arrays += JSON.stringify(schema ?? {}).split('"array"').length - 1;
      unbounded.push(...unboundedArrays(schema, where));
    }
  }
  t.ok(routes.length > 40, `the API's routes were seen (${routes.length})`);
  t.ok(arrays >= 4, `request arrays were found to check (${arrays})`);
  t.same(unbounded, [], 'no request array is unbounded');
});

t.test('tagNames is bounded: one over the maximum is a clear 400 and changes nothing', async (t) => {
  const ctx = await buildTestApp(t);
  const names = (count: number) => Array.from({ length: count }, (_, i) => `tag ${i}`);
  const atMost = await ctx.post('/api/stories', { title: 'Many tags', tagNames: names(STORY_TAG_NAMES_MAX) });
  t.equal(atMost.statusCode, 201, `${STORY_TAG_NAMES_MAX} tags are fine`);
  t.equal(atMost.json().tags.length, STORY_TAG_NAMES_MAX);

  const story = await createStory(ctx, { tagNames: ['kept'] });
  const started = performance.now();
  const huge = await ctx.put(`/api/stories/${story.id}`, { tagNames: names(20_000) });
  const elapsed = performance.now() - started;
  t.equal(huge.statusCode, 400);
  t.match(huge.json().details, { tagNames: `must have at most ${STORY_TAG_NAMES_MAX} items` });
  t.ok(elapsed < 2000, `20,000 tag names are refused quickly (${Math.round(elapsed)} ms)`);
  const over = await ctx.post('/api/stories', { title: 'Too many', tagNames: names(STORY_TAG_NAMES_MAX + 1) });
  t.equal(over.statusCode, 400);
  t.same(Object.keys(over.json().details), ['tagNames']);
  t.same((await ctx.get(`/api/stories/${story.id}`)).json().tags.map((tag: { name: string }) => tag.name), ['kept'], 'tags unchanged');
  t.equal((await ctx.get('/api/tags')).json().totalElements, STORY_TAG_NAMES_MAX + 1, 'no tag was created by the refusals');
});

t.test('search filters are bounded too', async (t) => {
  const ctx = await buildTestApp(t);
  const many = Array.from({ length: 101 }, (_, i) => `tags=t${i}`).join('&');
  const res = await ctx.get(`/api/stories/search?query=*&${many}`);
  t.equal(res.statusCode, 400);
  t.match(res.json().details, { tags: /at most 100/ });
});

t.test('search filters are bounded after splitting on commas', async (t) => {
  const ctx = await buildTestApp(t);
  const many = Array.from({ length: 101 }, (_, index) => `t${index}`).join(',');
  for (const field of ['tags', 'authors']) {
    const res = await ctx.get(`/api/stories/search?query=*&${field}=${many}`);
    t.equal(res.statusCode, 400, `${field}: 101 names in one value`);
    t.match(res.json().details, { [field]: /at most 100/ }, 'the 400 names the field and the bound');
  }
  const both = await ctx.get(`/api/stories/search?query=*&tags=${many}&authors=a,${many}`);
  t.same(Object.keys(both.json().details).sort(), ['authors', 'tags'], 'one 400 names both fields');
  const split = Array.from({ length: 3 }, (_, index) => `tags=${Array.from({ length: 40 }, (_, j) => `t${index}-${j}`).join(',')}`).join('&');
  t.equal((await ctx.get(`/api/stories/search?query=*&${split}`)).statusCode, 400, '120 names over 3 values');
  const hundred = Array.from({ length: 100 }, (_, index) => `t${index}`).join(',');
  t.equal((await ctx.get(`/api/stories/search?query=*&tags=${hundred}`)).statusCode, 200, '100 names are fine');
});
