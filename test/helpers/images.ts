/**
 * Real, minimal images built in code (every one decodes in ImageMagick), plus the files that
 * must be refused: other formats, markup, and polyglots that only start like an image.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 as PNG chunks use it (zlib.crc32 needs Node 20.15+). */
export function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function u32be(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

function u32le(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

export function pngChunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  return Buffer.concat([u32be(data.length), typed, u32be(crc32(typed))]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A 1x1 red RGB PNG with correct CRCs; `extra` chunks go between IDAT and IEND. */
export function png(extra: Buffer[] = []): Buffer {
  const ihdr = Buffer.concat([u32be(1), u32be(1), Buffer.from([8, 2, 0, 0, 0])]);
  const idat = zlib.deflateSync(Buffer.from([0, 0xff, 0x00, 0x00])); // filter byte, then R G B
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', idat), ...extra, pngChunk('IEND', Buffer.alloc(0))]);
}

/** A valid PNG of exactly `size` bytes, padded with a tEXt comment chunk. */
export function pngOfSize(size: number): Buffer {
  const base = png().length;
  const keyword = Buffer.from('Comment\0', 'latin1');
  const padding = size - base - 12 - keyword.length;
  if (padding < 0) throw new Error(`a PNG cannot be as small as ${size} bytes`);
  const image = png([pngChunk('tEXt', Buffer.concat([keyword, Buffer.alloc(padding, 0x61)]))]);
  if (image.length !== size) throw new Error('pngOfSize miscounted');
  return image;
}

function jpegSegment(marker: number, body: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([head, body]);
}

/**
 * A 1x1 grey baseline JPEG: JFIF, a flat quantisation table, one-code Huffman tables (DC
 * category 0, AC end-of-block), and one block of entropy data (bits 0,0 padded with 1s).
 * `comments` become COM segments, a way to grow a valid JPEG to any size.
 */
export function jpeg(comments: Buffer[] = []): Buffer {
  const app0 = jpegSegment(0xe0, Buffer.from([0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]));
  const dqt = jpegSegment(0xdb, Buffer.concat([Buffer.from([0x00]), Buffer.alloc(64, 1)]));
  const sof0 = jpegSegment(0xc0, Buffer.from([8, 0, 1, 0, 1, 1, 1, 0x11, 0]));
  const oneCodeTable = (classAndId: number) => Buffer.concat([Buffer.from([classAndId, 1]), Buffer.alloc(15, 0), Buffer.from([0])]);
  const dht = jpegSegment(0xc4, Buffer.concat([oneCodeTable(0x00), oneCodeTable(0x10)]));
  const sos = jpegSegment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0]));
  const com = comments.map((text) => jpegSegment(0xfe, text));
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, ...com, dqt, sof0, dht, sos, Buffer.from([0x3f]), Buffer.from([0xff, 0xd9])]);
}

const VP8L_1X1 = Buffer.from('2f00000010071011118888fe07', 'hex');
const VP8_1X1 = Buffer.from('3001009d012a010001000ec0fe25a4000370000000', 'hex');

function riffChunk(fourCC: string, data: Buffer): Buffer {
  const pad = data.length % 2 === 1 ? Buffer.alloc(1) : Buffer.alloc(0);
  return Buffer.concat([Buffer.from(fourCC, 'latin1'), u32le(data.length), data, pad]);
}

function webpOf(chunks: Buffer[]): Buffer {
  const body = Buffer.concat([Buffer.from('WEBP', 'latin1'), ...chunks]);
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), u32le(body.length), body]);
}

/** A 1x1 lossless WebP (VP8L bitstream as in the well-known feature-detection image). */
export function webp(): Buffer {
  return webpOf([riffChunk('VP8L', VP8L_1X1)]);
}

/** A 1x1 lossy WebP (VP8 key frame). */
export function webpLossy(): Buffer {
  return webpOf([riffChunk('VP8 ', VP8_1X1)]);
}

/** The classic 1x1 transparent GIF. */
export function gif(): Buffer {
  return Buffer.from('47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b', 'hex');
}

export function svg(): Buffer {
  return Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>');
}

export function html(): Buffer {
  return Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>');
}

/** Plain text (the tests upload it named `photo.jpg`, declared image/jpeg). */
export function text(): Buffer {
  return Buffer.from('Just some text pretending to be a photo.\n');
}

/** A JPEG signature and an APP0 marker, then HTML: starts like a JPEG, is not one. */
export function jpegHeaderPolyglot(): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), html()]);
}

/** A PNG signature followed by HTML. */
export function pngHeaderPolyglot(): Buffer {
  return Buffer.concat([PNG_SIGNATURE, html()]);
}

/** `RIFF....WEBP` followed by HTML. */
export function webpHeaderPolyglot(): Buffer {
  const body = Buffer.concat([Buffer.from('WEBP', 'latin1'), html()]);
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), u32le(body.length), body]);
}

/** The regular files (and links) under `dir`, relative to it, sorted. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((entry) => !fs.lstatSync(path.join(dir, entry)).isDirectory())
    .sort();
}

/**
 * Every file under `DATA_DIR/images` except the trash, the unattached-upload markers and the
 * thumbnails (see {@link thumbnailFiles}),
 * relative to it, sorted: a snapshot of the live folders (`covers/`, `avatars/`, and
 * `.incoming/`, which must be empty between requests). A removed image leaves this list; it may
 * sit in {@link trashedImages} for a while.
 */
export function imageFolderFiles(dataDir: string): string[] {
  const root = path.join(dataDir, 'images');
  return filesUnder(root).filter((entry) => !['.trash', '.unattached', '.thumbs'].includes(entry.split(path.sep)[0] as string));
}

/** The thumbnails in `DATA_DIR/images/.thumbs`, as `<width>/<kind>/<name>.webp`, sorted. */
export function thumbnailFiles(dataDir: string): string[] {
  return filesUnder(path.join(dataDir, 'images', '.thumbs')).map((entry) => entry.split(path.sep).join('/'));
}

/** The removed images waiting in `DATA_DIR/images/.trash`, as `covers/<name>` / `avatars/<name>`. */
export function trashedImages(dataDir: string): string[] {
  return filesUnder(path.join(dataDir, 'images', '.trash'));
}
