import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { TEST_PASSWORD } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import { buildWebTestApp, holdReindex, parseHtml } from '../helpers/web.js';
import { rebuildProgress, rebuildSearchIndex } from '../../src/search/embedded/rebuild.js';

const NEW_PASSWORD = 'a much newer password';
const HOSTILE = '<script>alert(1)</script>';

t.test('the settings page has one h1, every section and a label on every control', async (t) => {
  const ctx = await buildWebTestApp(t);
  const res = await ctx.page('/settings');
  t.equal(res.statusCode, 200);
  const html = parseHtml(res.body);
  t.equal(html.all('h1').length, 1);
  t.equal(html.text('h1'), 'Settings');
  t.same(html.texts('h2'), ['Password', 'Devices', 'Sending to an e-reader', 'Backups', 'Library archive', 'Search index', 'Search engine', 'Updates from the sources', 'FanFicFare']);
  for (const id of ['settings-current-password', 'settings-new-password', 'settings-confirm-password']) {
    t.ok(html.one(`label[for="${id}"]`), `${id} has a label`);
    t.ok(html.one(`input#${id}`));
  }
  t.ok(html.one('form[action="/settings/backup"][method="post"] button'));
  t.ok(html.one('form[action="/settings/reindex"][method="post"] button'));
  t.ok(html.one('#archive a[href="/api/export"][download][hx-boost="false"]'), 'the archive downloads, not boosted into the page');
  t.equal(html.text('.backup-list'), '', 'no backups yet');
  t.match(html.text('#backups'), /No backups yet/);
  t.equal(html.attr('a[aria-current="page"]', 'href'), '/settings', 'the navigation marks Settings');
  const anonymous = await ctx.anonymous.page('/settings');
  t.equal(anonymous.statusCode, 303);
  t.equal(anonymous.headers.location, '/login?next=%2Fsettings');
});

t.test('changing the password keeps this browser logged in and logs out every older token', async (t) => {
  const ctx = await buildWebTestApp(t);
  const res = await ctx.form('/settings/password', { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD });
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, '/settings?changed=1');
  const cookie = res.cookies.find((c) => c.name === 'token');
  t.ok(cookie?.value, 'a new token cookie is set');
  t.equal(cookie?.httpOnly, true);

  const after = await ctx.app.inject({ method: 'GET', url: '/settings?changed=1', cookies: { token: cookie!.value } });
  t.equal(after.statusCode, 200, 'the new cookie opens the page');
  t.match(parseHtml(after.body).text('[role="status"]'), /Password changed/);
  const api = await ctx.app.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token: cookie!.value } });
  t.equal(api.statusCode, 200, 'the new cookie is an API token');
  const old = await ctx.app.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token: ctx.token } });
  t.equal(old.statusCode, 401, 'the token issued before the change is dead');

  const oldLogin = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: TEST_PASSWORD } });
  t.equal(oldLogin.statusCode, 401, 'the old password no longer logs in');
  const newLogin = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: NEW_PASSWORD } });
  t.equal(newLogin.statusCode, 200, 'the new one does');
  const stored = JSON.parse(fs.readFileSync(path.join(ctx.dataDir, 'secrets', 'password.json'), 'utf8')) as { hash: string };
  t.notOk(JSON.stringify(stored).includes(NEW_PASSWORD), 'only the hash is stored');
});

