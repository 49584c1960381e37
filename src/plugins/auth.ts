import fp from 'fastify-plugin';
import fastifyCookie from '@fastify/cookie';
import fastifyJwt from '@fastify/jwt';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { LoginThrottle } from '../auth/login-throttle.js';
import { PasswordState } from '../auth/password-state.js';
import { requestToken } from '../auth/request-token.js';
import { loadOrCreateJwtSecret, resolvePassword } from '../auth/secrets.js';
import { AuthService, type TokenClaims } from '../auth/service.js';
import { RevokedTokens, TOKEN_LIFETIME_SECONDS } from '../auth/tokens.js';

declare module 'fastify' {
  interface FastifyInstance {
    auth: AuthService;
    /** onRequest hook for every protected route: 401 unless a valid token came with it. */
    authenticate: (request: FastifyRequest) => Promise<void>;
    /** The cookie options of docs/decisions.md, "Authentication", with `Secure` per `COOKIE_SECURE`. */
    tokenCookieOptions: (request: FastifyRequest, maxAge: number) => {
      httpOnly: true;
      path: '/';
      maxAge: number;
      sameSite: 'lax';
      secure: boolean;
    };
  }
  interface FastifyRequest {
    token?: TokenClaims;
  }
}

export type AuthPluginOptions = Pick<Config, 'dataDir' | 'appPassword' | 'jwtSecret' | 'cookieSecure'>;

/**
 * Cookies, JWT signing and the password: resolves the secrets in the data folder (generating
 * them on first start and logging a generated password once), and decorates the app with the
 * auth service and the `authenticate` hook.
 */
export const authPlugin = fp<AuthPluginOptions>(
  async (app, options) => {
    const secret = loadOrCreateJwtSecret(options.dataDir, options.jwtSecret);
    const password = await resolvePassword(options.dataDir, options.appPassword);
    if (password.generated !== undefined) {
      // Shown once, on the very first start; only its hash is kept.
      app.log.warn(
        { generatedPassword: password.generated },
        'No APP_PASSWORD was set and none was stored: generated a login password (shown only this once; change it at /settings or with npm run set-password)',
      );
    }

    await app.register(fastifyCookie);
    await app.register(fastifyJwt, {
      secret,
      sign: { algorithm: 'HS256', expiresIn: TOKEN_LIFETIME_SECONDS },
      // Verified tokens are remembered (up to 1,000, each until its own exp): a client sends the
      // same token with every request, and its HMAC and JSON were most of a token check. The
      // deny list and the password stamp are still checked on every request (AuthService).
      verify: { algorithms: ['HS256'], cache: 1000 },
    });

    const auth = new AuthService({
      jwt: app.jwt,
      revoked: new RevokedTokens(app.db),
      password: new PasswordState(password.hash, options.dataDir, options.appPassword !== undefined, secret),
      throttle: new LoginThrottle(),
    });
    app.decorate('auth', auth);
    app.decorateRequest('token', undefined);
    app.decorate('authenticate', async (request: FastifyRequest) => {
      request.token = auth.verify(requestToken(request));
    });
    app.decorate('tokenCookieOptions', (request: FastifyRequest, maxAge: number) => ({
      httpOnly: true as const,
      path: '/' as const,
      maxAge,
      sameSite: 'lax' as const,
      secure: options.cookieSecure === 'true' || (options.cookieSecure === 'auto' && request.protocol === 'https'),
    }));
  },
  { name: 'storyshelf-auth', fastify: '5.x', dependencies: ['storyshelf-db'] },
);

