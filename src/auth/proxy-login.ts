import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { AuthProxyConfig } from '../config.js';
import { Unauthorized } from '../errors.js';
import { LruCache } from '../lib/lru.js';
import { trustedProxyMatcher } from '../lib/trusted-proxies.js';

/** Longest user name believed: proxies send a login name or an e-mail address (RFC 5321 caps a path at 256). */
const USER_MAX = 256;
/** Names whose first sign-in is remembered, so the log says each once, not once per request. */
const NAMES_REMEMBERED = 100;

/**
 * Sign-in through the home server's login (docs/decisions.md, "Proxy login"): a request whose
 * connection comes straight from an address `TRUST_PROXY` lists and that carries
 * `AUTH_PROXY_HEADER` acts for the library's one user. The peer is the socket's, never an
 * `X-Forwarded-For` entry: a client that reaches the port directly, or any other way than
 * through that proxy, is not believed whatever it sends.
 */
export class ProxyLogin {
  readonly #trusted: (address: string | undefined) => boolean;
  readonly #seen = new LruCache<string, true>(NAMES_REMEMBERED);

  constructor(
    private readonly config: AuthProxyConfig,
    private readonly log: FastifyBaseLogger,
  ) {
    this.#trusted = trustedProxyMatcher(config.trusted);
  }

  /**
   * The user the proxy vouches for, or undefined when the request did not come from a trusted
   * proxy or carries no (or an empty) header, so other credentials are looked at. 401 for a
   * header from a trusted proxy that is no user name (too long, control characters): the proxy is
   * misconfigured, and guessing would be worse.
   */
  userOf(request: FastifyRequest): string | undefined {
    if (!this.#trusted(request.socket.remoteAddress)) return undefined;
    const raw = request.headers[this.config.header];
    const user = (Array.isArray(raw) ? raw.join(', ') : (raw ?? '')).trim();
    if (user === '') return undefined;
    if (user.length > USER_MAX || /[\u0000-\u001f\u007f]/.test(user)) throw new Unauthorized('The proxy sent a sign-in header that is not a user name');
    if (this.#seen.get(user) === undefined) {
      this.#seen.set(user, true);
      this.log.info({ proxyUser: user, header: this.config.header }, 'Signed in through the proxy');
    }
    return user;
  }
}
