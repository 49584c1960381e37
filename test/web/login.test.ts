import t from 'tap';
import { TEST_PASSWORD } from '../helpers/app.js';
import { buildWebTestApp, parseHtml } from '../helpers/web.js';

t.test('a logged-out GET is sent to /login with the page it asked for', async (t) => {
  const ctx = await buildWebTestApp(t);
  const home = await ctx.anonymous.page('/');
  t.equal(home.statusCode, 303);
  t.equal(home.headers.location, '/login?next=%2F');
  const deep = await ctx.anonymous.page('/library?sort=title&q=a%20b');
  t.equal(deep.statusCode, 303);
  t.equal(deep.headers.location, `/login?next=${encodeURIComponent('/library?sort=title&q=a%20b')}`);
  const badToken = await ctx.anonymous.page('/', { token: 'not.a.jwt' });
  t.equal(badToken.statusCode, 303, 'a bad token is no token');
  const loggedIn = await ctx.page('/');
  t.equal(loggedIn.statusCode, 200);
  t.equal(parseHtml(loggedIn.body).text('h1'), 'Welcome');
});

t.test('the login form sets the API token cookie and goes to next', async (t) => {
  const ctx = await buildWebTestApp(t);
  const form = await ctx.anonymous.page('/login?next=%2Flibrary%3Fsort%3Dtitle');
  t.equal(form.statusCode, 200);
  const html = parseHtml(form.body);
  t.equal(html.attr('form[action="/login"] input[name="next"]', 'value'), '/library?sort=title');
  t.equal(html.attr('label[for="login-password"]', 'for'), 'login-password', 'the field has a label');
  t.equal(html.all('h1').length, 1);

  const res = await ctx.anonymous.form('/login', { password: TEST_PASSWORD, next: '/library?sort=title' });
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, '/library?sort=title');
  const cookie = res.cookies.find((c) => c.name === 'token');
  t.ok(cookie?.value, 'the token cookie is set');
  t.equal(cookie?.httpOnly, true);
  t.equal(cookie?.sameSite, 'Lax');
  t.equal(cookie?.path, '/');
  const api = await ctx.app.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token: cookie!.value } });
  t.equal(api.statusCode, 200, 'the cookie is the API\'s own token');

  const already = await ctx.app.inject({ method: 'GET', url: '/login?next=%2Ftags', cookies: { token: cookie!.value } });
  t.equal(already.statusCode, 303, 'a logged-in reader skips the form');
  t.equal(already.headers.location, '/tags');
});

t.test('a next that leaves the site is replaced by /', async (t) => {
  const ctx = await buildWebTestApp(t);
  for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)', 'library', '/a\nb', `/${'x'.repeat(3000)}`]) {
    const res = await ctx.anonymous.form('/login', { password: TEST_PASSWORD, next });
    t.equal(res.statusCode, 303, JSON.stringify(next.slice(0, 30)));
    t.equal(res.headers.location, '/', `${JSON.stringify(next.slice(0, 30))} is ignored`);
    const page = await ctx.anonymous.page(`/login?next=${encodeURIComponent(next)}`);
    t.equal(parseHtml(page.body).attr('input[name="next"]', 'value'), '/', 'and never rendered into the form');
  }
});

t.test('a wrong or missing password re-renders the form with the message', async (t) => {
  const ctx = await buildWebTestApp(t);
  const res = await ctx.anonymous.form('/login', { password: 'wrong', next: '/tags' });
  t.equal(res.statusCode, 401);
  t.match(res.headers['content-type'], /text\/html/);
  t.notOk(res.cookies.some((c) => c.name === 'token'), 'no cookie');
  const html = parseHtml(res.body);
  t.equal(html.text('[role="alert"]'), 'Wrong password.', 'in the summary');
  t.equal(html.text('#login-password-error'), 'Wrong password.', 'beside the field');
  t.equal(html.attr('#login-password', 'aria-describedby'), 'login-password-error');
  t.equal(html.attr('#login-password', 'aria-invalid'), 'true');
  t.equal(html.attr('input[name="next"]', 'value'), '/tags', 'next is kept');

  const empty = await ctx.anonymous.form('/login', { next: '/' });
  t.equal(empty.statusCode, 400, 'no password field is a 400 page, not a 500');
  t.equal(parseHtml(empty.body).text('[role="alert"]'), 'Enter the password.');
});

t.test('a throttled address is told when to try again, as a sentence', async (t) => {
  const ctx = await buildWebTestApp(t);
  let res = await ctx.anonymous.form('/login', { password: 'wrong' });
  for (let attempt = 0; attempt < 50 && res.statusCode === 401; attempt += 1) res = await ctx.anonymous.form('/login', { password: 'wrong' });
  t.equal(res.statusCode, 429, 'locked out after repeated failures');
  t.match(res.headers['retry-after'], /^\d+$/);
  t.match(parseHtml(res.body).text('[role="alert"]'), /^Too many failed logins; try again in \d+ minutes?\.$/);
  const right = await ctx.anonymous.form('/login', { password: TEST_PASSWORD });
  t.equal(right.statusCode, 429, 'even the right password waits');
});

t.test('logout revokes the token, clears the cookie and goes to /login', async (t) => {
  const ctx = await buildWebTestApp(t);
  const res = await ctx.form('/logout', {});
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, '/login');
  const cleared = res.cookies.find((c) => c.name === 'token');
  t.equal(cleared?.value, '', 'the cookie is cleared');
  const after = await ctx.page('/');
  t.equal(after.statusCode, 303, 'the old token no longer opens pages');
  const api = await ctx.get('/api/auth/verify');
  t.equal(api.statusCode, 401, 'nor the API');
});

t.test('a cross-site form post to /login or /logout is refused', async (t) => {
  const ctx = await buildWebTestApp(t);
  const foreign: Array<Record<string, string>> = [{ origin: 'http://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'http://localhost:9999' }];
  for (const headers of foreign) {
    const res = await ctx.anonymous.form('/login', { password: TEST_PASSWORD }, headers);
    t.equal(res.statusCode, 403, JSON.stringify(headers));
    t.match(res.headers['content-type'], /text\/html/, 'as an HTML page');
    t.notOk(res.cookies.some((c) => c.name === 'token'), 'no cookie');
  }
  const logout = await ctx.app.inject({ method: 'POST', url: '/logout', headers: { origin: 'http://evil.example' }, cookies: { token: ctx.token } });
  t.equal(logout.statusCode, 403);
  t.equal((await ctx.get('/api/auth/verify')).statusCode, 200, 'the token was not revoked');
  const same = await ctx.anonymous.form('/login', { password: TEST_PASSWORD }, { origin: 'http://localhost:80', 'sec-fetch-site': 'same-origin' });
  t.equal(same.statusCode, 303, 'the same origin logs in');
});
