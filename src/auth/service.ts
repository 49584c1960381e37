import { randomUUID } from 'node:crypto';
import type { JWT } from '@fastify/jwt';
import { TooManyRequests, Unauthorized } from '../errors.js';
import type { LoginThrottle } from './login-throttle.js';
import { verifyPassword } from './password.js';
import type { PasswordState } from './password-state.js';
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
}

/** Login, token checks and logout (spec section 5 and decisions.md, "Authentication"). */
export class AuthService {
  constructor(private readonly deps: AuthDeps) {}

  /**
   * Checks the password (after the throttle, so a locked-out address is refused even with the
   * right one) and issues a 24-hour token with its own id, so it can be revoked alone.
   */
  async login(password: string, address: string): Promise<string> {
    const { throttle, password: state } = this.deps;
    const wait = throttle.retryAfterSeconds(address);
    if (wait > 0) throw new TooManyRequests('Too many failed logins; try again later', wait);
    if (!(await verifyPassword(password, state.current()))) {
      throttle.recordFailure(address);
      throw new Unauthorized('Invalid password');
    }
    return this.issueToken();
  }

  /**
   * Signs a 24-hour token with its own id for the password in force, without checking one:
   * `login` calls it once the password is right, and tests use it to skip the scrypt check.
   */
  issueToken(): string {
    return this.deps.jwt.sign({ jti: randomUUID() }, { expiresIn: TOKEN_LIFETIME_SECONDS });
  }

  /** The claims of a valid token; throws 401 for a missing, bad, expired or revoked one. */
  verify(token: string | undefined): TokenClaims {
    if (token === undefined || token === '') throw new Unauthorized('Authentication required');
    let claims: Partial<TokenClaims>;
    try {
      claims = this.deps.jwt.verify<Partial<TokenClaims>>(token);
    } catch {
      throw new Unauthorized('Invalid or expired token');
    }
    const { jti, iat, exp } = claims;
    if (typeof jti !== 'string' || typeof iat !== 'number' || typeof exp !== 'number') {
      throw new Unauthorized('Invalid or expired token');
    }
    if (this.deps.revoked.has(jti) || iat < this.deps.password.current().changedAt) {
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
