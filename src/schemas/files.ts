/**
 * File endpoint contracts (docs/api.md, "Images — /api/files"; docs/decisions.md, "Images").
 * Image paths are plain strings here on purpose: the path guard (src/images/image-path.ts) checks
 * them and names the field `path` in `details`, whichever way the path came (URL tail or query).
 */
import { Type, type Static } from '@sinclair/typebox';

/**
 * Longer than any name the image store writes (`<uuid>.webp` is 41 characters), shorter than
 * abuse: the limit of every image path field, and of the path guard (src/images/image-path.ts).
 */
export const IMAGE_PATH_MAX = 200;

/**
 * The widths a thumbnail is made at, in pixels: grid cards at 1x and 2x. The contract `?w=`
 * accepts, and the widths the store keeps (src/images/thumbnails.ts makes them).
 */
export const THUMBNAIL_WIDTHS = [160, 320] as const;
export type ThumbnailWidth = (typeof THUMBNAIL_WIDTHS)[number];

/**
 * What a thumbnail is encoded as: WebP for the pages; JPEG for catalog clients, since older
 * KOReader builds and other e-reader apps do not show WebP (docs/decisions.md, "OPDS catalog").
 * JPEG rather than PNG: covers are photos and drawings, where JPEG is a fifth of PNG's size.
 */
export const THUMBNAIL_FORMATS = ['webp', 'jpeg'] as const;
export type ThumbnailFormat = (typeof THUMBNAIL_FORMATS)[number];

const ImagePathText = Type.String({ description: 'A stored image: covers/<file>, avatars/<file> or inline/<file> (an imported story\'s image)' });

/** `DELETE /api/files/images?path=` and `GET /api/files/images?path=`. */
export const ImagePathQuery = Type.Object({ path: ImagePathText });
export type ImagePathQuery = Static<typeof ImagePathQuery>;

/** `GET /api/files/images/<path>`: the query form is still honoured when the tail is empty. */
export const ImageTailParams = Type.Object({ '*': Type.String({ description: 'covers/<file>, avatars/<file> or inline/<file>' }) });
export type ImageTailParams = Static<typeof ImageTailParams>;

/** `?w=`: a thumbnail of that width instead of the original (docs/api.md, "Images — /api/files"). */
const ThumbnailWidthParam = Type.Unsafe<ThumbnailWidth>(
  Type.Integer({ enum: [...THUMBNAIL_WIDTHS], description: `A WebP thumbnail this many pixels wide (never enlarged) instead of the original: one of ${THUMBNAIL_WIDTHS.join(', ')}` }),
);

/** `?format=`: the thumbnail's encoding, with `w` only (the OPDS catalog asks for JPEG). */
const ThumbnailFormatParam = Type.Unsafe<ThumbnailFormat>(
  Type.String({ enum: [...THUMBNAIL_FORMATS], default: 'webp', description: 'With w: the thumbnail as WebP (default) or JPEG (for readers that show no WebP)' }),
);

export const ImageTailQuery = Type.Object({ path: Type.Optional(ImagePathText), w: Type.Optional(ThumbnailWidthParam), format: Type.Optional(ThumbnailFormatParam) });
export type ImageTailQuery = Static<typeof ImageTailQuery>;

/** `GET /api/files/images?path=` with the optional thumbnail width. */
export const ImageGetQuery = Type.Object({ path: ImagePathText, w: Type.Optional(ThumbnailWidthParam), format: Type.Optional(ThumbnailFormatParam) });
export type ImageGetQuery = Static<typeof ImageGetQuery>;

/** 200 of both upload endpoints: `path` like `covers/<file>`, `url` like `/api/files/images/covers/<file>`. */
export const UploadResponse = Type.Object({
  message: Type.String(),
  path: Type.String(),
  url: Type.String(),
});
export type UploadResponse = Static<typeof UploadResponse>;

/** 200 of the image GET: the stored bytes, `Content-Type` image/jpeg, image/png or image/webp (a thumbnail: image/webp). */
export const ImageBytes = Type.String({ format: 'binary', description: 'The image bytes, or with ?w= its WebP thumbnail' });

/** 304 of the image GET: no body. */
export const NotModified = Type.Null({ description: 'Not modified: the ETag in If-None-Match is current' });
