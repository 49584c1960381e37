/**
 * The mail settings at start-up (docs/decisions.md, "Send to an e-reader"): `SMTP_URL` parsed once
 * (scheme, host, port, percent-decoded login), the sender and default recipient checked as single
 * addresses, the limits in range, and mail settings without `SMTP_URL` refused. No problem
 * message repeats the password.
 */
import t from 'tap';
import { loadConfig } from '../../src/config.js';
import { configProblems as problemsOf } from '../helpers/config.js';
import { isMailAddress } from '../../src/lib/mail-address.js';


t.test('off unless SMTP_URL is set', async (t) => {
  t.equal(loadConfig({}).mail, undefined);
});

t.test('smtps:// with a login; defaults', async (t) => {
  const { mail } = loadConfig({ SMTP_URL: 'smtps://me%40example.com:s%3Acret%2F@smtp.example.com', SEND_TO: 'reader@kindle.com' });
  t.same(mail, {
    host: 'smtp.example.com',
    port: 465,
    secure: true,
    auth: { user: 'me@example.com', pass: 's:cret/' },
    from: 'me@example.com',
    defaultTo: 'reader@kindle.com',
    maxBytes: 50_000_000,
    timeoutMs: 30_000,
  });
  t.ok(Object.isFrozen(mail));
});

t.test('smtp:// without a login, with SEND_FROM and the limits', async (t) => {
  const { mail } = loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525', SEND_FROM: 'library@home.example', SEND_MAX_MB: '20', SMTP_TIMEOUT_SECONDS: '5' });
  t.match(mail, { host: '127.0.0.1', port: 2525, secure: false, auth: undefined, from: 'library@home.example', defaultTo: undefined, maxBytes: 20_000_000, timeoutMs: 5000 });
  t.equal(loadConfig({ SMTP_URL: 'smtp://[::1]', SEND_FROM: 'a@example.com' }).mail?.host, '::1');
  t.equal(loadConfig({ SMTP_URL: 'smtp://mail.lan', SEND_FROM: 'a@example.com' }).mail?.port, 587);
});

t.test('every bad mail setting is named, and the password never is', async (t) => {
  const secret = 'hunter2-secret';
  t.match(problemsOf({ SMTP_URL: `http://u:${secret}@mail.example.com` }), [/smtp:\/\/ or smtps:\/\//, /SEND_FROM is required/]);
  t.match(problemsOf({ SMTP_URL: `smtps://u:${secret}@mail.example.com/inbox?x=1`, SEND_FROM: 'a@example.com' }), [/no path, query or fragment/]);
  t.match(problemsOf({ SMTP_URL: `not a url ${secret}` }), [/must be a URL/]);
  t.match(problemsOf({ SMTP_URL: 'smtp://relay.lan' }), [/SEND_FROM is required/], 'no login and no sender');
  t.match(problemsOf({ SEND_TO: 'reader@kindle.com' }), [/need SMTP_URL/]);
  t.match(problemsOf({ SMTP_URL: 'smtp://relay.lan', SEND_FROM: 'a@example.com', SEND_TO: 'a@example.com, b@example.com' }), [/SEND_TO must be one e-mail address/]);
  t.match(problemsOf({ SMTP_URL: 'smtp://relay.lan', SEND_FROM: 'Library <a@example.com>' }), [/SEND_FROM must be one e-mail address/]);
  t.match(problemsOf({ SMTP_URL: 'smtp://relay.lan', SEND_FROM: 'a@example.com', SEND_MAX_MB: '0' }), [/SEND_MAX_MB must be an integer from 1 to 100/]);
  t.match(problemsOf({ SMTP_URL: 'smtp://relay.lan', SEND_FROM: 'a@example.com', SEND_MAX_MB: '101' }), [/SEND_MAX_MB/]);
  t.match(problemsOf({ SMTP_URL: 'smtp://relay.lan', SEND_FROM: 'a@example.com', SMTP_TIMEOUT_SECONDS: '0' }), [/SMTP_TIMEOUT_SECONDS/]);
  for (const env of [{ SMTP_URL: `http://u:${secret}@mail.example.com` }, { SMTP_URL: `not a url ${secret}` }, { SMTP_URL: `smtps://u:${secret}@mail.example.com/x` }]) {
    t.notMatch(problemsOf(env).join(' '), secret, 'the password is not repeated');
  }
});

t.test('one plain address', async (t) => {
  for (const good of ['a@example.com', 'first.last+kindle@sub.example.co.uk', "o'neil@example.org", 'x_1@kindle.com']) t.ok(isMailAddress(good), good);
  for (const bad of ['', 'a', 'a@', '@example.com', 'a@example', 'a@-example.com', 'a b@example.com', 'a@example.com ', 'a@example.com\n', '"a"@example.com', '<a@example.com>', 'a@example.com,b@example.com', `${'a'.repeat(65)}@example.com`, `a@${'b'.repeat(250)}.com`]) {
    t.notOk(isMailAddress(bad), JSON.stringify(bad));
  }
});
