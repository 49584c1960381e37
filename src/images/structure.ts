/**
 * A streaming structure check for uploads: the bytes are fed in as they arrive (never buffered
 * whole) and must form a well-formed JPEG, PNG or WebP container from the signature to the
 * end-of-image marker. A file that only starts with a signature (a "JPEG header followed by
 * HTML" polyglot, a truncated upload, a renamed text file) fails here.
 *
 * What is checked: the container's framing, not the compressed pixels. JPEG: SOI, a chain of
 * length-prefixed segments with a frame header (SOFn) before the first scan, entropy-coded data,
 * and EOI. PNG: signature, IHDR first and valid, chunk framing, at least one IDAT, IEND. WebP:
 * the RIFF header, chunk framing within the RIFF size, a VP8/VP8L/VP8X first chunk with a valid
 * bitstream header, and image data.
 *
 * Bytes after the end-of-image marker are tolerated: phones append data there (motion photos,
 * MPF), and since files are only ever served with the Content-Type of their real format and
 * `nosniff`, nothing after the marker can be interpreted as anything but part of an image.
 */
import { SNIFF_BYTES, sniffImageFormat, type ImageFormat } from './formats.js';

/** Why an upload is not an image; the store turns it into a 415. */
export class InvalidImage extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'InvalidImage';
  }
}

/** What a parser asks the driver for next. */
type Need =
  /** The next `n` bytes, handed back as one Buffer. */
  | { readonly read: number }
  /** Pass over the next `n` bytes without keeping them. */
  | { readonly skip: number }
  /** JPEG entropy-coded data: pass over it and hand back the marker byte that ends it. */
  | { readonly scan: true };

type Parser = Generator<Need, void, Buffer>;

const EMPTY = Buffer.alloc(0);
const read = (n: number): Need => ({ read: n });
const skip = (n: number): Need => ({ skip: n });

/**
 * Feed an upload through {@link push} as it streams, then call {@link end}. Both throw
 * {@link InvalidImage} as soon as the bytes cannot be a JPEG, PNG or WebP image.
 */
export class ImageStructureCheck {
  #format: ImageFormat | undefined;
  #parser: Parser | undefined;
  #need: Need | undefined;
  #done = false;
  /** Bytes collected for a `read` (or for sniffing, before a parser is chosen). */
  #pending: Buffer[] = [];
  #pendingLength = 0;
  #skipLeft = 0;
  /** Within a JPEG scan: the previous byte was 0xFF. */
  #afterFF = false;

  /** The format, once the signature has been seen. */
  get format(): ImageFormat | undefined {
    return this.#format;
  }

