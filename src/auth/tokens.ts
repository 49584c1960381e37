import { lt } from 'drizzle-orm';
import type { Db } from '../db/open.js';
import { revokedTokens } from '../db/schema.js';
import { bookkeepingTransaction } from '../db/bookkeeping.js';

/** docs/decisions.md, "Authentication › Tokens and the cookie": tokens and cookies live 24 hours. */
export const TOKEN_LIFETIME_SECONDS = 86_400;

/**
 * The deny list of logged-out tokens (docs/decisions.md, "Authentication › Logging in and out").
 * Kept in SQLite so a logout survives a restart, and mirrored in memory so checking a token costs
 * no query.
 */
export class RevokedTokens {
  private readonly revoked = new Map<string, number>();

  constructor(private readonly db: Db) {
    const nowSeconds = Math.floor(Date.now() / 1000);
    db.delete(revokedTokens).where(lt(revokedTokens.expiresAt, nowSeconds)).run();
    for (const row of db.select().from(revokedTokens).all()) this.revoked.set(row.jti, row.expiresAt);
  }

  has(jti: string): boolean {
    return this.revoked.has(jti);
  }

  /** Remembers `jti` until `expiresAt` (unix seconds), after which the token is dead anyway. */
  add(jti: string, expiresAt: number): void {
    const nowSeconds = Math.floor(Date.now() / 1000);
    bookkeepingTransaction(this.db, (tx) => {
      tx.delete(revokedTokens).where(lt(revokedTokens.expiresAt, nowSeconds)).run();
      tx.insert(revokedTokens).values({ jti, expiresAt }).onConflictDoNothing().run();
    });
    for (const [key, expiry] of this.revoked) if (expiry < nowSeconds) this.revoked.delete(key);
    this.revoked.set(jti, expiresAt);
  }
}
