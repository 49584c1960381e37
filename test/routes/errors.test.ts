import t from 'tap';
import { buildTestApp } from '../helpers/app.js';

// Unknown paths outside /api are the pages' HTML 404 (test/web/errors.test.ts).
t.test('unknown API routes are 404 JSON with or without a token', async (t) => {
  const ctx = await buildTestApp(t);
  for (const res of [await ctx.get('/api/nothing-here'), await ctx.app.inject({ method: 'GET', url: '/api/nothing-here' }), await ctx.app.inject({ method: 'POST', url: '/api/' })]) {
    t.equal(res.statusCode, 404);
    t.match(res.headers['content-type'], /application\/json/);
    t.type(res.json().error, 'string');
  }
});

t.test('malformed, empty, oversized and non-JSON bodies', async (t) => {
  const ctx = await buildTestApp(t);
  const malformed = await ctx.request({ method: 'POST', url: '/api/tags', payload: '{"name": "x"', headers: { 'content-type': 'application/json' } });
  t.equal(malformed.statusCode, 400);
  t.type(malformed.json().error, 'string');
  t.notMatch(malformed.body, /at .*\.(js|ts):\d+/, 'no stack trace');

  const empty = await ctx.request({ method: 'POST', url: '/api/tags', payload: '', headers: { 'content-type': 'application/json' } });
  t.equal(empty.statusCode, 400, 'an empty body where one is required');

  const huge = await ctx.request({
    method: 'POST',
    url: '/api/tags',
    payload: JSON.stringify({ name: 'x'.repeat(16 * 1024 * 1024 + 10) }),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(huge.statusCode, 413);
  t.type(huge.json().error, 'string');

  const text = await ctx.request({ method: 'POST', url: '/api/tags', payload: 'name', headers: { 'content-type': 'text/plain' } });
  t.equal(text.statusCode, 415);
  const xml = await ctx.request({ method: 'POST', url: '/api/tags', payload: '<x/>', headers: { 'content-type': 'application/xml' } });
  t.equal(xml.statusCode, 415);

  const proto = await ctx.request({ method: 'POST', url: '/api/tags', payload: '{"name":"x","__proto__":{"polluted":true}}', headers: { 'content-type': 'application/json' } });
  t.equal(proto.statusCode, 400, 'prototype pollution keys are refused');
  t.equal(({} as Record<string, unknown>).polluted, undefined);

  t.equal((await ctx.get('/api/tags')).json().totalElements, 0, 'nothing was written by any of them');
});

t.test('a malformed URL is a 400 in the usual error shape', async (t) => {
  const ctx = await buildTestApp(t);
  const res = await ctx.get('/api/tags/%zz');
  t.equal(res.statusCode, 400);
  t.same(Object.keys(res.json()), ['error']);
  const long = await ctx.get(`/api/tags/${'a'.repeat(600)}`);
  t.equal(long.statusCode, 400);
  t.same(Object.keys(long.json()), ['error']);
});

t.test('every response says nosniff', async (t) => {
  const ctx = await buildTestApp(t);
  for (const res of [await ctx.get('/api/tags'), await ctx.app.inject({ method: 'GET', url: '/api/tags' }), await ctx.get('/api/none')]) {
    t.equal(res.headers['x-content-type-options'], 'nosniff');
  }
});

t.test('the sanitization settings come from the one policy the sanitizer uses', async (t) => {
  const ctx = await buildTestApp(t);
  const res = await ctx.get('/api/config/html-sanitization');
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.ok(body.allowedTags.includes('p'));
  t.notOk(body.allowedTags.includes('script'));
  t.same(body.allowedAttributes.a, ['href', 'rel']);
  t.ok(Array.isArray(body.allowedAttributes['*']));
  t.ok(body.allowedCssProperties.includes('color'));
  t.ok(body.removedAttributes['*'].includes('on*'));
  t.equal(body.renamedTags.section, 'div', 'block elements that are not allowed become one that is');
  t.type(body.description, 'string');
});
