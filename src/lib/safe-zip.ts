/**
 * Reading a ZIP file someone else made, defensively: the one reader under the file import's
 * archives and EPUBs (docs/decisions.md, "File import") and the library archive
 * (docs/decisions.md, "Library archive"). The whole central directory is checked before a byte
 * of content is read, and an archive that could write outside its place or hide a bomb is
 * refused as a whole ({@link UnsafeZip}): an entry name that is absolute, climbs (`..`) or holds
 * a backslash (yauzl's strict names), a symbolic link, more entries or more declared
 * uncompressed bytes than the caller's limits. What is kept of each entry is a small index
 * ({@link ZipEntry}); entries are then read one at a time, their sizes enforced (yauzl checks
 * the real bytes against the declared ones), never extracted to disk.
 */
import fs from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import yauzl from 'yauzl';

/** Each caller's caps, checked while the directory is read. */
export interface ZipLimits {
  /** Entries in the central directory, folders included: checked before any is listed. */
  maxEntries: number;
  /** Declared uncompressed bytes of all entries together (a zip bomb declares its size or fails reading). */
  maxTotalBytes: number;
}

/** Why an archive is refused as a whole; each caller words it for its own errors. */
export type ZipRefusal =
  /** yauzl cannot open it: not a ZIP, or its end records are broken. */
  | { problem: 'not-a-zip'; cause: string }
  /** yauzl refused a directory record: an unsafe name (absolute, `..`, backslash) or a broken record. */
  | { problem: 'bad-entry'; cause: string }
  | { problem: 'symlink'; name: string }
  | { problem: 'too-many-entries'; count: number; max: number }
  | { problem: 'too-many-bytes'; max: number };

export class UnsafeZip extends Error {
  constructor(readonly refusal: ZipRefusal) {
    super(`unsafe ZIP: ${refusal.problem}`);
    this.name = 'UnsafeZip';
  }
}

/** What is kept of an entry: enough to open it again, a tenth of yauzl's own object (~100 bytes). */
export interface ZipEntry {
  readonly name: string;
  readonly offset: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly compressionMethod: number;
  readonly flags: number;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
/** A local file header's fixed part, and its signature (APPNOTE.TXT 4.3.7). */
const LOCAL_HEADER_BYTES = 30;
const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const ENCRYPTED_FLAG = 0x1;
const STORED = 0;
const DEFLATED = 8;

export class SafeZip {
  private constructor(
    private readonly zip: yauzl.ZipFile,
    /** The ZIP's size in bytes: no entry's data may reach past it. */
    private readonly size: number,
    /** Every file entry (folders left out), in the archive's order. */
    readonly entries: readonly ZipEntry[],
  ) {}

  /** Opens a ZIP (a path or its bytes) and checks its whole directory; throws {@link UnsafeZip}. */
  static async open(source: string | Buffer, limits: ZipLimits): Promise<SafeZip> {
    const options = { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: true };
    let zip: yauzl.ZipFile;
    let size: number;
    try {
      size = typeof source === 'string' ? (await fs.stat(source)).size : source.length;
      zip = typeof source === 'string' ? await yauzl.openPromise(source, options) : await yauzl.fromBufferPromise(source, options);
    } catch (error) {
      throw new UnsafeZip({ problem: 'not-a-zip', cause: (error as Error).message });
    }
    try {
      if (zip.entryCount > limits.maxEntries) throw new UnsafeZip({ problem: 'too-many-entries', count: zip.entryCount, max: limits.maxEntries });
      const entries: ZipEntry[] = [];
      let total = 0;
      try {
        for await (const entry of zip.eachEntry()) {
          if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) throw new UnsafeZip({ problem: 'symlink', name: entry.fileName });
          total += entry.uncompressedSize;
          if (total > limits.maxTotalBytes) throw new UnsafeZip({ problem: 'too-many-bytes', max: limits.maxTotalBytes });
          if (entry.fileName.endsWith('/')) continue;
          entries.push({
            name: entry.fileName,
            offset: entry.relativeOffsetOfLocalHeader,
            compressedSize: entry.compressedSize,
            uncompressedSize: entry.uncompressedSize,
            compressionMethod: entry.compressionMethod,
            flags: entry.generalPurposeBitFlag,
          });
        }
      } catch (error) {
        if (error instanceof UnsafeZip) throw error;
        throw new UnsafeZip({ problem: 'bad-entry', cause: (error as Error).message });
      }
      return new SafeZip(zip, size, entries);
    } catch (error) {
      zip.close();
      throw error;
    }
  }

