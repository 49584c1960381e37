import type { IncomingMessage, ServerResponse } from 'node:http';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * The headers helmet sets for `options`, worked out once: helmet's middleware is run against a
 * stand-in response that records them. (@fastify/helmet rebuilt the whole middleware, CSP
 * parsing included, on every request: ~8% of a small response's CPU.)
 */
export function helmetHeaders(options: Readonly<HelmetOptions>): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error !== undefined && error !== null) throw error;
  });
  return headers;
}

/**
 * Security headers on every response, 404s and errors included (an onRequest hook runs for
 * every request Fastify routes): helmet's, for the options given, computed at startup. A route
 * may still set its own (the `/docs` page sets a looser CSP).
 */
export const securityHeadersPlugin = fp<Readonly<HelmetOptions>>(
  async (app, options) => {
    const headers = Object.entries(helmetHeaders(options));
    app.addHook('onRequest', (_request, reply, done) => {
      for (const [name, value] of headers) reply.header(name, value);
      done();
    });
  },
  { name: 'storyshelf-security-headers', fastify: '5.x' },
);