t.test('a wrong current password is 401 beside its field and counts toward the lockout', async (t) => {
  const ctx = await buildWebTestApp(t);
  const res = await ctx.form('/settings/password', { currentPassword: 'not it at all', newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD });
  t.equal(res.statusCode, 401);
  t.match(res.headers['content-type'], /text\/html/);
  const html = parseHtml(res.body);
  t.equal(html.text('#settings-current-password-error'), 'Wrong current password.');
  t.equal(html.attr('#settings-current-password', 'aria-invalid'), 'true');
  t.equal(html.attr('#settings-current-password', 'aria-describedby'), 'settings-current-password-error');
  t.match(html.text('[role="alert"]'), /Wrong current password/);
  t.equal(html.attr('#settings-new-password', 'value'), undefined, 'no password is echoed back');
  t.equal(res.cookies.find((c) => c.name === 'token'), undefined, 'no new cookie');

  // Nine more make ten failures from this address: the eleventh attempt is locked out, here and at login.
  for (let i = 0; i < 9; i += 1) {
    const again = await ctx.form('/settings/password', { currentPassword: `wrong ${i}`, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD });
    t.equal(again.statusCode, 401);
  }
  const locked = await ctx.form('/settings/password', { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD });
  t.equal(locked.statusCode, 429, 'locked out even with the right password');
  t.ok(locked.headers['retry-after']);
  t.match(parseHtml(locked.body).text('[role="alert"]'), /Too many failed logins/);
  const login = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: TEST_PASSWORD } });
  t.equal(login.statusCode, 429, 'the login throttle counted them');
  const still = await ctx.page('/settings');
  t.equal(still.statusCode, 200, 'the password was not changed: the old token still works');
});

t.test('mismatched, short, missing and too long passwords are 400 with field messages', async (t) => {
  const ctx = await buildWebTestApp(t);
  const cases: Array<[Record<string, string>, Record<string, RegExp>]> = [
    [{ currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD, confirmPassword: 'something else' }, { 'settings-confirm-password': /differ/ }],
    [{ currentPassword: TEST_PASSWORD, newPassword: 'short', confirmPassword: 'short' }, { 'settings-new-password': /at least 8 characters/ }],
    [{ currentPassword: '', newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }, { 'settings-current-password': /Enter your current password/ }],
    [{ currentPassword: TEST_PASSWORD, newPassword: 'x'.repeat(1025), confirmPassword: 'x'.repeat(1025) }, { 'settings-new-password': /at most 1024/ }],
    [{}, { 'settings-current-password': /Enter/, 'settings-new-password': /at least/ }],
  ];
  for (const [fields, expected] of cases) {
    const res = await ctx.form('/settings/password', fields);
    t.equal(res.statusCode, 400, JSON.stringify(Object.keys(expected)));
    const html = parseHtml(res.body);
    for (const [id, message] of Object.entries(expected)) {
      t.match(html.text(`#${id}-error`), message);
      t.equal(html.attr(`#${id}`, 'aria-invalid'), 'true');
    }
    t.ok(html.one('[role="alert"]'), 'with a summary');
  }
  const login = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: TEST_PASSWORD } });
  t.equal(login.statusCode, 200, 'form errors change nothing and count no failed login');
});

t.test('with APP_PASSWORD set the form is replaced by a note and a change is refused', async (t) => {
  const ctx = await buildWebTestApp(t, { APP_PASSWORD: TEST_PASSWORD });
  const page = parseHtml((await ctx.page('/settings')).body);
  t.notOk(page.one('form[action="/settings/password"]'));
  t.match(page.text('section'), /APP_PASSWORD/);
  const res = await ctx.form('/settings/password', { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD });
  t.equal(res.statusCode, 409);
  const api = await ctx.post('/api/auth/password', { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD });
  t.equal(api.statusCode, 409);
  t.match(api.json().error, /APP_PASSWORD/);
  t.equal((await ctx.get('/api/auth/verify')).statusCode, 200, 'nothing changed');
});

t.test('POST /api/auth/password changes the password through the same service', async (t) => {
  const ctx = await buildWebTestApp(t);
  const short = await ctx.post('/api/auth/password', { currentPassword: TEST_PASSWORD, newPassword: 'short' });
  t.equal(short.statusCode, 400);
  t.ok(short.json().details.newPassword);
  const wrong = await ctx.post('/api/auth/password', { currentPassword: 'nope', newPassword: NEW_PASSWORD });
  t.equal(wrong.statusCode, 401);
  const res = await ctx.post('/api/auth/password', { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD });
  t.equal(res.statusCode, 200);
  const { token } = res.json() as { token: string };
  t.ok(res.cookies.find((c) => c.name === 'token' && c.value === token), 'the cookie carries the new token');
  t.equal((await ctx.get('/api/auth/verify')).statusCode, 401, 'the old token is dead');
  const fresh = await ctx.app.inject({ method: 'GET', url: '/api/auth/verify', headers: { authorization: `Bearer ${token}` } });
  t.equal(fresh.statusCode, 200);
});

