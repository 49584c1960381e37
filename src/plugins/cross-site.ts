import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { Forbidden } from '../errors.js';

/** The methods that change state; reads (GET, HEAD, OPTIONS) are never refused. */
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** `scheme://host[:port]` normalised (lowercase, default port dropped), or undefined when not a URL. */
function normalisedOrigin(text: string): string | undefined {
  try {
    const origin = new URL(text).origin;
    // Opaque origins (`null`, `data:`, `file:`) normalise to the string "null": never ours.
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * Whether a browser sent this request from a page of another origin. The request's own origin is
 * the scheme Fastify reports (`X-Forwarded-Proto` behind a trusted proxy) and its host
 * (`X-Forwarded-Host` likewise, else `Host`), so another port of the same host is foreign.
 * `Sec-Fetch-Site: same-site` is another port or subdomain: foreign unless the Origin is ours.
 */
export function isCrossSite(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  const fetchSite = request.headers['sec-fetch-site'];
  if (fetchSite === 'cross-site') return true;
  if (origin !== undefined) {
    const own = normalisedOrigin(`${request.protocol}://${request.host}`);
    return own === undefined || normalisedOrigin(origin) !== own;
  }
  return fetchSite === 'same-site';
}

/**
 * Refuses every state-changing request a browser sends from another origin with 403
 * (docs/decisions.md, "Authentication hardening"): the `SameSite=Lax` cookie alone lets a page on
 * another port of the same host post forms and uploads. Requests with neither `Origin` nor
 * `Sec-Fetch-Site` (curl, scripts) carry no ambient browser credentials and pass. An onRequest
 * hook for the whole app, so routes added later are covered and no body is read first.
 */
export const crossSitePlugin = fp(
  async (app) => {
    app.addHook('onRequest', (request, _reply, done) => {
      if (STATE_CHANGING.has(request.method) && isCrossSite(request)) {
        done(new Forbidden('Cross-site requests that change data are refused', { origin: 'must be this server\'s own origin' }));
        return;
      }
      done();
    });
  },
  { name: 'storyshelf-cross-site', fastify: '5.x' },
);
