/**
 * Sending a story to an e-reader (docs/decisions.md, "Send to an e-reader") through the real HTTP
 * stack to a real SMTP server on 127.0.0.1: the message arrives with the story's EPUB as its one
 * attachment (opened as a ZIP: mimetype, container, title), and every way it can fail is a clear
 * {error, details} that sends nothing: not configured, no or bad recipient, wrong login, server
 * down or silent, too large for us or for the server, too many at once.
 */
import net from 'node:net';
import t, { type Test } from 'tap';
import { Value } from '@sinclair/typebox/value';
import { ErrorBody } from '../../src/schemas/common.js';
import { SendResponse } from '../../src/schemas/send.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { download, entryText, readZip, uploadImage, xmlTexts } from '../helpers/epub.js';
import { createStory, MISSING_ID } from '../helpers/factories.js';
import * as img from '../helpers/images.js';
import { startSmtp } from '../helpers/smtp.js';
import { makeDeviceToken } from '../helpers/tokens.js';

const USER = 'me@example.com';
const PASS = 'p@ss w:rd';
const KINDLE = 'reader_1@kindle.com';

/** `smtp://` with the test login, percent-encoded as a real URL must be. */
function smtpUrl(port: number, pass = PASS): string {
  return `smtp://${encodeURIComponent(USER)}:${encodeURIComponent(pass)}@127.0.0.1:${port}`;
}

function send(ctx: TestContext, id: string, body?: unknown) {
  return body === undefined ? ctx.request({ method: 'POST', url: `/api/stories/${id}/send` }) : ctx.post(`/api/stories/${id}/send`, body);
}

function checkError(t: Test, res: { statusCode: number; json: () => unknown }, status: number, field: string) {
  t.equal(res.statusCode, status);
  const body = res.json() as ErrorBody;
  t.ok(Value.Check(ErrorBody, body), 'the error shape');
  t.type(body.details?.[field], 'string', `details.${field}`);
  return body;
}

/** A port nothing listens on: one just given up by a server. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A server that accepts connections and never says a word (no SMTP greeting). */
async function silentServer(t: Test): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as net.AddressInfo).port;
}

t.test('a story arrives at the SMTP server as a valid EPUB attachment', async (t) => {
  const smtp = await startSmtp(t, { auth: { user: USER, pass: PASS } });
  const ctx = await buildTestApp(t, { SMTP_URL: smtpUrl(smtp.port), SEND_TO: KINDLE });
  const story = await createStory(ctx, { title: 'Zoë’s “Night”', authorName: 'Ann Writer', contentHtml: '<p>Once upon a time.</p>' });

  const res = await send(ctx, story.id, {});
  t.equal(res.statusCode, 200, res.body);
  const answer = res.json() as SendResponse;
  t.ok(Value.Check(SendResponse, answer));
  t.equal(answer.to, KINDLE, 'SEND_TO when the body names nobody');

  t.equal(smtp.received.length, 1);
  const { mail, from, to, user } = smtp.received[0]!;
  t.equal(user, USER, 'logged in with the URL\'s percent-decoded user and password');
  t.equal(from, USER, 'the sender defaults to the URL\'s user');
  t.same(to, [KINDLE]);
  t.equal(mail.subject, 'Zoë’s “Night” - Ann Writer');
  t.equal(mail.attachments.length, 1, 'one attachment');
  const attachment = mail.attachments[0]!;
  t.equal(attachment.contentType, 'application/epub+zip');
  t.equal(attachment.filename, 'Zoë’s “Night” - Ann Writer.epub');
  t.equal(attachment.content.length, answer.bytes, 'the size the answer reported');

  const entries = await readZip(attachment.content);
  t.equal(entries[0]?.name, 'mimetype', 'mimetype first');
  t.equal(entries[0]?.method, 0, 'and stored');
  t.equal(entries[0]?.bytes.toString(), 'application/epub+zip');
  t.match(entryText(entries, 'META-INF/container.xml'), /full-path="OEBPS\/content.opf"/);
  t.same(xmlTexts(entryText(entries, 'OEBPS/content.opf'), 'dc:title'), ['Zoë’s “Night”']);
  t.match(entryText(entries, 'OEBPS/story-0001.xhtml'), /Once upon a time\./);
  const { bytes } = await download(ctx, `/api/stories/${story.id}/epub`);
  t.ok(attachment.content.equals(bytes), 'the same file the EPUB export hands out, byte for byte');

  const other = await send(ctx, story.id, { to: 'someone@example.org' });
  t.equal(other.statusCode, 200);
  t.same(smtp.received[1]?.to, ['someone@example.org'], '`to` overrides SEND_TO');
  const bare = await send(ctx, story.id);
  t.equal(bare.statusCode, 200, 'no body at all sends to SEND_TO');
  t.same(smtp.received[2]?.to, [KINDLE]);
});

t.test('a recipient is one plain address; a bad or missing one is 400 before anything is built or sent', async (t) => {
  const smtp = await startSmtp(t);
  const ctx = await buildTestApp(t, { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, SEND_FROM: 'library@example.com' });
  const story = await createStory(ctx);
  for (const to of ['a@example.com, b@example.com', 'a@example.com\r\nBcc: b@example.com', 'Ann <a@example.com>', 'a@example.com;b@example.com', 'not an address', 'a@localhost', ' ', `${'x'.repeat(65)}@example.com`]) {
    const body = checkError(t, await send(ctx, story.id, { to }), 400, 'to');
    t.equal(body.error, 'Validation failed', JSON.stringify(to));
  }
  const missing = checkError(t, await send(ctx, story.id, {}), 400, 'to');
  t.match(missing.details?.to, /SEND_TO/, 'no SEND_TO and no `to`');
  t.equal(checkError(t, await send(ctx, story.id, { to: 7 }), 400, 'to').error, 'Validation failed', 'a number');
  t.equal(smtp.received.length, 0, 'nothing was sent');

  t.equal((await send(ctx, MISSING_ID, { to: KINDLE })).statusCode, 404, 'an unknown story');
  t.equal((await send(ctx, 'not-a-uuid', { to: KINDLE })).statusCode, 400, 'a malformed id');
  t.equal(smtp.received.length, 0);

  const res = await send(ctx, story.id, { to: KINDLE });
  t.equal(res.statusCode, 200, 'SEND_FROM and no login');
  t.equal(smtp.received[0]?.from, 'library@example.com');
});

