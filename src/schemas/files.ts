/**
 * File endpoint contracts (docs/api.md, "Images — /api/files"; docs/decisions.md, "Images").
 * Image paths are plain strings here on purpose: the path guard (src/images/image-path.ts) checks
 * them and names the field `path` in `details`, whichever way the path came (URL tail or query).
 */
import { Type, type Static } from '@sinclair/typebox';

const ImagePathText = Type.String({ description: 'A stored image: covers/<file> or avatars/<file>' });

/** `DELETE /api/files/images?path=` and `GET /api/files/images?path=`. */
export const ImagePathQuery = Type.Object({ path: ImagePathText });
export type ImagePathQuery = Static<typeof ImagePathQuery>;

/** `GET /api/files/images/<path>`: the query form is still honoured when the tail is empty. */
export const ImageTailParams = Type.Object({ '*': Type.String({ description: 'covers/<file> or avatars/<file>' }) });
export type ImageTailParams = Static<typeof ImageTailParams>;
export const ImageTailQuery = Type.Object({ path: Type.Optional(ImagePathText) });
export type ImageTailQuery = Static<typeof ImageTailQuery>;

/** 200 of both upload endpoints: `path` like `covers/<file>`, `url` like `/api/files/images/covers/<file>`. */
export const UploadResponse = Type.Object({
  message: Type.String(),
  path: Type.String(),
  url: Type.String(),
});
export type UploadResponse = Static<typeof UploadResponse>;

/** 200 of the image GET: the stored bytes, `Content-Type` image/jpeg, image/png or image/webp. */
export const ImageBytes = Type.String({ format: 'binary', description: 'The image bytes' });

/** 304 of the image GET: no body. */
export const NotModified = Type.Null({ description: 'Not modified: the ETag in If-None-Match is current' });
