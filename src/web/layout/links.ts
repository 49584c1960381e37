/**
 * Links: the pages' own addresses that hold a name or an id, and addresses a user typed (a
 * story's source URL, an author's links). Of those, only http(s) becomes an `href`; anything else
 * stored in old data (`javascript:`, `data:`, a bare word) is shown as text (docs/decisions.md,
 * "Web interface"; the write rule is in "Validation").
 */

/** The URL as an `href` when it is an absolute http(s) URL, else undefined (show it as text). */
export function safeHref(url: string | null | undefined): string | undefined {
  if (url === null || url === undefined) return undefined;
  const trimmed = url.trim();
  if (!/^https?:\/\//i.test(trimmed)) return undefined;
  try {
    const parsed = new URL(trimmed);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** What a template needs to show an outside address: its text, and an `href` only when it is safe. */
export interface OutsideLink {
  text: string;
  href: string | undefined;
}

export function outsideLink(url: string): OutsideLink {
  return { text: url, href: safeHref(url) };
}

/** `rel` for a link that leaves the site: no opener, no referrer, no endorsement. */
export const OUTSIDE_REL = 'noopener noreferrer nofollow';

/** The page of a tag, its name percent-encoded as one path segment. */
export function tagHref(name: string): string {
  return `/tags/${encodeURIComponent(name)}`;
}

/** The page of a story. */
export function storyHref(id: string): string {
  return `/stories/${encodeURIComponent(id)}`;
}

/** The reader's page of a story's chapter `index` (1-based). */
export function chapterReadHref(storyId: string, index: number): string {
  return `${storyHref(storyId)}/read/${index}`;
}
