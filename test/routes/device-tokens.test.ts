/**
 * Device tokens (docs/decisions.md, "Device tokens") through the real HTTP stack on a real
 * SQLite file: made once and shown once, accepted as Bearer and as the Basic password, held to
 * their scopes, revoked one by one, untouched by a password change, and throttled when wrong.
 */
import t from 'tap';
import { buildTestApp, TEST_PASSWORD } from '../helpers/app.js';
import { createStory, MISSING_ID } from '../helpers/factories.js';
import { assertMatches } from '../helpers/schema.js';
import { asDevice, basicAuth, makeDeviceToken } from '../helpers/tokens.js';
import { CreatedTokenDto, TokenList, type TokenDto } from '../../src/schemas/tokens.js';
import { MAX_TOKENS } from '../../src/tokens/service.js';

t.test('a token is shown once, stored only as hashes, and listed without its secret', async (t) => {
  const ctx = await buildTestApp(t);
  const res = await ctx.post('/api/tokens', { name: '  Kobo Clara  ' });
  t.equal(res.statusCode, 201);
  const created = res.json() as CreatedTokenDto;
  assertMatches(t, CreatedTokenDto, created);
  t.equal(created.name, 'Kobo Clara', 'the name is trimmed');
  t.same(created.scopes, ['read', 'progress'], 'read and progress by default');
  t.match(created.token, /^sst_[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
  t.ok(created.token.startsWith(created.prefix));

  const stored = ctx.app.db.$client.prepare('SELECT * FROM api_tokens').all() as Record<string, unknown>[];
  t.equal(stored.length, 1);
  t.notOk(JSON.stringify(stored).includes(created.token.slice(4)), 'the secret itself is nowhere in the table');

  const list = await ctx.get('/api/tokens');
  t.equal(list.statusCode, 200);
  assertMatches(t, TokenList, list.json());
  const [only] = list.json() as TokenDto[];
  t.same(Object.keys(only!).sort(), ['createdAt', 'id', 'lastUsedAt', 'name', 'prefix', 'scopes']);
  t.equal(only!.lastUsedAt, null, 'never used yet');
});

t.test('a token works as Bearer, as the Basic password, and as the Basic user name with no password', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const secret = await makeDeviceToken(ctx);
  for (const authorization of [`Bearer ${secret}`, basicAuth(secret), basicAuth(secret, 'anything at all'), `Basic ${Buffer.from(`${secret}:`).toString('base64')}`]) {
    const res = await asDevice(ctx, authorization, { method: 'GET', url: `/api/stories/${story.id}` });
    t.equal(res.statusCode, 200, authorization.split(' ')[0]!);
  }
  const [listed] = (await ctx.get('/api/tokens')).json() as TokenDto[];
  t.type(listed!.lastUsedAt, 'string', 'lastUsedAt is stamped on use');
});

t.test('scopes: read reads, progress saves positions, only write edits; tokens and the password need a login', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const reader = `Bearer ${await makeDeviceToken(ctx)}`;
  const readOnly = `Bearer ${await makeDeviceToken(ctx, ['read'])}`;
  const writer = `Bearer ${await makeDeviceToken(ctx, ['write', 'read'])}`;
  const progress = { method: 'PUT' as const, url: `/api/stories/${story.id}/progress`, payload: { progress: 0.5, position: '3' } };

  t.equal((await asDevice(ctx, reader, progress)).statusCode, 200, 'the default token syncs progress');
  const refused = await asDevice(ctx, readOnly, progress);
  t.equal(refused.statusCode, 403);
  t.match(refused.json(), { error: /lacks the "progress" scope/, details: { scope: 'needs progress' } });

  const del = { method: 'DELETE' as const, url: `/api/stories/${story.id}` };
  t.equal((await asDevice(ctx, reader, del)).statusCode, 403, 'reading tokens cannot delete');
  t.equal((await ctx.get(`/api/stories/${story.id}`)).statusCode, 200, 'and nothing was deleted');
  t.equal((await asDevice(ctx, reader, { method: 'POST', url: '/api/stories', payload: { title: 'x' } })).statusCode, 403);
  t.equal((await asDevice(ctx, readOnly, { method: 'GET', url: '/api/stories' })).statusCode, 200);

  for (const request of [
    { method: 'POST' as const, url: '/api/tokens', payload: { name: 'mint', scopes: ['write'] } },
    { method: 'GET' as const, url: '/api/tokens' },
    { method: 'POST' as const, url: '/api/auth/password', payload: { currentPassword: TEST_PASSWORD, newPassword: 'another long password 42' } },
  ]) {
    const res = await asDevice(ctx, writer, request);
    t.equal(res.statusCode, 403, `${request.method} ${request.url} needs a login`);
  }
  t.equal(((await ctx.get('/api/tokens')).json() as TokenDto[]).length, 3, 'no token was minted');
  t.equal((await asDevice(ctx, writer, del)).statusCode, 200, 'a write token may delete');
});

