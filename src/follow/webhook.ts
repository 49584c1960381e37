/**
 * The update webhook (docs/decisions.md, "Sources › Telling the reader"): one JSON POST per update
 * that added or changed chapters, `{topic, title, message}`, the body ntfy (published to its root
 * URL), Gotify (`/message?token=…`) and a Home Assistant webhook trigger all accept. Sent after
 * the update's transaction committed, never inside it, and best-effort: at most
 * {@link WEBHOOK_RUNNING} posts at once and {@link WEBHOOK_WAITING} waiting, a post past that
 * dropped, each bounded by {@link WEBHOOK_TIMEOUT_MS}, no redirect followed, and a failure
 * logged and nothing else: a refresh never fails for it. The address is the admin's own, so the
 * import's private-address guard does not apply to it; the log names only its origin, since its
 * path or query may hold a token.
 */
import http from 'node:http';
import https from 'node:https';
import type { UpdateWebhookConfig } from '../config.js';
import { APP_IDENTITY } from '../lib/app-version.js';
import { Semaphore } from '../lib/semaphore.js';
import type { WarnLog } from '../lib/warn-log.js';
import type { Db } from '../db/open.js';
import type { CheckCounts, UpdateNotifier } from '../import/url/update-notifier.js';
import { updateSummary, updateTitle } from './present.js';
import { newestUpdateOf } from './updates-repository.js';

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const WEBHOOK_RUNNING = 2;
export const WEBHOOK_WAITING = 100;

/** Posts `body` to `url`: resolves on a 2xx answer, rejects on anything else (a redirect included) or after `signal` aborts. */
function post(url: URL, body: string, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      signal,
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(body),
        'User-Agent': `Storyshelf/${APP_IDENTITY.version}`,
      },
    });
    request.once('response', (response) => {
      // The answer is not read: nothing in it is used, so it is drained and dropped.
      response.resume();
      const status = response.statusCode ?? 0;
      if (status >= 200 && status < 300) resolve();
      else reject(new Error(`HTTP ${status}`));
    });
    request.once('error', reject);
    request.end(body);
  });
}

/** What one notification says. */
export interface UpdateNotice {
  title: string;
  message: string;
}

/** The webhook of `UPDATE_WEBHOOK_URL`; `close` aborts the posts in flight and drops the waiting ones. */
export class UpdateWebhook implements UpdateNotifier {
  readonly #slots = new Semaphore(WEBHOOK_RUNNING, WEBHOOK_WAITING);
  readonly #closing = new AbortController();
  readonly #pending = new Set<Promise<void>>();

  constructor(
    private readonly config: UpdateWebhookConfig,
    private readonly log: WarnLog,
    private readonly db: Db,
  ) {}

  /** Posts the story's newest update (the one its check just logged) when it added or changed chapters. */
  updated(storyId: string, counts: CheckCounts): void {
    if (counts.addedChapters + counts.updatedChapters === 0) return;
    const row = newestUpdateOf(this.db, storyId);
    if (row !== undefined) this.notify({ title: updateTitle(row), message: updateSummary(row) });
  }

  /** Queues one post of `notice`. */
  notify(notice: UpdateNotice): void {
    if (this.#closing.signal.aborted) return;
    const body = JSON.stringify({ topic: this.config.topic, title: notice.title, message: notice.message });
    const delivery = this.#slots
      .run(() => post(this.config.url, body, AbortSignal.any([this.#closing.signal, AbortSignal.timeout(WEBHOOK_TIMEOUT_MS)])))
      .catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        this.log.warn({ webhook: this.config.url.origin, reason }, 'The update webhook was not delivered');
      })
      .finally(() => this.#pending.delete(delivery));
    this.#pending.add(delivery);
  }

  /** Waits for what is in flight (the tests' way to see a post has ended). */
  async settled(): Promise<void> {
    await Promise.all([...this.#pending]);
  }

  async close(): Promise<void> {
    this.#closing.abort();
    await this.settled();
  }
}