t.test('cross-site posts to the settings forms are refused', async (t) => {
  const ctx = await buildWebTestApp(t);
  for (const url of ['/settings/password', '/settings/backup', '/settings/reindex']) {
    for (const headers of [{ origin: 'http://evil.example' }, { 'sec-fetch-site': 'cross-site' }]) {
      const res = await ctx.app.inject({
        method: 'POST',
        url,
        payload: new URLSearchParams({ currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        cookies: { token: ctx.token },
      });
      t.equal(res.statusCode, 403, `${url} ${JSON.stringify(headers)}`);
    }
  }
  t.equal((await ctx.get('/api/auth/verify')).statusCode, 200, 'the password was not changed');
  t.notOk(fs.existsSync(path.join(ctx.dataDir, 'backups')), 'no backup was written');
});

t.test('back up now writes a snapshot and lists it, newest first', async (t) => {
  const ctx = await buildWebTestApp(t);
  await createStory(ctx, { title: 'Kept safe' });
  const first = await ctx.form('/settings/backup', {});
  t.equal(first.statusCode, 303);
  const location = first.headers.location as string;
  const name = new URL(location, 'http://x').searchParams.get('backup')!;
  t.match(name, /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z/);
  t.ok(fs.existsSync(path.join(ctx.dataDir, 'backups', name, 'library.db')), 'the snapshot is on disk');
  const second = await ctx.form('/settings/backup', {});
  const secondName = new URL(second.headers.location as string, 'http://x').searchParams.get('backup')!;
  t.not(secondName, name, 'a second backup is a second snapshot');
  fs.mkdirSync(path.join(ctx.dataDir, 'backups', '.partial-2099-01-01T00-00-00.000Z'));

  const page = parseHtml((await ctx.page(location)).body);
  t.equal(page.text('[role="status"]'), `Backup ${name} written.`);
  const names = page.texts('.backup-list__name');
  t.same(names, [secondName, name], 'both, newest first, no unfinished one');
  t.match(page.text('.backup-list li'), /\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC · [\d.]+ (KB|MB)/);

  const forged = parseHtml((await ctx.page(`/settings?backup=${encodeURIComponent(HOSTILE)}`)).body);
  t.notOk(forged.one('[role="status"]'), 'a name createBackup could not have made is not echoed');
});

t.test('the backup list is bounded to the newest 20', async (t) => {
  const ctx = await buildWebTestApp(t);
  for (let i = 0; i < 23; i += 1) fs.mkdirSync(path.join(ctx.dataDir, 'backups', `2025-01-${String(i + 1).padStart(2, '0')}T00-00-00.000Z`), { recursive: true });
  const page = parseHtml((await ctx.page('/settings')).body);
  const names = page.texts('.backup-list__name');
  t.equal(names.length, 20);
  t.equal(names[0], '2025-01-23T00-00-00.000Z');
  t.match(page.text('#backups'), /Showing the newest 20 of 23 backups/);
});

t.test('reindex runs in the background, one at a time, and the fragment shows it', async (t) => {
  const ctx = await buildWebTestApp(t);
  // Holds the real reindex until the test lets it go, so "running" can be looked at.
  const finish = holdReindex(t, ctx);
  await createStory(ctx, { title: 'Indexed again' });

  const idle = parseHtml((await ctx.page('/settings/reindex/status')).body);
  t.match(idle.text('p'), /No reindex has run/);
  t.notOk(idle.one('[hx-trigger]'), 'nothing to poll');

  const start = await ctx.form('/settings/reindex', {});
  t.equal(start.statusCode, 303);
  t.equal(start.headers.location, '/settings?reindex=started#reindex');
  const running = await ctx.page('/settings/reindex/status');
  t.equal(running.statusCode, 200);
  t.match(running.headers['content-type'], /text\/html/);
  t.notMatch(running.body, /<html/, 'a fragment, not a page');
  const fragment = parseHtml(running.body);
  t.match(fragment.text('p'), /Rebuilding the search index/);
  t.equal(fragment.attr('a[hx-get]', 'hx-trigger'), 'every 1s', 'polls while running');
  t.equal(fragment.attr('a[hx-get]', 'href'), '/settings#reindex', 'a plain link without JavaScript');

  const again = await ctx.form('/settings/reindex', {});
  t.equal(again.headers.location, '/settings?reindex=running#reindex', 'a second one is not started');
  const page = parseHtml((await ctx.page('/settings?reindex=running')).body);
  t.match(page.text('[role="status"]'), /already running/);
  t.ok(page.one('#reindex-status[aria-live="polite"] a[hx-trigger]'), 'the page polls too');

  finish();
  let done = '';
  for (let i = 0; i < 100 && !/rebuilt/.test(done); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    done = parseHtml((await ctx.page('/settings/reindex/status')).body).text('p');
  }
  t.match(done, /Search index rebuilt: 1 story indexed/);
  const search = await ctx.get('/api/stories/search?query=Indexed');
  t.equal(search.json().totalHits, 1, 'the index answers');
});

t.test('the embedded rebuild reports rows done of the total while it runs', async (t) => {
  const ctx = await buildWebTestApp(t);
  for (let i = 0; i < 5; i += 1) await createStory(ctx, { title: `Story ${i}` });
  t.equal(rebuildProgress(ctx.app.db), undefined, 'nothing runs');
  const rebuild = rebuildSearchIndex(ctx.app.db, { batchSize: 1 });
  const seen: Array<{ done: number; total: number }> = [];
  while (true) {
    const progress = rebuildProgress(ctx.app.db);
    if (progress === undefined) break;
    seen.push(progress);
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.equal(await rebuild, 5);
  const counted = seen.filter((p) => p.total > 0);
  t.ok(counted.length > 2, `progress seen ${counted.length} times`);
  t.equal(counted[0]!.total, 5, 'five stories, no authors, series or tags');
  t.ok(counted.some((p) => p.done > 0 && p.done < p.total), 'part way through');
  t.ok(counted.every((p, i) => i === 0 || p.done >= counted[i - 1]!.done), 'never goes back');
  t.equal(counted.at(-1)!.done, 5);
});

t.test('search engine health is shown, and its error text is escaped', async (t) => {
  const ctx = await buildWebTestApp(t);
  const page = parseHtml((await ctx.page('/settings')).body);
  const terms = page.texts('dl.health dt');
  t.same(terms, ['Engine', 'Status', 'Details']);
  t.same(page.texts('dl.health dd').slice(0, 2), ['Embedded (SQLite FTS5)', 'Healthy']);

  const engine = ctx.app.searchEngine;
  const real = engine.health.bind(engine);
  // A second engine that is away, and whose error text carries markup.
  engine.health = async () => ({ status: 'unhealthy', engine: 'typesense', message: `down ${HOSTILE}`, error: HOSTILE, pendingChanges: 1234 });
  t.teardown(() => {
    engine.health = real;
  });
  const res = await ctx.page('/settings');
  t.notOk(res.body.includes(HOSTILE), 'no raw markup');
  t.ok(res.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'escaped');
  const html = parseHtml(res.body);
  t.same(html.texts('dl.health dt'), ['Engine', 'Status', 'Details', 'Pending changes', 'Last error']);
  t.same(html.texts('dl.health dd'), ['Typesense', 'Unhealthy', `down ${HOSTILE}`, '1,234', HOSTILE]);
});
