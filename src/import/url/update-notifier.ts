/**
 * Where an update from a source is told once committed (docs/decisions.md, "Sources › Telling the
 * reader"): the update webhook (src/follow/webhook.ts) when `UPDATE_WEBHOOK_URL` is set, else
 * nobody. Part of the URL import's shared parts, so every refresh, whoever asks for it, tells it.
 */

/** What one notification says. */
export interface UpdateNotice {
  title: string;
  message: string;
}

/** `notify` never throws and never waits for the delivery. */
export interface UpdateNotifier {
  notify(notice: UpdateNotice): void;
}

/** No webhook configured. */
export const SILENT_NOTIFIER: UpdateNotifier = { notify: () => undefined };
