import { randomUUID } from 'node:crypto';
import type { JWT } from '@fastify/jwt';
import { Conflict, invalidField, TooManyRequests, Unauthorized } from '../errors.js';
import type { Semaphore } from '../lib/semaphore.js';
import type { LoginThrottle } from './login-throttle.js';
import { newPasswordProblem, verifyPassword } from './password.js';
import type { PasswordInForce, PasswordState } from './password-state.js';
import { TOKEN_LIFETIME_SECONDS, type RevokedTokens } from './tokens.js';

export interface TokenClaims {
  jti: string;
  iat: number;
  exp: number;
}

interface AuthDeps {
  jwt: JWT;
  revoked: RevokedTokens;
  password: PasswordState;
  throttle: LoginThrottle;
  /** The bound on concurrent password checks (src/auth/password.ts, `passwordCheckLimit`). */
  checks: Semaphore;
}

/** Login, token checks and logout (docs/api.md, "Logging in"; docs/decisions.md, "Authentication"). */
export class AuthService {
  constructor(private readonly deps: AuthDeps) {}

  /** True while `APP_PASSWORD` sets the password, so {@link changePassword} refuses. */
  get passwordSetByEnvironment(): boolean {
    return this.deps.password.setByEnvironment;
  }

  /** 429 when `address` is locked out; the login route runs it before reading the body. */
  refuseLockedOut(address: string): void {
    const wait = this.deps.throttle.retryAfterSeconds(address);
    if (wait > 0) throw new TooManyRequests('Too many failed logins; try again later', wait);
  }

  /** Counts a failed attempt that was not a password (a wrong device token) against `address`. */
  recordFailure(address: string): void {
    this.deps.throttle.recordAttempt(address);
  }

  /** Checks the password, throttled ({@link check}), and issues a 24-hour token with its own id. */
  async login(password: string, address: string): Promise<string> {
    return this.issueToken(await this.check(password, address));
  }

  /**
   * Changes the password (docs/decisions.md, "Settings page"): `current` goes through the same
   * throttled, bounded check as a login (a wrong one counts as a failed login from `address`),
   * `next` must follow the rules of `npm run set-password`. The new hash is stored and in force
   * at once, so every token issued before, on every device, stops working; the answer is a
   * fresh token for the new password, so the caller stays logged in. Refused with 409 while
   * `APP_PASSWORD` is set: the environment's password would win again on the next start.
   */
  async changePassword(current: string, next: string, address: string): Promise<string> {
    if (this.deps.password.setByEnvironment) {
      throw new Conflict('The password is set by APP_PASSWORD in the environment; change it there (a stored password would be ignored)');
    }
    const problem = newPasswordProblem(next);
    if (problem !== undefined) throw invalidField('newPassword', problem);
    await this.check(current, address);
    return this.issueToken(await this.deps.password.store(next));
  }

  /**
   * Checks the password (after the throttle, so a locked-out address is refused even with the
   * right one) and answers the password in force it was checked against. The attempt counts as
   * a failure from before the check until it proves right, so concurrent attempts cannot all
   * slip past the limit; at most a few checks run at once (`deps.checks`).
   */
  private async check(password: string, address: string): Promise<PasswordInForce> {
    const { throttle, password: state } = this.deps;
    this.refuseLockedOut(address);
    const attempt = throttle.recordAttempt(address);
    const checked = state.fresh();
    let right: boolean;
    try {
      right = await this.deps.checks.run(() => verifyPassword(password, checked.hash));
    } catch (error) {
      throttle.forgive(address, attempt);
      throw error;
    }
    // A password changed during the check makes the old one wrong, and its token dead at birth.
    if (!right || state.fresh().stamp !== checked.stamp) throw new Unauthorized('Invalid password');
    throttle.forgive(address, attempt);
    return checked;
  }

  /**
   * A 24-hour token for the password in force (or `under`, the one a login was checked
   * against): its own id, so it can be revoked alone, and the password's stamp, so a password
   * change revokes it (password-state.ts).
   */
  issueToken(under: PasswordInForce = this.deps.password.fresh()): string {
    return this.deps.jwt.sign({ jti: randomUUID(), pwv: under.stamp }, { expiresIn: TOKEN_LIFETIME_SECONDS });
  }

  /** The claims of a valid token; throws 401 for a missing, bad, expired or revoked one. */
  verify(token: string | undefined): TokenClaims {
    if (token === undefined || token === '') throw new Unauthorized('Authentication required');
    let claims: Partial<TokenClaims> & { pwv?: unknown };
    try {
      claims = this.deps.jwt.verify<Partial<TokenClaims> & { pwv?: unknown }>(token);
    } catch {
      throw new Unauthorized('Invalid or expired token');
    }
    const { jti, iat, exp, pwv } = claims;
    if (typeof jti !== 'string' || typeof iat !== 'number' || typeof exp !== 'number') {
      throw new Unauthorized('Invalid or expired token');
    }
    if (this.deps.revoked.has(jti) || pwv !== this.deps.password.current().stamp) {
      throw new Unauthorized('Invalid or expired token');
    }
    return { jti, iat, exp };
  }

  /** Revokes the token if it is valid; a bad or missing token needs no revoking. */
  logout(token: string | undefined): void {
    let claims: TokenClaims;
    try {
      claims = this.verify(token);
    } catch {
      return;
    }
    this.deps.revoked.add(claims.jti, claims.exp);
  }
}
