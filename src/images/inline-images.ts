/**
 * The one owner of "the stored images this HTML names" (docs/decisions.md, "URL import" and
 * "Library archive"). A story body names a stored image by its URL, `/api/files/images/<kind>/<name>`
 * with the path guard's exact shape (./image-path.ts): the sanitizer keeps no other local image
 * source, so this text form is the whole contract. An imported story's pictures are stored under
 * `inline/`; unlike a cover, no column holds them: the body is the reference. The archive export,
 * the backup, the deletes and edits that release images, the startup sweep and the EPUB all read
 * bodies through this module, so none of them can miss a kind the others see.
 *
 * It reads the text, not a DOM: the startup sweep and the backup read every body that names an
 * image, and a regular expression over sanitized HTML is a scan, not a parse. A name in a link or
 * in the text counts too, which errs on keeping an image.
 */
import { IMAGE_PATH_SOURCE, IMAGE_URL_PREFIX } from './image-path.js';

/** Where an inline image is served, as it appears in a story body. */
export const INLINE_IMAGE_PREFIX = `${IMAGE_URL_PREFIX}inline/`;

/**
 * A stored image's URL; group 1 is its `<kind>/<name>` path. Not the tail of a longer URL (another
 * site's `https://x.example/api/files/images/...`), not followed by more of a name.
 */
const STORED_IMAGE_URL = new RegExp(`(?<![\\w.~%:@/-])${IMAGE_URL_PREFIX.replaceAll('/', '\\/')}(${IMAGE_PATH_SOURCE.replace(/\((?!\?)/g, '(?:')})(?![A-Za-z0-9_.-])`, 'g');
const ONE_SOURCE = new RegExp(`^${STORED_IMAGE_URL.source}$`);

/** The `<kind>/<name>` paths of every stored image `html` names, each once, in order of first mention. */
export function storedImagePaths(html: string | null | undefined): string[] {
  if (html === null || html === undefined || !html.includes(IMAGE_URL_PREFIX)) return [];
  return [...new Set([...html.matchAll(STORED_IMAGE_URL)].map((match) => match[1] as string))];
}

/** The `inline/<file>` paths `html` names: the images a story body alone keeps alive. */
export function inlineImagePaths(html: string | null | undefined): string[] {
  return storedImagePaths(html).filter((relPath) => relPath.startsWith('inline/'));
}

/** The stored image one `src` names (surrounding white space ignored, as the sanitizer does), or undefined. */
export function storedImageOfSource(src: string): string | undefined {
  return ONE_SOURCE.exec(src.trim())?.[1];
}

/** `html` with the URL of every stored image it names replaced by `replace(relPath)`. */
export function replaceStoredImageUrls(html: string, replace: (relPath: string) => string): string {
  return html.replace(STORED_IMAGE_URL, (_url, relPath: string) => replace(relPath));
}

/** The inline paths `before` names that `after` no longer does: what an edit of a body releases. */
export function releasedInlineImages(before: string | null | undefined, after: string | null | undefined): string[] {
  const kept = new Set(inlineImagePaths(after));
  return inlineImagePaths(before).filter((relPath) => !kept.has(relPath));
}
