import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { generatePassword, hashPassword, type PasswordHash } from './password.js';

export const SECRETS_DIR_NAME = 'secrets';
const JWT_SECRET_FILE = 'jwt-secret';
const PASSWORD_FILE = 'password.json';

/** What `password.json` holds: the hash, and when it was set. */
export interface StoredPassword extends PasswordHash {
  /**
   * Unix seconds, for the record. Revocation does not use it (a second is too coarse): tokens
   * carry a stamp of the stored hash instead (password-state.ts).
   */
  changedAt: number;
}

export function secretsDir(dataDir: string): string {
  return path.join(dataDir, SECRETS_DIR_NAME);
}

/** Writes a file readable by the owner only, atomically (temp file + rename). */
function writePrivateFile(file: string, contents: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(temp, contents, { mode: 0o600 });
  fs.renameSync(temp, file);
}

/**
 * The JWT signing secret: `JWT_SECRET` when given, else the one stored in the data folder,
 * generated on first use, so tokens survive restarts and a copy of the folder is a full backup.
 */
export function loadOrCreateJwtSecret(dataDir: string, fromEnv: string | undefined): string {
  if (fromEnv !== undefined) return fromEnv;
  const file = path.join(secretsDir(dataDir), JWT_SECRET_FILE);
  if (fs.existsSync(file)) {
    const stored = fs.readFileSync(file, 'utf8').trim();
    if (stored.length >= 32) return stored;
  }
  const secret = randomBytes(48).toString('base64url');
  writePrivateFile(file, `${secret}\n`);
  return secret;
}

export function readStoredPassword(dataDir: string): StoredPassword | undefined {
  const file = path.join(secretsDir(dataDir), PASSWORD_FILE);
  if (!fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, 'utf8')) as StoredPassword;
}

/** Stores a new password hash; every token issued before this moment stops working. */
export async function storePassword(dataDir: string, password: string): Promise<StoredPassword> {
  const stored: StoredPassword = { ...(await hashPassword(password)), changedAt: Math.floor(Date.now() / 1000) };
  writePrivateFile(path.join(secretsDir(dataDir), PASSWORD_FILE), `${JSON.stringify(stored, null, 2)}\n`);
  return stored;
}

export interface PasswordSource {
  hash: StoredPassword;
  /** Set only on the very first start, when a password was generated and must be shown once. */
  generated?: string;
}

/**
 * The password to check logins against (docs/decisions.md, "Authentication › The password"):
 * `APP_PASSWORD` when set (hashed in memory, never stored), else the stored hash, else a
 * generated one whose hash is stored.
 */
export async function resolvePassword(dataDir: string, fromEnv: string | undefined): Promise<PasswordSource> {
  if (fromEnv !== undefined) {
    const stored = readStoredPassword(dataDir);
    return { hash: { ...(await hashPassword(fromEnv)), changedAt: stored?.changedAt ?? 0 } };
  }
  const stored = readStoredPassword(dataDir);
  if (stored !== undefined) return { hash: stored };
  const generated = generatePassword();
  return { hash: await storePassword(dataDir, generated), generated };
}
