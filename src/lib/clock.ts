import { randomUUID } from 'node:crypto';

/** Now as stored and returned everywhere: ISO 8601 UTC with milliseconds. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** A new lowercase UUID v4 for a story, author, series or tag. */
export function newId(): string {
  return randomUUID();
}
