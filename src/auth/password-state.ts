import fs from 'node:fs';
import path from 'node:path';
import { createHmac } from 'node:crypto';
import { secretsDir, readStoredPassword, storePassword, type StoredPassword } from './secrets.js';

const RECHECK_MS = 1000;

/** The password in force, and the stamp every token issued under it carries. */
export interface PasswordInForce {
  /** What a login is checked against. */
  hash: StoredPassword;
  /**
   * A short keyed digest of the stored password (its salt and hash), or of nothing when no
   * password is stored: a token is valid only while its `pwv` claim equals it, so a change kills
   * exactly the tokens issued before it, however close in time (docs/decisions.md,
   * "Authentication hardening").
   */
  stamp: string;
}

/** 16 bytes of HMAC-SHA256 keyed with the token secret: says which password, reveals nothing. */
function stampOf(stored: StoredPassword | undefined, secret: string): string {
  const subject = stored === undefined ? 'none' : `${stored.salt}$${stored.hash}`;
  return createHmac('sha256', secret).update(`password-version:${subject}`).digest('base64url').slice(0, 22);
}

/**
 * The password in force. `npm run set-password` rewrites `secrets/password.json` while the
 * service runs; this notices (by the file's identity: a rename gives it a new inode) so the new
 * password works at once and tokens issued before the change die (docs/decisions.md,
 * "Authentication › The password").
 * Token checks look at the file at most once a second (`current`); a login looks every time
 * (`fresh`), its scrypt costing thousands of times more than a `stat`.
 * With `APP_PASSWORD` the hash stays the environment's; the stamp still follows the file.
 */
export class PasswordState {
  private lastCheck = 0;
  private fileIdentity: string;
  private state: PasswordInForce;
  private readonly file: string;

  constructor(
    private readonly initial: StoredPassword,
    private readonly dataDir: string,
    private readonly fromEnvironment: boolean,
    private readonly secret: string,
  ) {
    this.file = path.join(secretsDir(dataDir), 'password.json');
    this.fileIdentity = this.identity();
    this.state = this.load() ?? { hash: initial, stamp: stampOf(undefined, secret) };
  }

  /** The state as of at most a second ago: for token checks on every request. */
  current(): PasswordInForce {
    if (Date.now() - this.lastCheck < RECHECK_MS) return this.state;
    return this.fresh();
  }

  /** The state as the file is now: for logins, so a changed password is never missed. */
  fresh(): PasswordInForce {
    this.lastCheck = Date.now();
    const identity = this.identity();
    if (identity !== this.fileIdentity) {
      this.fileIdentity = identity;
      this.state = this.load() ?? this.state;
    }
    return this.state;
  }

  /** True when `APP_PASSWORD` sets the password: a stored one would be ignored (secrets.ts, `resolvePassword`). */
  get setByEnvironment(): boolean {
    return this.fromEnvironment;
  }

  /**
   * Stores a new password (as `npm run set-password` does) and takes it in force at once: every
   * token issued under an earlier one stops working on its next check.
   */
  async store(password: string): Promise<PasswordInForce> {
    await storePassword(this.dataDir, password);
    this.lastCheck = Date.now();
    this.fileIdentity = this.identity();
    this.state = this.load() ?? this.state;
    return this.state;
  }

  private load(): PasswordInForce | undefined {
    const stored = readStoredPassword(this.dataDir);
    if (stored === undefined) return undefined;
    const hash = this.fromEnvironment ? { ...this.initial, changedAt: stored.changedAt } : stored;
    return { hash, stamp: stampOf(stored, this.secret) };
  }

  private identity(): string {
    try {
      const stat = fs.statSync(this.file);
      return `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
    } catch {
      return '';
    }
  }
}
