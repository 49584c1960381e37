import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { ErrorBody } from '../../src/schemas/common.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import * as img from '../helpers/images.js';
import { fileUpload } from '../helpers/multipart.js';

// `app.inject` sends `Host: localhost:80` over plain HTTP: the app's own origin is http://localhost.
const OWN_ORIGIN = 'http://localhost';

function createTag(ctx: TestContext, name: string, headers: Record<string, string>) {
  return ctx.request({ method: 'POST', url: '/api/tags', payload: { name }, headers });
}

async function tagNames(ctx: TestContext): Promise<string[]> {
  return ((await ctx.get('/api/tags?size=100')).json().content as { name: string }[]).map((tag) => tag.name);
}

t.test('a state-changing request from a foreign origin is 403 and changes nothing', async (t) => {
  const ctx = await buildTestApp(t);
  const foreign: [string, Record<string, string>][] = [
    ['another port of the same host', { origin: 'http://localhost:8080' }],
    ['another host', { origin: 'http://evil.example' }],
    ['another scheme', { origin: 'https://localhost' }],
    ['an opaque origin', { origin: 'null' }],
    ['a malformed origin', { origin: 'not a url' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site with no Origin (another port)', { 'sec-fetch-site': 'same-site' }],
    ['Sec-Fetch-Site: same-site with a foreign Origin', { 'sec-fetch-site': 'same-site', origin: 'http://localhost:5173' }],
    ['cross-site with a matching Origin', { 'sec-fetch-site': 'cross-site', origin: OWN_ORIGIN }],
  ];
  for (const [label, headers] of foreign) {
    const res = await createTag(ctx, `tag ${label}`, headers);
    t.equal(res.statusCode, 403, label);
    t.ok(Value.Check(ErrorBody, res.json()), `${label}: the error shape`);
    t.match(res.json().error, /cross-site/i, label);
  }
  t.same(await tagNames(ctx), [], 'no tag was created');

  for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
    const res = await ctx.request({ method, url: '/api/tags/whatever', headers: { origin: 'http://evil.example' } });
    t.equal(res.statusCode, 403, `${method} is refused too`);
  }
  const logout = await ctx.app.inject({ method: 'POST', url: '/api/auth/logout', cookies: { token: ctx.token }, headers: { origin: 'http://evil.example' } });
  t.equal(logout.statusCode, 403, 'a bodiless POST is refused');
  t.equal((await ctx.get('/api/auth/verify')).statusCode, 200, 'the session was not logged out');
});

t.test('a cross-site multipart upload is refused before anything is stored', async (t) => {
  const ctx = await buildTestApp(t);
  const body = fileUpload(img.png());
  const res = await ctx.request({ method: 'POST', url: '/api/files/upload/cover', payload: body.payload, headers: { ...body.headers, origin: 'http://localhost:3001' } });
  t.equal(res.statusCode, 403);
  t.ok(Value.Check(ErrorBody, res.json()));
  const covers = path.join(ctx.dataDir, 'images', 'covers');
  t.same(fs.existsSync(covers) ? fs.readdirSync(covers) : [], [], 'no file was written');

  const same = await ctx.request({ method: 'POST', url: '/api/files/upload/cover', payload: body.payload, headers: { ...body.headers, origin: OWN_ORIGIN } });
  t.equal(same.statusCode, 200, 'the same upload from the own origin works');
});

t.test('same-origin requests, and requests without those headers, are accepted', async (t) => {
  const ctx = await buildTestApp(t);
  const accepted: [string, Record<string, string>][] = [
    ['no Origin, no Sec-Fetch-Site (curl, scripts)', {}],
    ['the own origin', { origin: OWN_ORIGIN }],
    ['the own origin with its default port spelled out', { origin: 'http://localhost:80' }],
    ['the own origin in capitals', { origin: 'HTTP://LOCALHOST' }],
    ['Sec-Fetch-Site: same-origin', { 'sec-fetch-site': 'same-origin', origin: OWN_ORIGIN }],
    ['Sec-Fetch-Site: none (typed by the user)', { 'sec-fetch-site': 'none' }],
  ];
  for (const [index, [label, headers]] of accepted.entries()) {
    t.equal((await createTag(ctx, `accepted ${index}`, headers)).statusCode, 201, label);
  }
  t.equal((await tagNames(ctx)).length, accepted.length);
});

t.test('the own origin follows the Host header and, behind a trusted proxy, X-Forwarded-Proto/Host', async (t) => {
  const direct = await buildTestApp(t);
  const onPort = await createTag(direct, 'on a port', { host: 'books.home:3000', origin: 'http://books.home:3000' });
  t.equal(onPort.statusCode, 201);
  const otherPort = await createTag(direct, 'other port', { host: 'books.home:3000', origin: 'http://books.home:3001' });
  t.equal(otherPort.statusCode, 403);

  const proxied = await buildTestApp(t, { TRUST_PROXY: 'true' });
  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'books.example' };
  t.equal((await createTag(proxied, 'via proxy', { ...forwarded, origin: 'https://books.example' })).statusCode, 201);
  t.equal((await createTag(proxied, 'plain via proxy', { ...forwarded, origin: 'http://books.example' })).statusCode, 403, 'the scheme counts');
});

t.test('reads are never refused, whatever their origin', async (t) => {
  const ctx = await buildTestApp(t);
  for (const headers of [{ origin: 'http://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }]) {
    t.equal((await ctx.request({ method: 'GET', url: '/api/tags', headers })).statusCode, 200);
    t.equal((await ctx.request({ method: 'HEAD', url: '/api/tags', headers })).statusCode, 200);
  }
  t.equal((await ctx.app.inject({ method: 'GET', url: '/healthz', headers: { origin: 'http://evil.example' } })).statusCode, 200);
});
