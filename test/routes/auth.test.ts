import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { storePassword } from '../../src/auth/secrets.js';
import { loadConfig } from '../../src/config.js';
import { buildTestApp, TEST_PASSWORD, tempDataDir } from '../helpers/app.js';

function tokenCookie(setCookie: string | string[] | undefined): string {
  const header = Array.isArray(setCookie) ? setCookie.join('\n') : (setCookie ?? '');
  return header;
}

t.test('login sets an HttpOnly 24-hour cookie and returns the token', async (t) => {
  const { app } = await buildTestApp(t);
  const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: TEST_PASSWORD } });
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.type(body.message, 'string');
  t.match(body.token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  const cookie = tokenCookie(res.headers['set-cookie']);
  t.match(cookie, new RegExp(`^token=${body.token.replace(/[.]/g, '\\.')};`));
  t.match(cookie, /HttpOnly/);
  t.match(cookie, /Max-Age=86400/);
  t.match(cookie, /Path=\//);
  t.match(cookie, /SameSite=Lax/);
  t.notMatch(cookie, /Secure/, 'plain HTTP gets no Secure flag with COOKIE_SECURE=auto');

  const [header, payload] = body.token.split('.');
  t.same(JSON.parse(Buffer.from(header, 'base64url').toString()).alg, 'HS256');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  t.equal(claims.exp - claims.iat, 86400, 'the token lasts 24 hours');
  t.type(claims.jti, 'string');
});

t.test('login failures', async (t) => {
  const { app } = await buildTestApp(t);
  const wrong = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: 'nope' } });
  t.equal(wrong.statusCode, 401);
  t.same(wrong.json(), { error: 'Invalid password' });
  t.notOk(wrong.headers['set-cookie']);

  const missing = await app.inject({ method: 'POST', url: '/api/auth/login', payload: {} });
  t.equal(missing.statusCode, 400);
  t.ok(missing.json().details.password);

  const notJson = await app.inject({ method: 'POST', url: '/api/auth/login', payload: 'password=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(notJson.statusCode, 415);
});

t.test('COOKIE_SECURE=true marks the cookie Secure', async (t) => {
  const { app } = await buildTestApp(t, { COOKIE_SECURE: 'true' });
  const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: TEST_PASSWORD } });
  t.match(tokenCookie(res.headers['set-cookie']), /Secure/);
});

t.test('verify accepts the cookie and a Bearer header, and refuses anything else', async (t) => {
  const { app, token } = await buildTestApp(t);
  t.equal((await app.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token } })).statusCode, 200);
  const bearer = await app.inject({ method: 'GET', url: '/api/auth/verify', headers: { authorization: `Bearer ${token}` } });
  t.equal(bearer.statusCode, 200);
  t.type(bearer.json().message, 'string');

  const none = await app.inject({ method: 'GET', url: '/api/auth/verify' });
  t.equal(none.statusCode, 401);
  t.type(none.json().error, 'string');
  const tampered = `${token.slice(0, -2)}xx`;
  t.equal((await app.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token: tampered } })).statusCode, 401);
  t.equal((await app.inject({ method: 'GET', url: '/api/auth/verify', headers: { authorization: 'Basic abc' } })).statusCode, 401);
  const unsigned = app.jwt.sign({ jti: 'x' }, { expiresIn: -10 });
  t.equal((await app.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token: unsigned } })).statusCode, 401, 'expired');
});

t.test('logout clears the cookie and revokes that token only, even across a restart', async (t) => {
  const dataDir = tempDataDir(t);
  const first = await buildTestApp(t, { DATA_DIR: dataDir });
  const second = await first.app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: TEST_PASSWORD } });
  const otherToken = second.json().token as string;

  const out = await first.app.inject({ method: 'POST', url: '/api/auth/logout', cookies: { token: first.token } });
  t.equal(out.statusCode, 200);
  t.type(out.json().message, 'string');
  const cleared = tokenCookie(out.headers['set-cookie']);
  t.match(cleared, /^token=;/);
  t.match(cleared, /Max-Age=0/);

  t.equal((await first.app.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token: first.token } })).statusCode, 401);
  t.equal((await first.app.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token: otherToken } })).statusCode, 200);
  await first.app.close();

  const restarted = await buildApp(loadConfig({ DATA_DIR: dataDir, APP_PASSWORD: TEST_PASSWORD }), { logger: false });
  t.teardown(() => restarted.close());
  t.equal((await restarted.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token: first.token } })).statusCode, 401, 'still revoked');
  t.equal((await restarted.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token: otherToken } })).statusCode, 200, 'tokens survive restarts');

  const anonymous = await restarted.inject({ method: 'POST', url: '/api/auth/logout' });
  t.equal(anonymous.statusCode, 200, 'logout needs no valid token');
  const garbage = await restarted.inject({ method: 'POST', url: '/api/auth/logout', cookies: { token: 'garbage' } });
  t.equal(garbage.statusCode, 200);
});

