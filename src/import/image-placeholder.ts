/**
 * Image placeholders in imported text. `IMAGE_PLACEHOLDER` is the scheme an extracted page's
 * `contentHtml` carries (written by the extractor, ./html-story.ts, in its worker; replaced by the
 * image downloader, ./url/images.ts, on the main thread, before sanitizing). Text sanitized in a
 * worker (an EPUB's chapters, an archive work's) carries placeholders of the stored-image URL
 * shape instead, which the sanitizer keeps: {@link placeStoredImages} puts the stored pictures in
 * their place. A module of its own so the main thread does not load the extractor's Readability
 * and linkedom to read one string.
 */
import { imageUrl } from '../images/image-path.js';
import { replaceStoredImageUrls } from '../images/inline-images.js';

export const IMAGE_PLACEHOLDER = 'storyshelf-import:';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Sanitized `html` with each stored picture's URL in place of its placeholder (`stored`: the
 * placeholder's `inline/<file>` path to the stored one) and the `<img>` of each `refused`
 * placeholder URL removed whole (the sanitizer writes each attribute in double quotes).
 */
export function placeStoredImages(html: string, refused: readonly string[], stored: ReadonlyMap<string, string>): string {
  let placed = html;
  for (const placeholder of refused) placed = placed.replace(new RegExp(`<img\\b[^>]*\\ssrc="${escapeRegExp(placeholder)}"[^>]*>`, 'g'), '');
  return replaceStoredImageUrls(placed, (relPath) => imageUrl(stored.get(relPath) ?? relPath));
}
