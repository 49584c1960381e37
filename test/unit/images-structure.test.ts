import t from 'tap';
import { sniffImageFormat } from '../../src/images/formats.js';
import { checkImageBytes, ImageStructureCheck, InvalidImage } from '../../src/images/structure.js';
import * as img from '../helpers/images.js';

const VALID = {
  png: img.png(),
  jpeg: img.jpeg(),
  'jpeg with comments': img.jpeg([Buffer.from('a comment'), Buffer.from([0xff, 0xd9, 0xff])]),
  webp: img.webp(),
  'lossy webp': img.webpLossy(),
};

function feedInChunks(bytes: Buffer, size: number) {
  const check = new ImageStructureCheck();
  for (let offset = 0; offset < bytes.length; offset += size) check.push(bytes.subarray(offset, offset + size));
  return check.end();
}

t.test('sniffing reads magic bytes only', async (t) => {
  t.equal(sniffImageFormat(img.png()), 'png');
  t.equal(sniffImageFormat(img.jpeg()), 'jpeg');
  t.equal(sniffImageFormat(img.webp()), 'webp');
  t.equal(sniffImageFormat(img.gif()), undefined);
  t.equal(sniffImageFormat(img.svg()), undefined);
  t.equal(sniffImageFormat(Buffer.from('RIFF\0\0\0\0WAVE')), undefined, 'a RIFF that is not WebP');
  t.equal(sniffImageFormat(Buffer.from([0xff, 0xd8])), undefined, 'two bytes are not enough for JPEG');
});

t.test('real images pass, however the bytes are split', async (t) => {
  for (const [name, bytes] of Object.entries(VALID)) {
    const format = checkImageBytes(bytes);
    t.match(format, /^(png|jpeg|webp)$/, `${name} whole`);
    for (const size of [1, 2, 3, 7, 13]) t.equal(feedInChunks(bytes, size), format, `${name} in ${size}-byte chunks`);
  }
});

t.test('every truncation of a real image is refused', async (t) => {
  for (const [name, bytes] of Object.entries(VALID)) {
    let refused = 0;
    for (let length = 0; length < bytes.length; length += 1) {
      try {
        checkImageBytes(bytes.subarray(0, length));
      } catch (error) {
        if (error instanceof InvalidImage) refused += 1;
      }
    }
    t.equal(refused, bytes.length, `${name}: all ${bytes.length} prefixes refused`);
  }
});

t.test('other formats, markup and signature-only polyglots are refused', async (t) => {
  const refused = {
    gif: img.gif(),
    svg: img.svg(),
    html: img.html(),
    text: img.text(),
    empty: Buffer.alloc(0),
    'JPEG header then HTML': img.jpegHeaderPolyglot(),
    'PNG signature then HTML': img.pngHeaderPolyglot(),
    'RIFF/WEBP header then HTML': img.webpHeaderPolyglot(),
    'bare JPEG SOI and EOI': Buffer.from([0xff, 0xd8, 0xff, 0xd9, 0, 0, 0, 0, 0, 0, 0, 0]),
    'PNG without IDAT': Buffer.concat([img.png().subarray(0, 33), img.pngChunk('IEND', Buffer.alloc(0))]),
    'PNG with a zero width': (() => {
      const bytes = Buffer.from(img.png());
      bytes.writeUInt32BE(0, 16);
      return bytes;
    })(),
    'JPEG scan before a frame': Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 2, 0x3f, 0xff, 0xd9, 0, 0, 0]),
    'WebP whose RIFF size runs past its chunks': (() => {
      const bytes = Buffer.from(img.webp());
      bytes.writeUInt32LE(bytes.readUInt32LE(4) + 100, 4);
      return bytes;
    })(),
    'WebP with a chunk larger than the file': (() => {
      const bytes = Buffer.from(img.webp());
      bytes.writeUInt32LE(0x7fff, 16);
      return bytes;
    })(),
  };
  for (const [name, bytes] of Object.entries(refused)) {
    t.throws(() => checkImageBytes(bytes), InvalidImage, name);
  }
});

t.test('bytes after the end-of-image marker are tolerated (documented decision)', async (t) => {
  // Phones append data after EOI (motion photos); served as image/jpeg with nosniff it is inert.
  t.equal(checkImageBytes(Buffer.concat([img.jpeg(), img.html()])), 'jpeg');
  t.equal(checkImageBytes(Buffer.concat([img.png(), Buffer.from('trailing')])), 'png');
  t.equal(checkImageBytes(Buffer.concat([img.webp(), Buffer.from('trailing')])), 'webp');
});

t.test('a 5 MiB image is checked without holding it', async (t) => {
  const big = img.pngOfSize(5 * 1024 * 1024);
  const started = process.hrtime.bigint();
  t.equal(feedInChunks(big, 64 * 1024), 'png');
  const big2 = img.jpeg(Array.from({ length: 80 }, () => Buffer.alloc(65000, 0x20)));
  t.equal(feedInChunks(big2, 64 * 1024), 'jpeg');
  t.ok(Number(process.hrtime.bigint() - started) / 1e6 < 2000, 'fast');
});
