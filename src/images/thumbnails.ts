/**
 * Thumbnails and metadata stripping: the image work done with sharp (libvips), kept apart from
 * the store's paths (the store, src/images/store.ts, decides every path and calls these with
 * paths it joined; docs/decisions.md, "Thumbnails and image metadata").
 *
 * Every sharp job of an image store runs through its one small queue of {@link
 * MAX_CONCURRENT_RENDERS} ({@link createRenderQueue}), and libvips itself is held to {@link
 * SHARP_THREADS} thread per job, so a burst of grid requests for missing thumbnails keeps at most
 * two cores busy and queues the rest.
 */
import { Semaphore } from '../lib/semaphore.js';
import type { ThumbnailFormat, ThumbnailWidth } from '../schemas/files.js';
import type { ImageFormat } from './formats.js';

/** The file extension of each thumbnail format. */
export const THUMBNAIL_EXTENSIONS: Readonly<Record<ThumbnailFormat, string>> = { webp: '.webp', jpeg: '.jpg' };

/** Thumbnails live in `images/.thumbs/<width>/<kind>/<name>.webp` (or `.jpg`): derived data, never backed up. */
export const THUMBS_DIR = '.thumbs';

/** sharp jobs (thumbnail or metadata strip) running at once; more wait in order. */
export const MAX_CONCURRENT_RENDERS = 2;

/** libvips threads per sharp job (its default is one per core). */
export const SHARP_THREADS = 1;

/** WebP and JPEG quality of thumbnails (sharp's default, stated so a change is deliberate). */
const THUMBNAIL_QUALITY = 80;

/** JPEG and WebP quality when an image must be re-encoded to drop its metadata (see {@link stripMetadata}). */
const REENCODE_QUALITY = 90;

type Sharp = (typeof import('sharp'))['default'];
let loaded: Promise<Sharp> | undefined;

/**
 * sharp, loaded on the first image job rather than at start-up: loading libvips costs ~65 ms,
 * a sixth of a start to the first answer (docs/performance.md), and most starts touch no image.
 */
function loadSharp(): Promise<Sharp> {
  loaded ??= import('sharp').then(({ default: sharp }) => {
    sharp.concurrency(SHARP_THREADS);
    // The operation cache would keep decoded originals (and open files) alive between requests.
    sharp.cache(false);
    return sharp;
  });
  return loaded;
}

/**
 * The URL a thumbnail is served at (docs/api.md, "Images — /api/files"): the image's own URL with
 * `?w=<width>`, for `relPath` as stored in `coverPath` / `avatarImagePath`. Same route, same path
 * guard, same token cookie and cache rules as the original.
 */
export function thumbnailUrl(relPath: string, width: ThumbnailWidth): string {
  return `/api/files/images/${relPath}?w=${width}`;
}

/**
 * A queue for sharp jobs: at most {@link MAX_CONCURRENT_RENDERS} at a time, the others in arrival
 * order. The image store makes one (src/images/thumbnail-files.ts) and runs every job through it.
 */
export function createRenderQueue(): Semaphore {
  return new Semaphore(MAX_CONCURRENT_RENDERS);
}

/**
 * Writes a WebP (or JPEG) thumbnail of the image file `source`, `width` pixels wide (never enlarged: a
 * narrower original keeps its width), EXIF orientation applied, to `target`. sharp writes no
 * metadata unless asked, so the thumbnail carries none. Rejects when libvips cannot decode the
 * source; the caller decides what that means. Runs in `queue`'s turn.
 */
export async function renderThumbnail(queue: Semaphore, source: string, target: string, width: ThumbnailWidth, format: ThumbnailFormat = 'webp'): Promise<void> {
  const sharp = await loadSharp();
  await queue.run(() => {
    const resized = sharp(source, { failOn: 'error' }).rotate().resize({ width, withoutEnlargement: true });
    // JPEG has no transparency: a transparent cover is laid on white, as a page shows it.
    const encoded = format === 'jpeg' ? resized.flatten({ background: '#ffffff' }).jpeg({ quality: THUMBNAIL_QUALITY }) : resized.webp({ quality: THUMBNAIL_QUALITY });
    return encoded.toFile(target);
  });
}

/**
 * If the image file `source` carries EXIF, XMP or IPTC metadata (camera, time, GPS position),
 * writes a copy without it to `target` and returns true; otherwise writes nothing and returns
 * false, so an image with nothing to hide is kept byte for byte. The copy keeps the format and
 * the ICC colour profile and has the EXIF orientation applied to its pixels (the tag that said
 * how to turn it is gone). JPEG and WebP are re-encoded at quality 90, PNG losslessly; an
 * animated WebP keeps its frames. Rejects when libvips
 * cannot read the file.
 */
export async function stripMetadata(queue: Semaphore, source: string, target: string, format: ImageFormat): Promise<boolean> {
  const sharp = await loadSharp();
  return queue.run(async () => {
    const meta = await sharp(source).metadata();
    if (meta.exif === undefined && meta.xmp === undefined && meta.iptc === undefined) return false;
    const animated = format === 'webp' && (meta.pages ?? 1) > 1;
    let pipeline = sharp(source, { failOn: 'error', animated }).keepIccProfile();
    if (!animated) pipeline = pipeline.rotate();
    if (format === 'jpeg') pipeline = pipeline.jpeg({ quality: REENCODE_QUALITY });
    else if (format === 'png') pipeline = pipeline.png();
    else pipeline = pipeline.webp({ quality: REENCODE_QUALITY });
    await pipeline.toFile(target);
    return true;
  });
}