t.test('revoking stops a token at its next request; the others and the password change leave it alone', async (t) => {
  const ctx = await buildTestApp(t);
  const kept = `Bearer ${await makeDeviceToken(ctx, undefined, 'kept')}`;
  const gone = `Bearer ${await makeDeviceToken(ctx, undefined, 'gone')}`;
  const list = (await ctx.get('/api/tokens')).json() as TokenDto[];
  const goneId = list.find((token) => token.name === 'gone')!.id;

  const change = await ctx.post('/api/auth/password', { currentPassword: TEST_PASSWORD, newPassword: 'a brand new password 42' });
  t.equal(change.statusCode, 200);
  const fresh = (change.json() as { token: string }).token;
  t.equal((await asDevice(ctx, kept, { method: 'GET', url: '/api/stories' })).statusCode, 200, 'a password change does not revoke tokens');

  const revoke = await ctx.app.inject({ method: 'DELETE', url: `/api/tokens/${goneId}`, cookies: { token: fresh } });
  t.equal(revoke.statusCode, 200);
  t.equal((await asDevice(ctx, gone, { method: 'GET', url: '/api/stories' })).statusCode, 401);
  t.equal((await asDevice(ctx, kept, { method: 'GET', url: '/api/stories' })).statusCode, 200);
  const again = await ctx.app.inject({ method: 'DELETE', url: `/api/tokens/${goneId}`, cookies: { token: fresh } });
  t.equal(again.statusCode, 404);
  t.equal((await ctx.app.inject({ method: 'DELETE', url: `/api/tokens/${MISSING_ID}`, cookies: { token: fresh } })).statusCode, 404);
});

t.test('bad bodies are one 400 naming every field, and change nothing', async (t) => {
  const ctx = await buildTestApp(t);
  const bad = await ctx.post('/api/tokens', { name: '   ', scopes: ['read', 'admin'] });
  t.equal(bad.statusCode, 400);
  t.match(bad.json(), { details: { name: /blank/, scopes: /allowed values/ } });
  t.equal((await ctx.post('/api/tokens', { name: 'x', scopes: [] })).statusCode, 400, 'at least one scope');
  t.equal((await ctx.post('/api/tokens', { name: 'x', scopes: ['read', 'read'] })).statusCode, 400, 'no repeats');
  t.equal((await ctx.post('/api/tokens', { name: 'x'.repeat(101) })).statusCode, 400);
  t.same((await ctx.get('/api/tokens')).json(), []);
});

t.test(`at most ${MAX_TOKENS} tokens`, async (t) => {
  const ctx = await buildTestApp(t);
  for (let i = 0; i < MAX_TOKENS; i++) ctx.app.deviceTokens.create(`reader ${i}`);
  const res = await ctx.post('/api/tokens', { name: 'one too many' });
  t.equal(res.statusCode, 409);
  t.equal(((await ctx.get('/api/tokens')).json() as TokenDto[]).length, MAX_TOKENS);
});

t.test('wrong tokens are 401, count as failed logins, and lock the address out', async (t) => {
  const ctx = await buildTestApp(t);
  const secret = await makeDeviceToken(ctx);
  const wrong = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
  for (let i = 0; i < 10; i++) {
    const res = await asDevice(ctx, basicAuth(wrong), { method: 'GET', url: '/api/stories' });
    t.equal(res.statusCode, 401);
  }
  const locked = await asDevice(ctx, basicAuth(secret), { method: 'GET', url: '/api/stories' });
  t.equal(locked.statusCode, 429, 'even the right token waits out the lockout');
  t.equal((await asDevice(ctx, 'Basic !!!', { method: 'GET', url: '/api/stories' })).statusCode, 401, 'a malformed header is a 401');
});