  push(chunk: Buffer): void {
    if (this.#done || chunk.length === 0) return;
    if (this.#parser === undefined) {
      this.#collect(chunk);
      if (this.#pendingLength < SNIFF_BYTES) return;
      this.#start(this.#takePending());
      return;
    }
    this.#feed(chunk);
  }

  /** The stream ended: the image must be complete. Returns its format. */
  end(): ImageFormat {
    if (this.#parser === undefined) {
      if (this.#pendingLength === 0) throw new InvalidImage('the file is empty');
      this.#start(this.#takePending());
    }
    if (!this.#done || this.#format === undefined) throw new InvalidImage(`the ${this.#format ?? 'image'} data ends early`);
    return this.#format;
  }

  #start(head: Buffer): void {
    const format = sniffImageFormat(head);
    if (format === undefined) throw new InvalidImage('no JPEG, PNG or WebP signature');
    this.#format = format;
    this.#parser = PARSERS[format]();
    this.#advance(this.#parser.next());
    this.#feed(head);
  }

  #feed(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length && !this.#done) {
      const need = this.#need as Need;
      if ('read' in need) {
        const take = Math.min(need.read - this.#pendingLength, chunk.length - offset);
        this.#collect(chunk.subarray(offset, offset + take));
        offset += take;
        if (this.#pendingLength === need.read) this.#resume(this.#takePending());
      } else if ('skip' in need) {
        const take = Math.min(this.#skipLeft, chunk.length - offset);
        offset += take;
        this.#skipLeft -= take;
        if (this.#skipLeft === 0) this.#resume(EMPTY);
      } else {
        offset = this.#scan(chunk, offset);
      }
    }
  }

  /** Passes over entropy-coded JPEG data; resumes the parser with the marker that ends it. */
  #scan(chunk: Buffer, from: number): number {
    let offset = from;
    while (offset < chunk.length) {
      if (!this.#afterFF) {
        const ff = chunk.indexOf(0xff, offset);
        if (ff === -1) return chunk.length;
        this.#afterFF = true;
        offset = ff + 1;
        continue;
      }
      const byte = chunk[offset] as number;
      offset += 1;
      // FF 00 is a stuffed data byte, FF D0-D7 a restart marker, FF FF fill: all inside the scan.
      if (byte === 0xff) continue;
      this.#afterFF = false;
      if (byte === 0x00 || (byte >= 0xd0 && byte <= 0xd7)) continue;
      this.#resume(Buffer.of(byte));
      return offset;
    }
    return offset;
  }

  #resume(value: Buffer): void {
    this.#advance((this.#parser as Parser).next(value));
  }

  #advance(step: IteratorResult<Need, void>): void {
    if (step.done === true) {
      this.#done = true;
      this.#need = undefined;
      return;
    }
    this.#need = step.value;
    if ('skip' in step.value) {
      this.#skipLeft = step.value.skip;
      if (this.#skipLeft === 0) this.#resume(EMPTY);
    } else if ('read' in step.value && step.value.read === 0) {
      this.#resume(EMPTY);
    }
  }

  #collect(bytes: Buffer): void {
    this.#pending.push(bytes);
    this.#pendingLength += bytes.length;
  }

  #takePending(): Buffer {
    const all = this.#pending.length === 1 ? (this.#pending[0] as Buffer) : Buffer.concat(this.#pending);
    this.#pending = [];
    this.#pendingLength = 0;
    return all;
  }
}

/** Checks a whole buffer at once (tests, small files); throws {@link InvalidImage}. */
export function checkImageBytes(bytes: Buffer): ImageFormat {
  const check = new ImageStructureCheck();
  check.push(bytes);
  return check.end();
}

const PARSERS: Record<ImageFormat, () => Parser> = { jpeg: parseJpeg, png: parsePng, webp: parseWebp };

function* parseJpeg(): Parser {
  yield read(2); // SOI, already matched by the sniffer
  let sawFrame = false;
  let sawScan = false;
  let marker = yield* nextJpegMarker();
  for (;;) {
    if (marker === 0xd9) {
      if (!sawScan) throw new InvalidImage('JPEG ends before any image data');
      return;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)) throw new InvalidImage('JPEG marker out of place');
    if (marker === 0x01) {
      marker = yield* nextJpegMarker();
      continue;
    }
    const length = (yield read(2)).readUInt16BE(0);
    if (length < 2) throw new InvalidImage('JPEG segment length below 2');
    if (isStartOfFrame(marker)) {
      const frame = yield read(length - 2);
      const components = frame[5] ?? 0;
      if (frame.length < 6 || frame.readUInt16BE(3) === 0 || components === 0 || length !== 8 + 3 * components) {
        throw new InvalidImage('JPEG frame header is malformed');
      }
      sawFrame = true;
    } else if (marker === 0xda) {
      if (!sawFrame) throw new InvalidImage('JPEG scan before a frame header');
      yield skip(length - 2);
      sawScan = true;
      marker = (yield { scan: true })[0] as number;
      continue;
    } else {
      yield skip(length - 2);
    }
    marker = yield* nextJpegMarker();
  }
}

/** SOF0-SOF15, except DHT (C4), JPG (C8) and DAC (CC), which share the range. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** Between segments: 0xFF, optional 0xFF fill bytes, then the marker code. */
function* nextJpegMarker(): Generator<Need, number, Buffer> {
  if ((yield read(1))[0] !== 0xff) throw new InvalidImage('JPEG segment does not start with a marker');
  let code = (yield read(1))[0] as number;
  for (let fill = 0; code === 0xff; fill += 1) {
    if (fill > 64) throw new InvalidImage('JPEG has a run of fill bytes');
    code = (yield read(1))[0] as number;
  }
  if (code === 0x00) throw new InvalidImage('JPEG has a stuffed byte outside a scan');
  return code;
}

