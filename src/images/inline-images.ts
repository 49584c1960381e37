/**
 * Images inside story bodies (docs/decisions.md, "URL import"): an imported story's pictures are
 * stored under `inline/` and its HTML names each as `/api/files/images/inline/<file>`. Unlike a
 * cover, no column holds them: the body is the reference. This module reads those references.
 */

/** Where an inline image is served, as it appears in a story body. */
export const INLINE_IMAGE_PREFIX = '/api/files/images/inline/';

const INLINE_IMAGE_URL = /\/api\/files\/images\/(inline\/[A-Za-z0-9][A-Za-z0-9_-]{0,127}\.(?:jpg|png|webp))/g;

/** The `inline/<file>` paths a story body names, each once, in order. */
export function inlineImagePaths(html: string | null | undefined): string[] {
  if (html === null || html === undefined || !html.includes(INLINE_IMAGE_PREFIX)) return [];
  return [...new Set([...html.matchAll(INLINE_IMAGE_URL)].map((match) => match[1] as string))];
}

/** The paths `before` names that `after` no longer does: what an edit of a body releases. */
export function releasedInlineImages(before: string | null | undefined, after: string | null | undefined): string[] {
  const kept = new Set(inlineImagePaths(after));
  return inlineImagePaths(before).filter((relPath) => !kept.has(relPath));
}
