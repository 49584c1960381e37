/**
 * A real SMTP server on 127.0.0.1 for the send tests (smtp-server, nodemailer's own server
 * library): it receives what Storyshelf sends, and mailparser reads each message back. No
 * STARTTLS (the tests talk plain SMTP on loopback), login over it allowed.
 */
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SmtpOptions {
  /** The one user and password accepted; without it, no login is asked for. */
  auth?: { user: string; pass: string };
  /** The server's SIZE limit in bytes: a bigger message is refused with 552. */
  size?: number;
}

export interface TestSmtp {
  port: number;
  /** Every message accepted so far, parsed, with its envelope. */
  received: Array<{ mail: ParsedMail; from: string; to: string[]; user: string | undefined }>;
  /** Attempts to log in, right or wrong. */
  logins: number;
}

/** Starts the server on a free loopback port and stops it when the test ends. */
export async function startSmtp(t: Test, options: SmtpOptions = {}): Promise<TestSmtp> {
  const state: TestSmtp = { port: 0, received: [], logins: 0 };
  const server = new SMTPServer({
    disabledCommands: options.auth === undefined ? ['STARTTLS', 'AUTH'] : ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: options.auth === undefined,
    ...(options.size === undefined ? {} : { size: options.size }),
    logger: false,
    onAuth(auth, _session, callback) {
      state.logins += 1;
      if (auth.username === options.auth?.user && auth.password === options.auth?.pass) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          if ((stream as unknown as { sizeExceeded: boolean }).sizeExceeded) {
            callback(Object.assign(new Error('Message exceeds fixed maximum message size'), { responseCode: 552 }));
            return;
          }
          state.received.push({
            mail,
            from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            user: session.user as string | undefined,
          });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.server.address() as AddressInfo).port;
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return state;
}