  /** Whether the entry is encrypted (its content cannot be read here). */
  static isEncrypted(entry: ZipEntry): boolean {
    return (entry.flags & ENCRYPTED_FLAG) !== 0;
  }

  /** Whether the entry is stored or deflated, the two methods read here. */
  static isReadable(entry: ZipEntry): boolean {
    return entry.compressionMethod === STORED || entry.compressionMethod === DEFLATED;
  }

  /**
   * The entry's uncompressed bytes as a stream; a deflated entry's stream fails once its bytes
   * differ from the declared size. Refuses an encrypted entry or another compression method.
   */
  async stream(entry: ZipEntry): Promise<Readable> {
    if (SafeZip.isEncrypted(entry)) throw new Error(`${entry.name} is encrypted`);
    if (!SafeZip.isReadable(entry)) throw new Error(`unsupported compression method: ${entry.compressionMethod}`);
    const start = await this.dataStart(entry);
    return this.rawRange(start, entry.compressedSize, entry.compressionMethod === DEFLATED, entry.uncompressedSize);
  }

  /** The entry's bytes, refused past `cap` bytes (declared, or real while reading). */
  async read(entry: ZipEntry, cap: number): Promise<Buffer> {
    if (entry.uncompressedSize > cap) throw new Error(`holds ${entry.uncompressedSize} bytes, more than ${cap}`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of await this.stream(entry)) {
      size += (chunk as Buffer).length;
      if (size > cap) throw new Error(`holds more than ${cap} bytes`);
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  }

  close(): void {
    this.zip.close();
  }

  /**
   * Where the entry's data starts: after its local header, whose name and extra field lengths
   * may differ from the directory's. yauzl's `openReadStream` wants the full `Entry` object it
   * listed, which the index does not keep; its public low-level pair is used instead, as its
   * README describes for entries opened later: the 30 header bytes read raw, then the data
   * opened at the offset they give, bounds-checked here as `openReadStream` would.
   */
  private async dataStart(entry: ZipEntry): Promise<number> {
    if (entry.offset + LOCAL_HEADER_BYTES > this.size) throw new Error(`${entry.name}: its local header is past the end of the file`);
    const header = await buffer(await this.rawRange(entry.offset, LOCAL_HEADER_BYTES, false, LOCAL_HEADER_BYTES));
    if (header.length !== LOCAL_HEADER_BYTES || header.readUInt32LE(0) !== LOCAL_HEADER_SIGNATURE) throw new Error(`${entry.name}: invalid local file header`);
    const start = entry.offset + LOCAL_HEADER_BYTES + header.readUInt16LE(26) + header.readUInt16LE(28);
    if (start + entry.compressedSize > this.size) throw new Error(`${entry.name}: its data is past the end of the file`);
    return start;
  }

  /**
   * yauzl's `openReadStreamLowLevel` for `length` bytes from `start`, inflated when `inflate`
   * (then checked against `size`). Wrapped here because yauzl 3.4.0's
   * `openReadStreamLowLevelPromise` calls `openReadStream` by mistake.
   */
  private rawRange(start: number, length: number, inflate: boolean, size: number): Promise<Readable> {
    return new Promise((resolve, reject) => {
      this.zip.openReadStreamLowLevel(start, length, 0, length, inflate, size, (error, stream) => (error === null ? resolve(stream) : reject(error)));
    });
  }
}
