import { createHash, randomBytes } from 'node:crypto';

/** Every secret starts so: a token pasted into the wrong place is recognisable as ours. */
const SECRET_PREFIX = 'sst_';
/** Characters shown in lists: the marker and four of the random part, ~16 M values. */
const SHOWN_PREFIX_LENGTH = SECRET_PREFIX.length + 4;

/** A new secret: 32 random bytes, base64url, behind the marker (47 characters). */
export function newSecret(): { secret: string; prefix: string } {
  const secret = SECRET_PREFIX + randomBytes(32).toString('base64url');
  return { secret, prefix: secret.slice(0, SHOWN_PREFIX_LENGTH) };
}

/**
 * What is stored for a secret, and what a presented one is looked up by. A lookup by the SHA-256
 * of a 256-bit secret leaks nothing through timing: learning the stored hash's bytes one by one
 * does not help find a secret that hashes to it.
 */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** KOReader sends `md5(password)` as its key (docs/decisions.md, "KOReader sync"): stored as the SHA-256 of that. */
export function kosyncKeyHash(md5Hex: string): string {
  return secretHash(md5Hex.toLowerCase());
}

/** The key KOReader derives from a secret typed in as its password. */
export function kosyncKeyOf(secret: string): string {
  return createHash('md5').update(secret, 'utf8').digest('hex');
}
