/**
 * Who is told of an update from a source once it is committed (docs/decisions.md, "Sources ›
 * Telling the reader"): the update webhook (src/follow/webhook.ts) when `UPDATE_WEBHOOK_URL` is
 * set, else nobody. Part of the URL import's shared parts, so every refresh tells it, whichever
 * engine, route or job ran it.
 */

/** What a committed check changed (the counts of its `RefreshOutcome`). */
export interface CheckCounts {
  addedChapters: number;
  updatedChapters: number;
}

/** `updated` never throws and never waits for a delivery. */
export interface UpdateNotifier {
  /** Story `storyId`'s check has committed: told when it added or changed chapters. */
  updated(storyId: string, counts: CheckCounts): void;
}

/** No webhook configured. */
export const SILENT_NOTIFIER: UpdateNotifier = { updated: () => undefined };
