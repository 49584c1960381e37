import type { FastifyPluginAsync } from 'fastify';
import { TooManyRequests, Unauthorized } from '../../errors.js';
import { requestToken, TOKEN_COOKIE } from '../../auth/request-token.js';
import { personSignedIn } from '../../auth/principal.js';
import { TOKEN_LIFETIME_SECONDS } from '../../auth/tokens.js';
import { render, template } from '../render.js';
import { formFields } from '../form.js';
import { safeNext } from './next.js';
import { loginView, throttledSentence, type LoginView } from './view.js';

export const LOGIN_TEMPLATE = template<LoginView>('login/login');

/** Where an unauthenticated request is sent: `/login`, with the page it asked for as `next` (a safe path, else `/`). */
export function loginPath(next: string | undefined): string {
  return next === undefined ? '/login' : `/login?next=${encodeURIComponent(safeNext(next))}`;
}

/**
 * The login page, the form post and logout (docs/web.md, "Login"). The form uses the API's auth
 * service, throttle included, and sets the same `token` cookie as `POST /api/auth/login`.
 */
export const loginRoutes: FastifyPluginAsync = async (app) => {
  app.get<{ Querystring: { next?: string } }>('/login', { config: { publicPage: true } }, async (request, reply) => {
    const next = safeNext(request.query.next);
    if (personSignedIn(request)) return reply.redirect(next, 303);
    return render(reply, LOGIN_TEMPLATE, loginView(next));
  });

  app.post('/login', { config: { publicPage: true }, bodyLimit: 8 * 1024 }, async (request, reply) => {
    const form = formFields(request.body);
    const next = safeNext(form.first('next'));
    const password = form.first('password') ?? '';
    if (password === '' || password.length > 1024) {
      return render(reply, LOGIN_TEMPLATE, loginView(next, { password: 'Enter the password.' }), 400);
    }
    let token: string;
    try {
      token = await app.auth.login(password, request.ip);
    } catch (error) {
      if (error instanceof TooManyRequests) {
        reply.header('Retry-After', String(error.retryAfterSeconds));
        return render(reply, LOGIN_TEMPLATE, loginView(next, { form: throttledSentence(error.retryAfterSeconds) }), 429);
      }
      if (error instanceof Unauthorized) return render(reply, LOGIN_TEMPLATE, loginView(next, { password: 'Wrong password.' }), 401);
      throw error;
    }
    reply.setCookie(TOKEN_COOKIE, token, app.tokenCookieOptions(request, TOKEN_LIFETIME_SECONDS));
    return reply.redirect(next, 303);
  });

  // Needs no valid token, like the API's logout: clears the cookie, and revokes a valid token.
  app.post('/logout', { config: { publicPage: true }, bodyLimit: 8 * 1024 }, async (request, reply) => {
    app.auth.logout(requestToken(request));
    reply.clearCookie(TOKEN_COOKIE, { ...app.tokenCookieOptions(request, 0) });
    return reply.redirect('/login', 303);
  });
};
