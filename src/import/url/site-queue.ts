/**
 * Politeness towards the sites pages are fetched from (docs/decisions.md, "Sources"), whatever
 * asks (an import, a refresh, the schedule): at most one request at a time per site, a pause
 * between two requests to one site, the pause a site asks for with `Retry-After` honoured, and
 * a longer pause after each failure in a row. One queue per app (src/plugins/url-import.ts),
 * keyed by host, so a slow or failing site never holds up the others.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpError } from '../../errors.js';
import { KeyedLock } from '../../lib/keyed-lock.js';
import { siteAsksToWait, siteQueueTimedOut, UpstreamStatus } from './errors.js';

/** Failures in a row double the pause up to this many times (2 s becomes at most 128 s). */
const BACKOFF_DOUBLINGS = 6;
/** A request retries a 429 or 503 at most this many times before it fails. */
const RETRIES = 2;
/** Hosts whose pause has passed are forgotten once this many are remembered. */
const REMEMBERED_HOSTS = 1000;

export interface SiteQueueOptions {
  /** The pause between the end of one request to a site and the start of the next. */
  delayMs: number;
  /** The clock, for tests. */
  now?: () => number;
}

interface SiteState {
  /** No request to the site starts before this time (ms since the epoch). */
  notBefore: number;
  /** Failures in a row (an error status, no answer); a success resets it. */
  failures: number;
}

export interface QueueRunOptions {
  /** Aborts the wait and the request. */
  signal: AbortSignal;
  /** The longest a request may wait for its turn and for a pause the site asked for. */
  maxWaitMs: number;
}

/**
 * Is this failure the site's, so that the next request to it should wait longer? An error
 * status of 429 or 5xx, no answer or an unreadable one (502), running out of time (504, or the
 * abort itself); not our own refusals (a private address, too large, not HTML).
 */
function siteFailed(error: unknown): boolean {
  if (error instanceof UpstreamStatus) return error.status === 429 || error.status >= 500;
  if (error instanceof HttpError) return error.statusCode === 502 || error.statusCode === 504;
  return true;
}

/** One app's politeness: see the file comment. */
export class SiteQueue {
  readonly #lock = new KeyedLock();
  readonly #sites = new Map<string, SiteState>();
  readonly #delayMs: number;
  readonly #now: () => number;

  constructor({ delayMs, now = Date.now }: SiteQueueOptions) {
    this.#delayMs = delayMs;
    this.#now = now;
  }

  /**
   * Runs `request` when it is the site's turn: after every earlier request to `host` and the
   * pause after it. A 429 or 503 answer (an {@link UpstreamStatus}) is retried up to
   * {@link RETRIES} times after the pause the site asked for, when that pause fits `maxWaitMs`;
   * a longer one is 503 at once. Waiting longer than `maxWaitMs` for the turn is 503 too.
   */
  async run<T>(host: string, options: QueueRunOptions, request: () => Promise<T>): Promise<T> {
    const queuedAt = this.#now();
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.#lock.run(host, () => this.#turn(host, queuedAt, options, request));
      } catch (error) {
        if (!(error instanceof UpstreamStatus) || (error.status !== 429 && error.status !== 503) || attempt >= RETRIES) throw error;
        const pause = error.retryAfterMs ?? this.#pauseAfter(this.#state(host).failures);
        if (pause > options.maxWaitMs) throw siteAsksToWait(Math.ceil(pause / 1000));
      }
    }
  }

  async #turn<T>(host: string, queuedAt: number, options: QueueRunOptions, request: () => Promise<T>): Promise<T> {
    const state = this.#state(host);
    const wait = state.notBefore - this.#now();
    if (wait > 0) {
      if (this.#now() + wait - queuedAt > options.maxWaitMs) throw siteQueueTimedOut(Math.ceil(options.maxWaitMs / 1000));
      await sleep(wait, undefined, { signal: options.signal });
    }
    try {
      const result = await request();
      state.failures = 0;
      state.notBefore = this.#now() + this.#delayMs;
      return result;
    } catch (error) {
      if (siteFailed(error)) state.failures += 1;
      const asked = error instanceof UpstreamStatus ? error.retryAfterMs : undefined;
      state.notBefore = this.#now() + Math.max(asked ?? 0, this.#pauseAfter(state.failures));
      throw error;
    }
  }

  /** The pause after `failures` failures in a row: the delay, doubled per failure. */
  #pauseAfter(failures: number): number {
    return this.#delayMs * 2 ** Math.min(failures, BACKOFF_DOUBLINGS);
  }

  #state(host: string): SiteState {
    let state = this.#sites.get(host);
    if (state === undefined) {
      if (this.#sites.size >= REMEMBERED_HOSTS) this.#forgetIdle();
      state = { notBefore: 0, failures: 0 };
      this.#sites.set(host, state);
    }
    return state;
  }

  /** Drops the hosts whose pause has passed and that have no failures to remember. */
  #forgetIdle(): void {
    const now = this.#now();
    for (const [host, state] of this.#sites) if (state.notBefore <= now && state.failures === 0) this.#sites.delete(host);
  }

  /** Hosts remembered (for tests: the map must not grow without bound). */
  get size(): number {
    return this.#sites.size;
  }
}
