import fp from 'fastify-plugin';
import fastifyCookie from '@fastify/cookie';
import fastifyJwt from '@fastify/jwt';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { LoginThrottle } from '../auth/login-throttle.js';
import { PasswordState } from '../auth/password-state.js';
import { passwordCheckLimit } from '../auth/password.js';
import { loadOrCreateJwtSecret, resolvePassword } from '../auth/secrets.js';
import { AuthService, type TokenClaims } from '../auth/service.js';
import { devicePrincipal, principalOf, requireScope, type Principal, type RouteScope } from '../auth/principal.js';
import { ProxyLogin } from '../auth/proxy-login.js';
import { DeviceTokens } from '../tokens/service.js';
import { RevokedTokens, TOKEN_LIFETIME_SECONDS } from '../auth/tokens.js';

declare module 'fastify' {
  interface FastifyInstance {
    auth: AuthService;
    deviceTokens: DeviceTokens;
    /** The login proxy's check, when `AUTH_PROXY_HEADER` is set (docs/decisions.md, "Proxy login"). */
    proxyLogin: ProxyLogin | undefined;
    /**
     * onRequest hook for every protected route: 401 unless valid credentials came with it (a
     * login token, or a device token), 403 when a device token lacks the route's scope.
     */
    authenticate: (request: FastifyRequest) => Promise<void>;
    /** The same for a device token taken from the path (the OPDS path form): sets `principal` or throws 401/403. */
    authenticateDevice: (request: FastifyRequest, secret: string) => void;
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
    /** The login token's claims when the request came with one (not for a device token). */
    token?: TokenClaims;
    principal?: Principal;
  }
  interface FastifyContextConfig {
    /** What a device token needs to use the route (src/auth/principal.ts, `requireScope`). */
    scope?: RouteScope;
  }
}

export type AuthPluginOptions = Pick<Config, 'dataDir' | 'appPassword' | 'jwtSecret' | 'cookieSecure' | 'authProxy'>;

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
      checks: passwordCheckLimit(),
    });
    const deviceTokens = new DeviceTokens(app.db);
    const proxy = options.authProxy === undefined ? undefined : new ProxyLogin(options.authProxy, app.log);
    app.decorate('auth', auth);
    app.decorate('deviceTokens', deviceTokens);
    app.decorate('proxyLogin', proxy);
    app.decorateRequest('token', undefined);
    app.decorateRequest('principal', undefined);
    const admit = (request: FastifyRequest, principal: Principal) => {
      request.principal = principal;
      if (principal.kind === 'session') request.token = principal.claims;
      requireScope(request, principal);
    };
    app.decorate('authenticate', async (request: FastifyRequest) => admit(request, principalOf(request, { auth, deviceTokens, proxy })));
    app.decorate('authenticateDevice', (request: FastifyRequest, secret: string) =>
      admit(request, devicePrincipal(request, secret, { auth, deviceTokens })),
    );
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

