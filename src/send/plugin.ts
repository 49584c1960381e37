import fp from 'fastify-plugin';
import { SEND_DEADLINE_MS, sendSlots, type Mailer } from './service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Sending EPUBs by mail (src/send/service.ts), or undefined when `SMTP_URL` is not set. */
    mailer: Mailer | undefined;
  }
}

/**
 * The app's SMTP transport and its bound on concurrent sends, from the `SMTP_URL` settings
 * (docs/decisions.md, "Send to an e-reader"). A connection per message, not a pool: sends are
 * rare, and a pool would keep a connection (and the server's idle timer) open for nothing. Every
 * step of the conversation has the configured timeout, and a whole send its deadline; nodemailer may read no file or URL into a
 * message. Closed with the app. nodemailer is loaded only when mail is configured: the other
 * starts need not pay for importing it.
 */
export const sendPlugin = fp(
  async (app) => {
    const config = app.config.mail;
    if (config === undefined) {
      app.decorate('mailer', undefined);
      return;
    }
    const { createTransport } = await import('nodemailer');
    const transport = createTransport({
      host: config.host,
      port: config.port,
      secure: config.secure,
      ...(config.auth === undefined ? {} : { auth: { user: config.auth.user, pass: config.auth.pass } }),
      connectionTimeout: config.timeoutMs,
      greetingTimeout: config.timeoutMs,
      socketTimeout: config.timeoutMs,
      dnsTimeout: config.timeoutMs,
      disableFileAccess: true,
      disableUrlAccess: true,
    });
    app.decorate('mailer', { config, transport, sends: sendSlots(), deadlineMs: SEND_DEADLINE_MS });
    app.addHook('onClose', async () => transport.close());
  },
  { name: 'storyshelf-send', fastify: '5.x', dependencies: ['storyshelf-epub'] },
);
