import { randomUUID } from 'node:crypto';

/** Now as stored and returned everywhere: ISO 8601 UTC with milliseconds. */
export function nowIso(): string {
  return new Date().toISOString();
}

/**
 * The one rule for `updatedAt` (docs/decisions.md "Shapes and values"): every write that changes a
 * row stamps it with `nextUpdatedAt(its previous updatedAt)`, which is now, or 1 ms after the
 * previous value when the clock has not moved on, so every change visibly changes the stamp and
 * sorts after the state it replaced. A new row takes {@link nowIso} for both stamps.
 */
export function nextUpdatedAt(previous: string): string {
  const now = nowIso();
  return now > previous ? now : new Date(Date.parse(previous) + 1).toISOString();
}

/** A new lowercase UUID v4 for a story, author, series or tag. */
export function newId(): string {
  return randomUUID();
}
