/**
 * How the pages name the reader's statuses (docs/decisions.md, "Reading status"): one label each,
 * for the story page's controls, the library's filter and the cards' badges.
 */
import { READING_STATUSES, type ReadingStatus } from '../schemas/reading-status.js';

export const READING_STATUS_LABELS: Readonly<Record<ReadingStatus, string>> = {
  'want-to-read': 'Want to read',
  reading: 'Reading',
  'on-hold': 'On hold',
  finished: 'Finished',
  abandoned: 'Abandoned',
};

/** The statuses with their labels, in their list order. */
export const READING_STATUS_CHOICES: ReadonlyArray<{ value: ReadingStatus; label: string }> = READING_STATUSES.map((value) => ({
  value,
  label: READING_STATUS_LABELS[value],
}));

/** A stored status as its label, '' for none (or a value this version does not know). */
export function readingStatusLabel(status: string | null): string {
  return status !== null && status in READING_STATUS_LABELS ? READING_STATUS_LABELS[status as ReadingStatus] : '';
}
