import { isHttpUrl } from '../../validation.js';

/**
 * A stored URL as a page shows it: a link only when it is http(s); anything else old data may
 * hold (`javascript:`, `data:`...) is shown as text, never as an `href` (docs/decisions.md,
 * "Validation").
 */
export type SafeLink = { href: string; text: string } | { href: undefined; text: string };

export function safeLink(url: string): SafeLink {
  const text = url.trim();
  return isHttpUrl(text) ? { href: text, text } : { href: undefined, text };
}

/** The page of a tag, its name percent-encoded as one path segment. */
export function tagHref(name: string): string {
  return `/tags/${encodeURIComponent(name)}`;
}