t.test('ten failed logins lock an address out for the window, right password included', async (t) => {
  const { app } = await buildTestApp(t);
  const attempt = (password: string, remoteAddress = '10.0.0.1') =>
    app.inject({ method: 'POST', url: '/api/auth/login', payload: { password }, remoteAddress });
  for (let i = 0; i < 10; i += 1) t.equal((await attempt('wrong')).statusCode, 401);
  const locked = await attempt(TEST_PASSWORD);
  t.equal(locked.statusCode, 429);
  t.type(locked.json().error, 'string');
  const retryAfter = Number(locked.headers['retry-after']);
  t.ok(retryAfter > 0 && retryAfter <= 900, `Retry-After ${retryAfter} within 15 minutes`);
  t.equal((await attempt(TEST_PASSWORD, '10.0.0.2')).statusCode, 200, 'other addresses are unaffected');
  const badRequests = await app.inject({ method: 'POST', url: '/api/auth/login', payload: {}, remoteAddress: '10.0.0.3' });
  t.equal(badRequests.statusCode, 400, 'a 400 is not a failed login');
});

t.test('first start without APP_PASSWORD generates a password, stores only its hash, and keeps secrets private', async (t) => {
  const dataDir = tempDataDir(t);
  const lines: string[] = [];
  const stream = { write: (line: string) => lines.push(line) };
  const app = await buildApp(loadConfig({ DATA_DIR: dataDir }), { logger: { level: 'info', stream } });
  t.teardown(() => app.close());
  const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.generatedPassword !== undefined);
  t.ok(logged, 'the generated password is logged once');
  const password = logged.generatedPassword as string;
  t.ok(password.length >= 16);

  const secrets = path.join(dataDir, 'secrets');
  const stored = fs.readFileSync(path.join(secrets, 'password.json'), 'utf8');
  t.notMatch(stored, password, 'only the hash is stored');
  t.equal(fs.statSync(path.join(secrets, 'password.json')).mode & 0o777, 0o600);
  t.equal(fs.statSync(path.join(secrets, 'jwt-secret')).mode & 0o777, 0o600);

  const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password } });
  t.equal(login.statusCode, 200);
  await app.close();

  const again: string[] = [];
  const second = await buildApp(loadConfig({ DATA_DIR: dataDir }), { logger: { level: 'info', stream: { write: (line: string) => again.push(line) } } });
  t.teardown(() => second.close());
  t.notOk(again.some((line) => line.includes('generatedPassword')), 'not generated again');
  t.equal((await second.inject({ method: 'POST', url: '/api/auth/login', payload: { password } })).statusCode, 200);
});

t.test('a password change revokes every earlier token', async (t) => {
  const dataDir = tempDataDir(t);
  await storePassword(dataDir, 'first password');
  const app = await buildApp(loadConfig({ DATA_DIR: dataDir }), { logger: false });
  t.teardown(() => app.close());
  const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: 'first password' } });
  const oldToken = login.json().token as string;
  // Tokens carry whole seconds: make sure the change is strictly later than the old token.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await storePassword(dataDir, 'second password');
  await new Promise((resolve) => setTimeout(resolve, 1100));
  t.equal((await app.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token: oldToken } })).statusCode, 401);
  t.equal((await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: 'first password' } })).statusCode, 401);
  const fresh = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: 'second password' } });
  t.equal(fresh.statusCode, 200);
  t.equal((await app.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token: fresh.json().token } })).statusCode, 200);
});
