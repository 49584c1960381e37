import fs from 'node:fs';
import path from 'node:path';
import { secretsDir, readStoredPassword, type StoredPassword } from './secrets.js';

const RECHECK_MS = 1000;

/**
 * The password in force. `npm run set-password` rewrites `secrets/password.json` while the
 * service runs; this notices (by the file's mtime, looked at most once a second) so the new
 * password works at once and tokens issued before the change die (decisions.md, beyond).
 * With `APP_PASSWORD` the hash stays the environment's; only the revocation time is followed.
 */
export class PasswordState {
  private lastCheck = 0;
  private lastMtimeMs: number;
  private readonly file: string;

  constructor(
    private hash: StoredPassword,
    dataDir: string,
    private readonly fromEnvironment: boolean,
  ) {
    this.file = path.join(secretsDir(dataDir), 'password.json');
    this.lastMtimeMs = this.mtimeMs();
  }

  current(): StoredPassword {
    const now = Date.now();
    if (now - this.lastCheck < RECHECK_MS) return this.hash;
    this.lastCheck = now;
    const mtimeMs = this.mtimeMs();
    if (mtimeMs !== this.lastMtimeMs) {
      this.lastMtimeMs = mtimeMs;
      const stored = readStoredPassword(path.dirname(path.dirname(this.file)));
      if (stored !== undefined) {
        this.hash = this.fromEnvironment ? { ...this.hash, changedAt: stored.changedAt } : stored;
      }
    }
    return this.hash;
  }

  private mtimeMs(): number {
    try {
      return fs.statSync(this.file).mtimeMs;
    } catch {
      return 0;
    }
  }
}
