/**
 * The images of an imported story (docs/decisions.md, "URL import"): each `<img>` the extractor
 * kept is downloaded through the same SSRF guard as the page and stored by the image store like
 * an upload (JPEG, PNG or WebP by their bytes, structure-checked, metadata stripped, at most the
 * store's 5 MiB), under `inline/`. Its placeholder in the body becomes our own `/api/files/images/inline/...`
 * URL. An image that fails for any reason is dropped: the sanitizer removes a placeholder left
 * in place, so nothing is hot-linked from the story's site.
 */
import { Readable } from 'node:stream';
import { HttpError } from '../../errors.js';
import { imageUrl } from '../../images/image-path.js';
import { MAX_IMAGE_BYTES, type ImageStore } from '../../images/store.js';
import { IMAGE_PLACEHOLDER } from '../image-placeholder.js';
import type { ImportAllowList } from '../../lib/allow-hosts.js';
import { fetchResource } from './fetch.js';

/** All images of one import together: 50 images at the store's 5 MiB each would be 250 MiB. */
export const MAX_IMAGES_TOTAL_BYTES = 50 * 1024 * 1024;
/** All images of one import together; each also ends when this budget does. */
export const IMAGES_TIMEOUT_MS = 30_000;

/**
 * Servers label images loosely (`image/jpg`, `application/octet-stream`, nothing): any of those
 * is read, and the store decides by the bytes. A page or a script is refused unread.
 */
function mayBeImage(type: string): boolean {
  return type === '' || type === 'application/octet-stream' || type.startsWith('image/');
}

/**
 * Downloads and stores one image per entry of `pictures` (each the URLs to try for one picture,
 * best first: the next is tried when one fails), one after another (a story page's images come
 * from one or two hosts; one at a time keeps the load on them polite). Returns, per picture, the
 * stored `inline/<file>` path or `undefined` for a picture that was dropped.
 */
export async function downloadImages(store: ImageStore, pictures: ReadonlyArray<readonly string[]>, allow: ImportAllowList): Promise<Array<string | undefined>> {
  const stored: Array<string | undefined> = [];
  const signal = AbortSignal.timeout(IMAGES_TIMEOUT_MS);
  let total = 0;
  for (const candidates of pictures) {
    let relPath: string | undefined;
    for (const raw of candidates) {
      if (signal.aborted || total >= MAX_IMAGES_TOTAL_BYTES) break;
      try {
        const image = await fetchResource(new URL(raw), {
          allow,
          accept: 'image/webp,image/png,image/jpeg;q=0.9',
          checkType: (type) => {
            if (!mayBeImage(type)) throw new HttpError(415, `not an image: ${type}`);
          },
          maxBytes: Math.min(MAX_IMAGE_BYTES, MAX_IMAGES_TOTAL_BYTES - total),
          tooLarge: () => new HttpError(413, 'image too large'),
          signal,
        });
        total += image.body.length;
        relPath = await store.saveUploadedImage({ fieldname: 'image', file: Readable.from([image.body]) }, 'inline');
        break;
      } catch {
        // the next candidate, if any
      }
    }
    stored.push(relPath);
  }
  return stored;
}

/**
 * Puts each stored image's URL in place of its placeholder in `html` (the extractor's output,
 * where linkedom writes every attribute in double quotes). Placeholders of dropped images stay,
 * for the sanitizer to remove with their `<img>`.
 */
export function placeImages(html: string, stored: ReadonlyArray<string | undefined>): string {
  return html.replace(new RegExp(`src="${IMAGE_PLACEHOLDER}(\\d+)"`, 'g'), (whole, index: string) => {
    const relPath = stored[Number(index)];
    return relPath === undefined ? whole : `src="${imageUrl(relPath)}"`;
  });
}
