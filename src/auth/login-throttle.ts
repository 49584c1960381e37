/** docs/decisions.md, "Authentication › Logging in and out": 10 failed logins from one address within 15 minutes lock it out. */
export const MAX_FAILURES = 10;
export const WINDOW_MS = 15 * 60 * 1000;
/** Bounds memory under a flood of addresses; the oldest entries are forgotten first. */
const MAX_TRACKED_ADDRESSES = 10_000;

/**
 * Counts failed logins per client address in a sliding window. In memory on purpose: a restart
 * forgetting the count is harmless, and a login must not wait on a database write.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Seconds until this address may try again, or 0 when it may try now. */
  retryAfterSeconds(address: string): number {
    const recent = this.recent(address);
    if (recent.length < MAX_FAILURES) return 0;
    const oldest = recent[recent.length - MAX_FAILURES] ?? this.now();
    return Math.max(1, Math.ceil((oldest + WINDOW_MS - this.now()) / 1000));
  }

  /**
   * Counts a login attempt as failed before its password is checked, and returns its time for
   * `forgive`. Counting first is what makes the limit hold under concurrency: the check takes
   * ~50 ms, and attempts counted only after it would all pass `retryAfterSeconds` together.
   */
  recordAttempt(address: string): number {
    const now = this.now();
    const recent = this.recent(address);
    recent.push(now);
    this.failures.delete(address);
    this.failures.set(address, recent.slice(-MAX_FAILURES));
    if (this.failures.size > MAX_TRACKED_ADDRESSES) {
      const oldestAddress = this.failures.keys().next().value;
      if (oldestAddress !== undefined) this.failures.delete(oldestAddress);
    }
    return now;
  }

  /** Uncounts an attempt made at `at` that turned out right (or was never checked). */
  forgive(address: string, at: number): void {
    const recent = this.failures.get(address);
    const index = recent?.lastIndexOf(at) ?? -1;
    if (recent === undefined || index < 0) return;
    recent.splice(index, 1);
    if (recent.length === 0) this.failures.delete(address);
  }

  private recent(address: string): number[] {
    const cutoff = this.now() - WINDOW_MS;
    const kept = (this.failures.get(address) ?? []).filter((time) => time > cutoff);
    if (kept.length === 0) this.failures.delete(address);
    return kept;
  }
}
