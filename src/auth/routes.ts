import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, MessageBody } from '../schemas/common.js';
import { ChangePasswordBody, LoginBody, LoginResponse } from '../schemas/auth.js';
import { requestToken, TOKEN_COOKIE } from './request-token.js';
import { TOKEN_LIFETIME_SECONDS } from './tokens.js';

/**
 * The body limit of the routes anyone may call (docs/decisions.md, "Authentication hardening"):
 * the longest password the schema allows, 1,024 characters, is at most ~6 KiB of JSON even with
 * every character `\u`-escaped.
 * The app's 16 MiB limit let 30 concurrent anonymous logins hold ~550 MB.
 */
const UNAUTHENTICATED_BODY_LIMIT = 8 * 1024;

/** docs/api.md, "Logging in": login (the one public route), logout and verify. */
export const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/auth/login',
    {
      bodyLimit: UNAUTHENTICATED_BODY_LIMIT,
      // Before the body is read or validated: a locked-out address gets 429 whatever it sends.
      onRequest: async (request) => app.auth.refuseLockedOut(request.ip),
      schema: {
        tags: ['auth'],
        summary: 'Log in with the application password',
        body: LoginBody,
        response: { 200: LoginResponse, ...errorResponses(400, 401, 413, 415, 429, 503) },
      },
    },
    async (request, reply) => {
      const token = await app.auth.login(request.body.password, request.ip);
      reply.setCookie(TOKEN_COOKIE, token, app.tokenCookieOptions(request, TOKEN_LIFETIME_SECONDS));
      return { message: 'Login successful', token };
    },
  );

  // Needs no valid token (docs/decisions.md, "Authentication"): always clears the cookie, and revokes a valid token.
  app.post(
    '/auth/logout',
    {
      bodyLimit: UNAUTHENTICATED_BODY_LIMIT,
      schema: {
        tags: ['auth'],
        summary: 'Log out: revoke the token and clear the cookie',
        response: { 200: MessageBody, ...errorResponses(413) },
      },
    },
    async (request, reply) => {
      app.auth.logout(requestToken(request));
      reply.clearCookie(TOKEN_COOKIE, { ...app.tokenCookieOptions(request, 0) });
      return { message: 'Logged out' };
    },
  );

  app.get(
    '/auth/verify',
    {
      onRequest: app.authenticate,
      schema: {
        tags: ['auth'],
        summary: 'Check that the token is valid',
        response: { 200: MessageBody, ...errorResponses(401) },
      },
    },
    async () => ({ message: 'Token is valid' }),
  );
};

/**
 * docs/api.md, "Logging in": `POST /auth/password`, in the scope that demands a token. The new
 * token comes back and in the cookie; every earlier token, this client's too, stops working.
 */
export const passwordRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/auth/password',
    {
      config: { scope: 'session' },
      bodyLimit: UNAUTHENTICATED_BODY_LIMIT * 2,
      schema: {
        tags: ['auth'],
        summary: 'Change the password: revokes every earlier token and answers a new one',
        body: ChangePasswordBody,
        response: { 200: LoginResponse, ...errorResponses(400, 401, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const token = await app.auth.changePassword(request.body.currentPassword, request.body.newPassword, request.ip);
      reply.setCookie(TOKEN_COOKIE, token, app.tokenCookieOptions(request, TOKEN_LIFETIME_SECONDS));
      return { message: 'Password changed', token };
    },
  );
};
