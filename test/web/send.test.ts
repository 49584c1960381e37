/**
 * Sending from the pages (docs/decisions.md, "Send to an e-reader"): the story page's "Send to
 * e-reader" form appears only when mail is configured, starts with SEND_TO, and mails the EPUB
 * through the API's service; the settings page says whether mail is configured, never with the
 * password. The form is a write like any other: a foreign origin is refused.
 */
import t from 'tap';
import { buildWebTestApp, parseHtml, type WebTestContext } from '../helpers/web.js';
import { createStory } from '../helpers/factories.js';
import { startSmtp } from '../helpers/smtp.js';

const KINDLE = 'reader@kindle.com';
const SECRET = 'sm7p-pa55word';

function postForm(ctx: WebTestContext, url: string, body: string, headers: Record<string, string> = {}) {
  return ctx.app.inject({ method: 'POST', url, payload: body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, cookies: { token: ctx.token } });
}

t.test('configured: the story page sends the EPUB and says so; settings show the server without its login', async (t) => {
  const smtp = await startSmtp(t, { auth: { user: 'library', pass: SECRET } });
  const ctx = await buildWebTestApp(t, { SMTP_URL: `smtp://library:${SECRET}@127.0.0.1:${smtp.port}`, SEND_FROM: 'library@example.com', SEND_TO: KINDLE });
  const story = await createStory(ctx, { title: 'The Mailed Story' });

  const page = parseHtml((await ctx.get(`/stories/${story.id}`)).body);
  t.equal(page.attr('form#send', 'action'), `/stories/${story.id}/send`);
  t.equal(page.attr('#send-to', 'value'), KINDLE, 'the address starts as SEND_TO');
  t.equal(page.text('form#send button'), 'Send to e-reader');
  t.equal(page.text('label[for="send-to"]'), "E-reader's mail-in address");

  const sent = await postForm(ctx, `/stories/${story.id}/send`, `to=${encodeURIComponent('other@example.org')}`);
  t.equal(sent.statusCode, 303);
  t.equal(sent.headers.location, `/stories/${story.id}?sent=1#send`);
  t.equal(smtp.received.length, 1);
  t.same(smtp.received[0]?.to, ['other@example.org']);
  t.match(smtp.received[0]?.mail.attachments[0]?.filename, /^The Mailed Story\.epub$/);
  t.match(parseHtml((await ctx.get(`/stories/${story.id}?sent=1`)).body).text('form#send [role="status"]'), /Sent/);

  const bad = await postForm(ctx, `/stories/${story.id}/send`, 'to=a%40example.com%0D%0ABcc%3A+b%40example.com');
  t.equal(bad.statusCode, 400, 'a header injection attempt is the 400 page');
  const foreign = await postForm(ctx, `/stories/${story.id}/send`, `to=${KINDLE}`, { origin: 'http://evil.example' });
  t.equal(foreign.statusCode, 403, 'another site cannot make the browser send');
  t.equal(smtp.received.length, 1, 'neither sent anything');

  const settings = await ctx.get('/settings');
  const html = parseHtml(settings.body);
  t.match(html.text('#mail'), /Mail is configured/);
  t.match(html.text('#mail'), new RegExp(`smtp://127\\.0\\.0\\.1:${smtp.port} \\(with a login\\)`));
  t.match(html.text('#mail'), /library@example\.com/);
  t.match(html.text('#mail'), /reader@kindle\.com/);
  t.match(html.text('#mail'), /50 MB/);
  t.notOk(settings.body.includes(SECRET), 'never the password');
});

t.test('not configured: no send form, and the settings page says how to configure it', async (t) => {
  const ctx = await buildWebTestApp(t);
  const story = await createStory(ctx);
  const page = parseHtml((await ctx.get(`/stories/${story.id}`)).body);
  t.equal(page.one('form#send'), undefined);
  t.match(parseHtml((await ctx.get('/settings')).body).text('#mail'), /not configured.*SMTP_URL/);
  const res = await postForm(ctx, `/stories/${story.id}/send`, `to=${KINDLE}`);
  t.equal(res.statusCode, 409, 'posting anyway is the 409 page');
});