const PNG_COLOR_DEPTHS: Record<number, readonly number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

function* parsePng(): Parser {
  yield read(8); // signature, already matched by the sniffer
  const ihdr = yield read(8 + 13 + 4);
  if (ihdr.readUInt32BE(0) !== 13 || ihdr.toString('latin1', 4, 8) !== 'IHDR') throw new InvalidImage('PNG does not start with IHDR');
  const width = ihdr.readUInt32BE(8);
  const height = ihdr.readUInt32BE(12);
  const depth = ihdr[16] as number;
  const colorType = ihdr[17] as number;
  const validDepth = PNG_COLOR_DEPTHS[colorType]?.includes(depth) ?? false;
  if (width === 0 || height === 0 || width > 0x7fffffff || height > 0x7fffffff || !validDepth || ihdr[18] !== 0 || ihdr[19] !== 0 || (ihdr[20] as number) > 1) {
    throw new InvalidImage('PNG header is malformed');
  }
  let sawData = false;
  for (;;) {
    const head = yield read(8);
    const length = head.readUInt32BE(0);
    const type = head.toString('latin1', 4, 8);
    if (length > 0x7fffffff || !/^[A-Za-z]{4}$/.test(type) || type === 'IHDR') throw new InvalidImage('PNG chunk is malformed');
    if (type === 'IDAT') sawData = true;
    yield skip(length + 4); // data and CRC
    if (type === 'IEND') {
      if (length !== 0 || !sawData) throw new InvalidImage('PNG has no image data');
      return;
    }
  }
}

function* parseWebp(): Parser {
  const riff = yield read(12);
  const riffSize = riff.readUInt32LE(4);
  if (riffSize < 4 + 8 || riffSize % 2 !== 0) throw new InvalidImage('WebP RIFF size is malformed');
  let left = riffSize - 4; // bytes after "WEBP" inside the RIFF container
  let first = true;
  let sawImage = false;
  while (left > 0) {
    if (left < 8) throw new InvalidImage('WebP chunk header is cut off');
    const head = yield read(8);
    const fourCC = head.toString('latin1', 0, 4);
    const size = head.readUInt32LE(4);
    const padded = size + (size % 2);
    if (!/^[\x20-\x7e]{4}$/.test(fourCC) || 8 + padded > left) throw new InvalidImage('WebP chunk is malformed');
    if (first && fourCC !== 'VP8 ' && fourCC !== 'VP8L' && fourCC !== 'VP8X') throw new InvalidImage('WebP does not start with image data');
    let consumed = 0;
    if (fourCC === 'VP8L') {
      if (size < 5) throw new InvalidImage('WebP lossless header is cut off');
      const bits = yield read(5);
      // Signature 0x2F; then 14+14 bits of size, 1 alpha bit and a 3-bit version that must be 0.
      if (bits[0] !== 0x2f || ((bits[4] as number) >> 5) !== 0) throw new InvalidImage('WebP lossless header is malformed');
      consumed = 5;
      sawImage = true;
    } else if (fourCC === 'VP8 ') {
      if (size < 10) throw new InvalidImage('WebP lossy header is cut off');
      const frame = yield read(10);
      // A key frame (bit 0 clear) with the start code 9D 01 2A and a non-zero width and height.
      if (((frame[0] as number) & 1) !== 0 || frame[3] !== 0x9d || frame[4] !== 0x01 || frame[5] !== 0x2a || (frame.readUInt16LE(6) & 0x3fff) === 0 || (frame.readUInt16LE(8) & 0x3fff) === 0) {
        throw new InvalidImage('WebP lossy header is malformed');
      }
      consumed = 10;
      sawImage = true;
    } else if (fourCC === 'VP8X') {
      if (size < 10) throw new InvalidImage('WebP extended header is cut off');
    } else if (fourCC === 'ANMF') {
      sawImage = true; // an animation frame carries its own VP8/VP8L data
    }
    yield skip(padded - consumed);
    left -= 8 + padded;
    first = false;
  }
  if (!sawImage) throw new InvalidImage('WebP has no image data');
}

