import type { FastifyReply } from 'fastify';
import { helmetHeaders } from '../plugins/security-headers.js';

/**
 * The pages' content security policy (docs/decisions.md, "Web interface"): scripts and styles
 * only from this server, no inline script and no eval; inline `style` attributes only because the
 * story sanitizer keeps a short list of CSS properties (src/html/policy.ts); images from
 * this server and data: only, so a story's remote images do not load. No
 * `upgrade-insecure-requests`: on plain HTTP at a LAN address it would send every asset request
 * to an https port nobody listens on.
 */
export const PAGE_CSP = helmetHeaders({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      styleSrcAttr: ["'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
      objectSrc: ["'none'"],
    },
  },
})['content-security-policy']!;

/**
 * The pages' headers over the app's (src/app.ts): the page CSP, `Referrer-Policy: same-origin`, and no Cross-Origin-Opener-Policy
 * on plain HTTP, where Chromium ignores it and logs an error on every page; behind an HTTPS proxy
 * it is kept. Set again by `render`, for the pages of requests refused before this scope's hooks.
 */
export function setPageHeaders(reply: FastifyReply): void {
  reply.header('content-security-policy', PAGE_CSP);
  // `no-referrer` (the API's) makes Chromium send `Origin: null` with a page's own form posts,
  // which the cross-site check rightly refuses; `same-origin` still tells other sites nothing.
  reply.header('referrer-policy', 'same-origin');
  // Chromium warns on every navigation that it cannot honour Origin-Agent-Cluster for an origin
  // it already keyed by site; it decides that alone (origin-keyed by default) and the page needs neither.
  reply.removeHeader('origin-agent-cluster');
  if (reply.request.protocol !== 'https') reply.removeHeader('cross-origin-opener-policy');
}