t.test('not configured: 409 naming SMTP_URL', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx);
  const body = checkError(t, await send(ctx, story.id, { to: KINDLE }), 409, 'SMTP_URL');
  t.match(body.error, /not configured/);
});

t.test('the mail server refuses the login: 502, nothing delivered, no password in the answer', async (t) => {
  const smtp = await startSmtp(t, { auth: { user: USER, pass: PASS } });
  const ctx = await buildTestApp(t, { SMTP_URL: smtpUrl(smtp.port, 'wrong-secret'), SEND_TO: KINDLE });
  const story = await createStory(ctx);
  const res = await send(ctx, story.id, {});
  const body = checkError(t, res, 502, 'smtp');
  t.match(body.error, /refused the login/);
  t.notMatch(res.body, /wrong-secret/);
  t.equal(smtp.logins, 1, 'it tried');
  t.equal(smtp.received.length, 0);
});

t.test('the mail server is down: 502; silent: 504 after SMTP_TIMEOUT_SECONDS', async (t) => {
  const down = await buildTestApp(t, { SMTP_URL: `smtp://127.0.0.1:${await closedPort()}`, SEND_FROM: USER, SEND_TO: KINDLE });
  const story = await createStory(down);
  const refused = checkError(t, await send(down, story.id, {}), 502, 'smtp');
  t.match(refused.error, /could not be reached/);

  const silent = await buildTestApp(t, { SMTP_URL: `smtp://127.0.0.1:${await silentServer(t)}`, SEND_FROM: USER, SEND_TO: KINDLE, SMTP_TIMEOUT_SECONDS: '1' });
  const quiet = await createStory(silent);
  const started = Date.now();
  const timedOut = checkError(t, await send(silent, quiet.id, {}), 504, 'smtp');
  t.match(timedOut.details?.smtp, /silent for 1 s/);
  t.ok(Date.now() - started < 5000, 'the timeout holds');
});

t.test('a send past its deadline is stopped: 504', async (t) => {
  const ctx = await buildTestApp(t, { SMTP_URL: `smtp://127.0.0.1:${await silentServer(t)}`, SEND_FROM: USER, SEND_TO: KINDLE, SMTP_TIMEOUT_SECONDS: '60' });
  ctx.app.mailer!.deadlineMs = 1000;
  const story = await createStory(ctx);
  const started = Date.now();
  const body = checkError(t, await send(ctx, story.id, {}), 504, 'smtp');
  t.match(body.details?.smtp, /took over 1 s/, 'the whole-send deadline, not the 60 s step timeout');
  t.ok(Date.now() - started < 10_000);
});

t.test('too large: over SEND_MAX_MB nothing is sent (413); the server\'s own size refusal is 413 too', async (t) => {
  const smtp = await startSmtp(t, { size: 4000 });
  const ctx = await buildTestApp(t, { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, SEND_FROM: USER, SEND_TO: KINDLE, SEND_MAX_MB: '1' });
  const coverPath = await uploadImage(ctx, img.pngOfSize(1_200_000), 'big.png', 'image/png');
  const big = await createStory(ctx, { coverPath });
  const ours = checkError(t, await send(ctx, big.id, {}), 413, 'bytes');
  t.match(ours.error, /SEND_MAX_MB/);

  const small = await createStory(ctx, { contentHtml: `<p>${'A line of a story that is long enough. '.repeat(40)}</p>`.repeat(10) });
  const theirs = checkError(t, await send(ctx, small.id, {}), 413, 'smtp');
  t.match(theirs.error, /refused a message this large/);
  t.equal(smtp.received.length, 0, 'nothing was delivered');
});

t.test('at most 2 sends run and 8 wait; one more is 503', async (t) => {
  const ctx = await buildTestApp(t, { SMTP_URL: `smtp://127.0.0.1:${await silentServer(t)}`, SEND_FROM: USER, SEND_TO: KINDLE, SMTP_TIMEOUT_SECONDS: '1' });
  const story = await createStory(ctx);
  const answers = await Promise.all(Array.from({ length: 11 }, () => send(ctx, story.id, {})));
  const statuses = answers.map((res) => res.statusCode).sort();
  t.same(statuses, [503, ...Array(10).fill(504)], 'ten ran (and timed out), the eleventh was refused at once');
  t.match(answers.find((res) => res.statusCode === 503)?.json().error, /Too many/);
});

t.test('a device token needs the write scope to send', async (t) => {
  const smtp = await startSmtp(t);
  const ctx = await buildTestApp(t, { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, SEND_FROM: USER, SEND_TO: KINDLE });
  const story = await createStory(ctx);
  const reader = await makeDeviceToken(ctx, ['read', 'progress']);
  const res = await ctx.app.inject({ method: 'POST', url: `/api/stories/${story.id}/send`, headers: { authorization: `Bearer ${reader}` }, payload: {} });
  t.equal(res.statusCode, 403);
  t.equal(smtp.received.length, 0);
});
