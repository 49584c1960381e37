/**
 * The three image formats the service takes (docs/decisions.md, "Images"), told
 * apart by their magic bytes only: never by file name, extension or declared content type.
 */

export type ImageFormat = 'jpeg' | 'png' | 'webp';

export interface FormatInfo {
  /** The extension of stored files of this format. */
  readonly ext: 'jpg' | 'png' | 'webp';
  readonly contentType: 'image/jpeg' | 'image/png' | 'image/webp';
}

export const FORMATS: Readonly<Record<ImageFormat, FormatInfo>> = Object.freeze({
  jpeg: { ext: 'jpg', contentType: 'image/jpeg' },
  png: { ext: 'png', contentType: 'image/png' },
  webp: { ext: 'webp', contentType: 'image/webp' },
});

/** Bytes {@link sniffImageFormat} needs to decide: the WebP signature ends at byte 12. */
export const SNIFF_BYTES = 12;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The format whose signature `head` starts with, or `undefined`. JPEG is SOI (FF D8) followed by
 * the start of a marker (FF); PNG its 8-byte signature; WebP `RIFF<size>WEBP`. This is only the
 * first gate: uploads are also walked structurally (structure.ts), so a bare signature followed
 * by anything else is not an image.
 */
export function sniffImageFormat(head: Buffer): ImageFormat | undefined {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (head.length >= 8 && head.subarray(0, 8).equals(PNG_SIGNATURE)) return 'png';
  if (head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  return undefined;
}
