/**
 * Signing in through the home server's login (docs/decisions.md, "Proxy login"), through the
 * real HTTP stack: `AUTH_PROXY_HEADER` from an address `TRUST_PROXY` lists signs a request in,
 * the same header from any other peer is ignored (401), and device tokens, OPDS, kosync and the
 * cross-site check work beside it as before.
 */
import t from 'tap';
import type { InjectOptions } from 'fastify';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { basicAuth, makeDeviceToken } from '../helpers/tokens.js';
import { md5 } from '../helpers/kosync.js';

const PROXY = '10.0.0.2';
const ELSEWHERE = '192.168.1.50';
const ENV = { AUTH_PROXY_HEADER: 'Remote-User', TRUST_PROXY: `${PROXY},172.30.0.0/16` };

/** A request with no cookie: only what `headers` and the peer address say. */
function bare(ctx: TestContext, from: string, options: InjectOptions) {
  return ctx.app.inject({ ...options, remoteAddress: from });
}

const get = (url: string, headers: Record<string, string> = {}): InjectOptions => ({ method: 'GET', url, headers });

t.test('the header from the trusted proxy signs in; from anywhere else it is ignored', async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const ctx = await buildTestApp(t, ENV, { level: 'info', stream: { write: (line: string) => lines.push(JSON.parse(line)) } });
  const asAlice = { 'remote-user': 'alice' };

  t.equal((await bare(ctx, PROXY, get('/api/stories', asAlice))).statusCode, 200, 'from the proxy');
  t.equal((await bare(ctx, '172.30.9.9', get('/api/stories', asAlice))).statusCode, 200, 'from a listed range');
  t.equal((await bare(ctx, `::ffff:${PROXY}`, get('/api/stories', asAlice))).statusCode, 200, 'the proxy seen through a dual-stack socket');
  t.equal((await bare(ctx, PROXY, get('/api/auth/verify', { 'Remote-User': 'alice' }))).statusCode, 200, 'any capitalisation of the name');

  const untrusted = await bare(ctx, ELSEWHERE, get('/api/stories', asAlice));
  t.equal(untrusted.statusCode, 401, 'the same header from an untrusted address');
  t.same(untrusted.json(), { error: 'Authentication required' });
  t.equal((await bare(ctx, '127.0.0.1', get('/api/stories', asAlice))).statusCode, 401, 'from this machine, which is not listed');
  const forwarded = await bare(ctx, ELSEWHERE, get('/api/stories', { ...asAlice, 'x-forwarded-for': PROXY }));
  t.equal(forwarded.statusCode, 401, 'claiming to be the proxy in X-Forwarded-For changes nothing: the socket peer counts');
  t.equal((await bare(ctx, PROXY, get('/api/stories'))).statusCode, 401, 'from the proxy without the header');
  t.equal((await bare(ctx, PROXY, get('/api/stories', { 'remote-user': '  ' }))).statusCode, 401, 'an empty header is no header');
  const garbage = await bare(ctx, PROXY, get('/api/stories', { 'remote-user': 'x'.repeat(300) }));
  t.equal(garbage.statusCode, 401, 'a header that is no user name');
  t.match(garbage.json().error, /not a user name/);

  t.equal((await bare(ctx, PROXY, get('/api/stories', { ...asAlice, cookie: 'token=stale.expired.token' }))).statusCode, 200, 'a stale cookie does not undo the proxy sign-in');
  const mint = await bare(ctx, PROXY, { method: 'POST', url: '/api/tokens', payload: { name: 'Kobo' }, headers: asAlice });
  t.equal(mint.statusCode, 201, 'a proxy-signed person may do what only a login may (make device tokens)');

  const signIns = lines.filter((line) => line.msg === 'Signed in through the proxy');
  t.same(signIns.map((line) => line.proxyUser), ['alice'], 'the name is logged, once, however many requests it makes');
});

t.test('the pages: signed in from the proxy, sent to log in from anywhere else', async (t) => {
  const ctx = await buildTestApp(t, ENV);
  const page = await bare(ctx, PROXY, get('/library', { 'remote-user': 'alice' }));
  t.equal(page.statusCode, 200);
  t.match(page.body, /action="\/logout"/, 'the layout shows the signed-in navigation');
  const login = await bare(ctx, PROXY, get('/login?next=%2Flibrary', { 'remote-user': 'alice' }));
  t.equal(login.statusCode, 303, 'the login page sends a signed-in person on');
  t.equal(login.headers.location, '/library');
  const refused = await bare(ctx, ELSEWHERE, get('/library', { 'remote-user': 'alice' }));
  t.equal(refused.statusCode, 303);
  t.match(String(refused.headers.location), /^\/login/);
});

t.test('cross-site writes are still refused for a proxy-signed request', async (t) => {
  const ctx = await buildTestApp(t, ENV);
  const write = (headers: Record<string, string>) =>
    bare(ctx, PROXY, { method: 'POST', url: '/api/tags', payload: { name: 'from a page' }, headers: { 'remote-user': 'alice', ...headers } });
  const foreign = await write({ origin: 'http://evil.example' });
  t.equal(foreign.statusCode, 403);
  t.match(foreign.json().error, /cross-site/i);
  t.equal((await write({ 'sec-fetch-site': 'cross-site' })).statusCode, 403);
  t.equal((await ctx.get('/api/tags')).json().totalElements, 0, 'nothing was created');
  t.equal((await write({ origin: 'http://localhost' })).statusCode, 201, 'the same write from our own origin');
});

t.test('device tokens, OPDS and kosync keep working beside it', async (t) => {
  const ctx = await buildTestApp(t, ENV);
  const secret = await makeDeviceToken(ctx, ['read', 'progress']);
  t.equal((await bare(ctx, ELSEWHERE, get('/api/stories', { authorization: `Bearer ${secret}` }))).statusCode, 200, 'a device token from anywhere');
  t.equal((await bare(ctx, ELSEWHERE, get('/opds', { authorization: basicAuth(secret) }))).statusCode, 200, 'OPDS with a device token');
  t.equal((await bare(ctx, ELSEWHERE, get(`/opds/k/${secret}/stories`))).statusCode, 200, 'OPDS with the token in the path');
  t.equal((await bare(ctx, PROXY, get('/opds', { 'remote-user': 'alice' }))).statusCode, 200, 'OPDS through the proxy');
  const sync = await bare(ctx, ELSEWHERE, get('/kosync/users/auth', { accept: 'application/vnd.koreader.v1+json', 'x-auth-user': 'kobo', 'x-auth-key': md5(secret) }));
  t.equal(sync.statusCode, 200, 'kosync with its own credentials');
  const readOnly = await bare(ctx, ELSEWHERE, { method: 'POST', url: '/api/tags', payload: { name: 'x' }, headers: { authorization: `Bearer ${secret}`, 'remote-user': 'alice' } });
  t.equal(readOnly.statusCode, 403, 'the header does not lift a device token’s scopes when it does not come from the proxy');
});

t.test('without AUTH_PROXY_HEADER the header means nothing, even from a trusted proxy', async (t) => {
  const ctx = await buildTestApp(t, { TRUST_PROXY: PROXY });
  t.equal((await bare(ctx, PROXY, get('/api/stories', { 'remote-user': 'alice' }))).statusCode, 401);
});
