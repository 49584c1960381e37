import type { FastifyRequest } from 'fastify';

/** The name of the cookie that carries the login token (set by login, cleared by logout). */
export const TOKEN_COOKIE = 'token';

/** The token a request carries: the `token` cookie, else `Authorization: Bearer` (beyond). */
export function requestToken(request: FastifyRequest): string | undefined {
  const fromCookie = request.cookies[TOKEN_COOKIE];
  if (fromCookie !== undefined && fromCookie !== '') return fromCookie;
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
