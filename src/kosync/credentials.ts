/**
 * KOReader's credentials (docs/decisions.md, "KOReader sync"): `x-auth-user` and `x-auth-key`
 * headers, where KOReader puts the user name and the MD5 of the password. A device token is
 * accepted either way a user may type it: as the password (the key is then its MD5) or as the
 * user name, with any password (Komga's convention). Failures count as failed logins from the
 * address, and a locked-out address is refused (429) even with a good token.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireScope } from '../auth/principal.js';
import { Unauthorized } from '../errors.js';

function header(request: FastifyRequest, name: string): string {
  const value = request.headers[name];
  return typeof value === 'string' ? value.trim() : '';
}

/** onRequest hook of the sync routes: sets `request.principal` or throws 401/403/429 (the routes answer all three as 401). */
export function kosyncAuthenticator(app: FastifyInstance): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    app.auth.refuseLockedOut(request.ip);
    const user = header(request, 'x-auth-user');
    const key = header(request, 'x-auth-key');
    const token = (key === '' ? undefined : app.deviceTokens.verifyKosyncKey(key)) ?? (user === '' ? undefined : app.deviceTokens.verify(user));
    if (token === undefined) {
      app.auth.recordFailure(request.ip);
      throw new Unauthorized('Unauthorized: use a Storyshelf device token as the password (or as the user name)');
    }
    request.principal = { kind: 'device', token };
    requireScope(request, request.principal);
  };
}
