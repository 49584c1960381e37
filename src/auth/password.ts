import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { ServiceUnavailable } from '../errors.js';
import { Semaphore } from '../lib/semaphore.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../schemas/auth.js';

/** scrypt parameters (N=2^15, r=8, p=1): ~50 ms per check on these machines, 32 MiB of memory. */
const PARAMS = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_LENGTH = 32;

/**
 * The bound on password checks, one per app: two at once and 32 waiting (at most ~0.8 s of queue
 * at 50 ms a check), one more refused with 503. Each scrypt takes ~50 ms of a core and 32 MiB, so
 * an unbounded burst of logins would take every core, libuv's threads and hundreds of MiB; two
 * keep the other requests of a 2-core box answered and leave two of libuv's four threads to file
 * I/O, 64 MiB of scrypt memory at most.
 */
export function passwordCheckLimit(): Semaphore {
  return new Semaphore(2, 32, () => new ServiceUnavailable('Too many logins at once; try again shortly'));
}

/** Why a new password is refused (too short or too long), or undefined when it is fine. */
export function newPasswordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`;
  return undefined;
}

export interface PasswordHash {
  algorithm: 'scrypt';
  N: number;
  r: number;
  p: number;
  salt: string;
  hash: string;
}

function deriveKey(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** Hashes a password with a fresh random salt. */
export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const key = await deriveKey(password, salt, PARAMS);
  return { algorithm: 'scrypt', N: PARAMS.N, r: PARAMS.r, p: PARAMS.p, salt: salt.toString('base64'), hash: key.toString('base64') };
}

/**
 * Checks a candidate against a stored hash. The candidate always goes through scrypt and the
 * keys are compared with `timingSafeEqual`, so the answer takes the same time right or wrong.
 */
export async function verifyPassword(candidate: string, stored: PasswordHash): Promise<boolean> {
  const expected = Buffer.from(stored.hash, 'base64');
  const key = await deriveKey(candidate, Buffer.from(stored.salt, 'base64'), {
    N: stored.N,
    r: stored.r,
    p: stored.p,
    maxmem: PARAMS.maxmem,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A random password for the very first start: 20 characters of URL-safe base64. */
export function generatePassword(): string {
  return randomBytes(15).toString('base64url');
}
