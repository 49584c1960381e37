import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { ErrorBody } from '../../src/schemas/common.js';
import { buildTestApp, TEST_PASSWORD } from '../helpers/app.js';

function login(ctx: { app: Awaited<ReturnType<typeof buildTestApp>>['app'] }, payload: unknown, remoteAddress: string) {
  return ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: payload as Record<string, unknown>, remoteAddress });
}

function statusCounts(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

t.test('a locked-out address gets 429 for every login, a body that fails validation included', async (t) => {
  const ctx = await buildTestApp(t);
  for (let i = 0; i < 10; i += 1) t.equal((await login(ctx, { password: 'wrong' }, '10.1.0.1')).statusCode, 401);
  const bodies: [string, unknown][] = [
    ['no password', {}],
    ['an empty password', { password: '' }],
    ['a number', { password: 5 }],
    ['the right password', { password: TEST_PASSWORD }],
  ];
  for (const [label, payload] of bodies) {
    const res = await login(ctx, payload, '10.1.0.1');
    t.equal(res.statusCode, 429, label);
    t.ok(Value.Check(ErrorBody, res.json()), `${label}: the error shape`);
    t.ok(Number(res.headers['retry-after']) > 0, `${label}: Retry-After`);
  }
  const malformed = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: '{"password":', headers: { 'content-type': 'application/json' }, remoteAddress: '10.1.0.1' });
  t.equal(malformed.statusCode, 429, 'malformed JSON');
  t.equal((await login(ctx, {}, '10.1.0.2')).statusCode, 400, 'another address still gets its 400');
});

t.test('concurrent wrong passwords from one address: 10 are checked, the rest are 429', async (t) => {
  const ctx = await buildTestApp(t);
  const responses = await Promise.all(Array.from({ length: 24 }, () => login(ctx, { password: 'wrong' }, '10.2.0.1')));
  t.same(statusCounts(responses.map((res) => res.statusCode)), { 401: 10, 429: 14 });
  t.equal((await login(ctx, { password: TEST_PASSWORD }, '10.2.0.1')).statusCode, 429, 'and the address is locked');
});

t.test('a right password in flight does not count as a failure once it succeeds', async (t) => {
  const ctx = await buildTestApp(t);
  const responses = await Promise.all([
    ...Array.from({ length: 9 }, () => login(ctx, { password: 'wrong' }, '10.3.0.1')),
    login(ctx, { password: TEST_PASSWORD }, '10.3.0.1'),
  ]);
  t.same(statusCounts(responses.map((res) => res.statusCode)), { 200: 1, 401: 9 });
  t.equal((await login(ctx, { password: TEST_PASSWORD }, '10.3.0.1')).statusCode, 200, '9 failures do not lock');
});

t.test('past the password checks a server can queue, a login is 503 and counts as no attempt', async (t) => {
  const ctx = await buildTestApp(t);
  // Distinct addresses, so the per-address throttle stays out of the way.
  const responses = await Promise.all(Array.from({ length: 80 }, (_, i) => login(ctx, { password: 'wrong' }, `10.4.0.${i}`)));
  const counts = statusCounts(responses.map((res) => res.statusCode));
  t.ok((counts[503] ?? 0) > 0, `some were turned away: ${JSON.stringify(counts)}`);
  t.equal((counts[401] ?? 0) + (counts[503] ?? 0), 80, 'the others were checked');
  const busy = responses.find((res) => res.statusCode === 503);
  t.ok(busy !== undefined && Value.Check(ErrorBody, busy.json()), 'the error shape');
  // A turned-away attempt is forgotten: ten real failures are still needed to lock its address.
  const turnedAway = responses.findIndex((res) => res.statusCode === 503);
  for (let i = 0; i < 9; i += 1) t.equal((await login(ctx, { password: 'wrong' }, `10.4.0.${turnedAway}`)).statusCode, 401);
  t.equal((await login(ctx, { password: TEST_PASSWORD }, `10.4.0.${turnedAway}`)).statusCode, 200);
});

t.test('login and logout take small bodies only: 413 in the usual shape', async (t) => {
  const ctx = await buildTestApp(t);
  const big = { password: 'x'.repeat(9 * 1024) };
  const loginRes = await login(ctx, big, '10.5.0.1');
  t.equal(loginRes.statusCode, 413);
  t.same(loginRes.json(), { error: 'The request body is too large' });
  const logout = await ctx.app.inject({ method: 'POST', url: '/api/auth/logout', payload: big, cookies: { token: ctx.token } });
  t.equal(logout.statusCode, 413);
  t.ok(Value.Check(ErrorBody, logout.json()));
  t.equal((await ctx.get('/api/auth/verify')).statusCode, 200, 'the refused logout revoked nothing');

  // The longest password the schema allows still fits, even with every character escaped.
  const longest = 'é'.repeat(1024);
  const escaped = JSON.stringify({ password: longest }).replace(/é/g, '\\u00e9');
  const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: escaped, headers: { 'content-type': 'application/json' }, remoteAddress: '10.5.0.2' });
  t.equal(res.statusCode, 401, 'checked, not refused for its size');
});
