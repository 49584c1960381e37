/**
 * Settings › Devices (docs/decisions.md, "Device tokens"): a token is made from the page and its
 * secret shown once (never in a URL), the list shows names and prefixes only, a token works
 * against the API, and revoking from the page signs the device out.
 */
import t from 'tap';
import { buildWebTestApp, parseHtml } from '../helpers/web.js';
import { asDevice, basicAuth } from '../helpers/tokens.js';

const HOSTILE = '<img src=x onerror=alert(1)>';

function tokenForm(ctx: Awaited<ReturnType<typeof buildWebTestApp>>, body: string) {
  return ctx.app.inject({ method: 'POST', url: '/settings/tokens', payload: body, headers: { 'content-type': 'application/x-www-form-urlencoded' }, cookies: { token: ctx.token } });
}

t.test('a token made on the page is shown once, works, is listed without its secret, and is revoked from the page', async (t) => {
  const ctx = await buildWebTestApp(t);
  const made = await tokenForm(ctx, `name=${encodeURIComponent(HOSTILE)}&scopes=read&scopes=progress`);
  t.equal(made.statusCode, 201, 'the answer itself carries the secret: no redirect, so it is in no URL');
  t.equal(made.headers['cache-control'], 'no-store');
  const html = parseHtml(made.body);
  const secret = html.text('.token-secret__value');
  t.match(secret, /^sst_[A-Za-z0-9_-]{43}$/);
  t.notOk(made.body.includes(HOSTILE), 'the device name is escaped');
  t.match(html.text('#new-token'), /shown only this once/);
  t.match(html.text('.device-help'), /http:\/\/localhost(:\d+)?\/opds/);

  const api = await asDevice(ctx, basicAuth(secret), { method: 'GET', url: '/api/stories' });
  t.equal(api.statusCode, 200, 'the secret is a working device token');

  const later = parseHtml((await ctx.page('/settings')).body);
  t.notOk(later.one('.token-secret__value'), 'shown only once');
  t.notOk((await ctx.page('/settings')).body.includes(secret), 'the list never shows the secret');
  t.equal(later.all('.device-list li').length, 1);
  t.match(later.text('.device-list'), /read, progress/);
  t.match(later.text('.device-list'), /never|UTC/);

  const action = later.attr('.device-list form', 'action');
  t.match(action, /^\/settings\/tokens\/[0-9a-f-]{36}\/revoke$/);
  const revoked = await ctx.form(action!, {});
  t.equal(revoked.statusCode, 303);
  t.equal(revoked.headers.location, '/settings?revoked=1#devices');
  t.equal((await asDevice(ctx, basicAuth(secret), { method: 'GET', url: '/api/stories' })).statusCode, 401, 'the device is signed out');
  const again = await ctx.form(action!, {});
  t.equal(again.statusCode, 404);
  t.match(parseHtml(again.body).text('#device-errors'), /already revoked/);
});

t.test('a nameless or scopeless token is refused on the page and nothing is made', async (t) => {
  const ctx = await buildWebTestApp(t);
  const nameless = await tokenForm(ctx, 'name=%20%20&scopes=read');
  t.equal(nameless.statusCode, 400);
  t.match(parseHtml(nameless.body).text('#device-errors'), /Name the device/);
  const scopeless = await tokenForm(ctx, 'name=Kobo&scopes=admin');
  t.equal(scopeless.statusCode, 400);
  t.match(parseHtml(scopeless.body).text('#device-errors'), /at least one/);
  t.equal(ctx.app.deviceTokens.list().length, 0);
  const anonymous = await ctx.anonymous.form('/settings/tokens', { name: 'Kobo', scopes: 'read' });
  t.equal(anonymous.statusCode, 303, 'no login, no token: sent to log in');
  t.match(anonymous.headers.location, /^\/login/);
  t.equal(ctx.app.deviceTokens.list().length, 0);
});

t.test('a write token is made only when asked for', async (t) => {
  const ctx = await buildWebTestApp(t);
  await tokenForm(ctx, 'name=Laptop%20script&scopes=read&scopes=write');
  t.same(ctx.app.deviceTokens.list()[0]!.scopes, ['read', 'write']);
});
