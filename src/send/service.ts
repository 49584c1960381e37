/**
 * Sending a story's EPUB by mail (docs/decisions.md, "Send to an e-reader"): the book the EPUB
 * export builds (same queue, same bytes as a download), as the one attachment of a message
 * handed to the SMTP server in `SMTP_URL`. Synchronous: the answer is 200 once the server has
 * accepted the message for delivery, or the reason it did not.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Transporter } from 'nodemailer';
import type { MailConfig } from '../config.js';
import { Conflict, HttpError, invalidField, ServiceUnavailable, TooLarge } from '../errors.js';
import { storyEpub, type EpubDeps } from '../epub/service.js';
import { attachmentNames } from '../lib/content-disposition.js';
import { isMailAddress } from '../lib/mail-address.js';
import { Semaphore } from '../lib/semaphore.js';
import type { SendResponse } from '../schemas/send.js';

/** Sends at once: each holds its book in memory (up to the send limit) while the server takes it. */
const MAX_CONCURRENT_SENDS = 2;
/** Sends that may wait for one of those; past it, 503. A person presses the button a few times at most. */
const MAX_WAITING_SENDS = 8;
/** The longest subject line: the book's name, cut. */
const SUBJECT_MAX = 200;
/** The longest piece of the mail server's reply passed on in an error's details. */
const REPLY_MAX = 200;

/**
 * The longest a whole send may take, connecting to the server's final answer: the per-step
 * timeouts end a silent server, this ends one that drips. A 50 MB book is ~67 MB in base64,
 * about 9 minutes at 1 Mbit/s, a slow home uplink.
 */
export const SEND_DEADLINE_MS = 10 * 60_000;

/** What sending needs: the settings, the app's SMTP transport and its bound on concurrent sends. */
export interface Mailer {
  config: MailConfig;
  transport: Transporter;
  sends: Semaphore;
  /** {@link SEND_DEADLINE_MS}; a test may shorten it. */
  deadlineMs: number;
}

/** The bound on concurrent sends, one per app (src/send/plugin.ts). */
export function sendSlots(): Semaphore {
  return new Semaphore(MAX_CONCURRENT_SENDS, MAX_WAITING_SENDS, () => new ServiceUnavailable('Too many books are being sent at once; try again shortly'));
}

/**
 * 409 with what to set: the library is not in a state that can send (no mail server), which no
 * retry changes and the operator must (a 503 would say "try again later"; every route also
 * answers 4xx, never 5xx, to whatever a client sends: test/reliability/hostile.test.ts).
 */
export function mailNotConfigured(): Conflict {
  return new Conflict('Sending to an e-reader is not configured', { SMTP_URL: 'is not set on the server (see the README, "Configuration")' });
}

/** The recipient: the body's `to`, else `SEND_TO`; 400 when there is none or it is not one plain address. */
export function recipientOf(config: MailConfig, to: string | undefined): string {
  const recipient = to?.trim() || config.defaultTo;
  if (recipient === undefined) return failRecipient('is required: the server has no default recipient (SEND_TO)');
  if (!isMailAddress(recipient)) return failRecipient('must be one e-mail address, such as name@kindle.com');
  return recipient;
}

function failRecipient(message: string): never {
  throw invalidField('to', message);
}

interface SmtpError {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
}

/** The mail server's own words, on one line and short, for `details`. */
function reply(error: SmtpError): string {
  return (error.response ?? '').replace(/\s+/g, ' ').trim().slice(0, REPLY_MAX);
}

/**
 * What the client is told when the mail server did not take the message: 413 when it refused the
 * size (552, RFC 5321), 504 when it did not answer in time, 502 for everything else (unreachable,
 * wrong login, recipient refused), each naming the cause in `details.smtp`.
 */
export function sendFailure(error: unknown, mailer: Pick<Mailer, 'config' | 'deadlineMs'>): HttpError {
  const { config } = mailer;
  const smtp = (typeof error === 'object' && error !== null ? error : {}) as SmtpError;
  const server = `${config.host}:${config.port}`;
  if (smtp.responseCode === 552) return new TooLarge('The mail server refused a message this large', { smtp: reply(smtp) || 'message too large' });
  switch (smtp.code) {
    case 'ETIMEDOUT':
      return new HttpError(504, 'The mail server did not answer in time', { smtp: `${server} was silent for ${config.timeoutMs / 1000} s` });
    case 'EABORT':
      return new HttpError(504, 'The mail server did not take the message in time', { smtp: `the send took over ${mailer.deadlineMs / 1000} s` });
    case 'EAUTH':
    case 'ENOAUTH':
      return new HttpError(502, 'The mail server refused the login', { smtp: reply(smtp) || 'check the user and password in SMTP_URL' });
    case 'EDNS':
      return new HttpError(502, 'The mail server could not be reached', { smtp: `${config.host} was not found` });
    case 'ECONNECTION':
    case 'ESOCKET':
      return new HttpError(502, 'The mail server could not be reached', { smtp: `no connection to ${server}` });
    case 'ETLS':
      return new HttpError(502, 'The mail server could not be reached', { smtp: `TLS with ${server} failed` });
    case 'EENVELOPE':
      return new HttpError(502, 'The mail server refused the sender or the recipient', { smtp: reply(smtp) || 'envelope refused' });
    default:
      return new HttpError(502, 'The mail server did not accept the message', { smtp: reply(smtp) || smtp.code || 'unknown error' });
  }
}

/**
 * Builds the story's EPUB (the EPUB export's own build queue) and mails it to `to` (else
 * `SEND_TO`), at most {@link MAX_CONCURRENT_SENDS} at once: 409 when mail is not configured, 503
 * when too many sends wait, 400 for a missing or bad recipient (checked before any work), 404 for an
 * unknown story, 413 over `SEND_MAX_MB`, 502/504 when the mail server does not take it (504 past
 * {@link SEND_DEADLINE_MS} too).
 */
export async function sendStory(mailer: Mailer | undefined, epub: EpubDeps, id: string, to: string | undefined, log: FastifyBaseLogger): Promise<SendResponse> {
  if (mailer === undefined) throw mailNotConfigured();
  const { config, transport } = mailer;
  const recipient = recipientOf(config, to);
  return mailer.sends.run(async () => {
    const book = await storyEpub(epub, id);
    if (book.bytes.length > config.maxBytes) {
      throw new TooLarge(`The EPUB is ${megabytes(book.bytes.length)}; at most ${megabytes(config.maxBytes)} may be sent (SEND_MAX_MB)`, {
        bytes: `must be at most ${config.maxBytes}`,
      });
    }
    const subject = book.title.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, SUBJECT_MAX);
    try {
      const info = await transport.sendMail({
        signal: AbortSignal.timeout(mailer.deadlineMs),
        from: config.from,
        to: recipient,
        subject,
        text: `${subject}\n\nSent from Storyshelf.\n`,
        attachments: [{ filename: attachmentNames(book.title, '.epub', 'book').full, content: book.bytes, contentType: 'application/epub+zip' }],
      });
      log.info({ storyId: id, to: recipient, bytes: book.bytes.length, messageId: info.messageId }, 'Sent a story to an e-reader');
    } catch (error) {
      const failure = sendFailure(error, mailer);
      const smtp = error as SmtpError;
      log.warn({ storyId: id, to: recipient, code: smtp.code, responseCode: smtp.responseCode, command: smtp.command }, `Sending a story failed: ${failure.message}`);
      throw failure;
    }
    return { message: `Sent to ${recipient}`, to: recipient, bytes: book.bytes.length };
  });
}

/** "3.2 MB" (decimal, as mail providers state their limits). */
function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
