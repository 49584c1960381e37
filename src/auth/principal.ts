import type { FastifyRequest } from 'fastify';
import { Forbidden, Unauthorized } from '../errors.js';
import type { Scope } from '../schemas/tokens.js';
import type { DeviceCredential, DeviceTokens } from '../tokens/service.js';
import type { ProxyLogin } from './proxy-login.js';
import { TOKEN_COOKIE } from './request-token.js';
import type { AuthService, TokenClaims } from './service.js';

/**
 * Who a request acts for (docs/decisions.md, "Device tokens"): a logged-in person (the cookie
 * or a Bearer JWT from a login), who may do everything, a person the home server's login proxy
 * vouches for (docs/decisions.md, "Proxy login"), who may too, or a device token with its scopes.
 */
export type Principal =
  | { kind: 'session'; claims: TokenClaims }
  | { kind: 'proxy'; user: string }
  | { kind: 'device'; token: DeviceCredential };

/** What a route needs: a scope, or `session` (a logged-in person; no device token may). */
export type RouteScope = Scope | 'session';

/** A JWT is three dot-separated parts; a device token (`sst_…`, base64url) has no dot. */
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]+$/;

interface Checkers {
  auth: AuthService;
  deviceTokens: DeviceTokens;
  /** Set when `AUTH_PROXY_HEADER` is. */
  proxy?: ProxyLogin | undefined;
}

/**
 * The person a trusted login proxy vouches for, or undefined (no proxy login configured, not
 * from the proxy, no header). Checked before any other credential: the proxy has just
 * authenticated the person, and a stale cookie left from a password login must not turn that
 * into a 401.
 */
export function proxyPrincipal(request: FastifyRequest, proxy: ProxyLogin | undefined): Principal | undefined {
  const user = proxy?.userOf(request);
  return user === undefined ? undefined : { kind: 'proxy', user };
}

/** Whether a person (a login or the login proxy, not a device) is signed in, for the pages. */
export function personSignedIn(request: FastifyRequest): boolean {
  return request.token !== undefined || request.principal?.kind === 'proxy';
}

/**
 * The principal of a request's credentials: the login proxy's header from a trusted proxy
 * ({@link proxyPrincipal}), then the `token` cookie (as before device tokens),
 * else `Authorization: Bearer <JWT or device token>` or `Basic` with a device token as the
 * password (any user name; the user name when the password is empty, for clients with one
 * field). 401 without credentials or with wrong ones.
 */
export function principalOf(request: FastifyRequest, checkers: Checkers): Principal {
  const proxied = proxyPrincipal(request, checkers.proxy);
  if (proxied !== undefined) return proxied;
  const cookie = request.cookies[TOKEN_COOKIE];
  if (cookie !== undefined && cookie !== '') return { kind: 'session', claims: checkers.auth.verify(cookie) };
  const header = request.headers.authorization;
  if (header === undefined) throw new Unauthorized('Authentication required');
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (bearer !== undefined) {
    return JWT_SHAPE.test(bearer) ? { kind: 'session', claims: checkers.auth.verify(bearer) } : devicePrincipal(request, bearer, checkers);
  }
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)?.[1];
  if (basic !== undefined) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const user = colon < 0 ? decoded : decoded.slice(0, colon);
    const password = colon < 0 ? '' : decoded.slice(colon + 1);
    return devicePrincipal(request, password !== '' ? password : user, checkers);
  }
  throw new Unauthorized('Authentication required');
}

/**
 * The device token `secret` names. Wrong secrets count as failed logins from the address, so
 * a locked-out address is refused with 429 here too (docs/decisions.md, "Device tokens").
 */
export function devicePrincipal(request: FastifyRequest, secret: string, checkers: Checkers): Principal {
  checkers.auth.refuseLockedOut(request.ip);
  const token = checkers.deviceTokens.verify(secret);
  if (token === undefined) {
    checkers.auth.recordFailure(request.ip);
    throw new Unauthorized('Invalid device token');
  }
  return { kind: 'device', token };
}

/**
 * 403 unless the principal may use the route: a person (session or proxy) may use every route;
 * a device token needs the route's `config.scope`, else `read` for GET and HEAD and `write` for
 * the rest.
 */
export function requireScope(request: FastifyRequest, principal: Principal): void {
  if (principal.kind !== 'device') return;
  const declared = request.routeOptions.config.scope;
  const needed: RouteScope = declared ?? (request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write');
  if (needed === 'session') throw new Forbidden('A device token cannot do this; log in with the password');
  if (!principal.token.scopes.includes(needed)) {
    throw new Forbidden(`This device token lacks the "${needed}" scope`, { scope: `needs ${needed}` });
  }
}
