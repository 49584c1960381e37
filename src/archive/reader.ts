/**
 * Reading a library archive safely (docs/decisions.md, "Library archive"): the whole central
 * directory is checked before anything is restored, and any entry that could write outside its
 * place or hide a bomb refuses the whole archive. Entries are read one at a time with their
 * sizes capped, never the archive as a whole.
 */
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { isImagePath } from '../images/image-path.js';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, ArchiveManifest } from '../schemas/archive.js';
import { checkEntry } from './entry-check.js';

export interface ArchiveLimits {
  /** Entries in all (the index of entries is held in memory, ~100 bytes each). */
  maxEntries: number;
  /** Uncompressed bytes of every entry together, as declared (and enforced while reading). */
  maxTotalBytes: number;
  /** One `stories/<id>.json` (16 MiB of HTML, the API's body limit, plus its escaping). */
  maxStoryBytes: number;
  /** `authors.jsonl`, `series.jsonl`, `tags.jsonl` or `progress.jsonl`, each. */
  maxListBytes: number;
  /** One line of a list. */
  maxLineBytes: number;
}

export const DEFAULT_LIMITS: Readonly<ArchiveLimits> = Object.freeze({
  maxEntries: 500_000,
  maxTotalBytes: 16 * 1024 ** 3,
  maxStoryBytes: 40 * 1024 ** 2,
  maxListBytes: 512 * 1024 ** 2,
  maxLineBytes: 1024 ** 2,
});

/** The whole archive is refused: nothing may be restored from it. */
export class ArchiveRejected extends Error {}

/** What is kept of an entry: enough to open it again, a tenth of yauzl's own object. */
export interface IndexedEntry {
  readonly name: string;
  readonly offset: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly compressionMethod: number;
  readonly flags: number;
}

export const LIST_NAMES = ['authors.jsonl', 'series.jsonl', 'tags.jsonl', 'progress.jsonl'] as const;
export type ListName = (typeof LIST_NAMES)[number];

const STORY_ENTRY = /^stories\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(json|html)$/;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

export class ArchiveReader {
  private constructor(
    private readonly zip: yauzl.ZipFile,
    readonly manifest: ArchiveManifest,
    /** `stories/<id>.json`, by name. */
    readonly stories: readonly IndexedEntry[],
    /** `images/<kind>/<name>`, by name. */
    readonly images: readonly IndexedEntry[],
    readonly lists: ReadonlyMap<ListName, IndexedEntry>,
    /** Entries this format version does not know: left alone, and reported. */
    readonly ignored: readonly string[],
    readonly limits: ArchiveLimits,
  ) {}

  /**
   * Opens the archive and checks every entry of its central directory and its manifest; throws
   * {@link ArchiveRejected} naming the first problem: a path that is absolute or climbs (`..`),
   * a symlink, an encrypted or oddly compressed entry, a name given twice, too many entries, too
   * many bytes (in all or for one list or manifest), a manifest that is missing, invalid, of
   * another format or of a newer version.
   */
  static async open(file: string, limits: ArchiveLimits = DEFAULT_LIMITS): Promise<ArchiveReader> {
    let zip: yauzl.ZipFile;
    try {
      zip = await yauzl.openPromise(file, { autoClose: false, lazyEntries: true, validateEntrySizes: true, strictFileNames: true });
    } catch (error) {
      throw new ArchiveRejected(`not a readable ZIP archive (${(error as Error).message})`);
    }
    try {
      if (zip.entryCount > limits.maxEntries) throw new ArchiveRejected(`too many entries: ${zip.entryCount} (at most ${limits.maxEntries})`);
      const seen = new Set<string>();
      const stories: IndexedEntry[] = [];
      const images: IndexedEntry[] = [];
      const lists = new Map<ListName, IndexedEntry>();
      const ignored: string[] = [];
      let manifestEntry: IndexedEntry | undefined;
      let total = 0;
      try {
        for await (const entry of zip.eachEntry()) {
          const name = entry.fileName;
          if (seen.has(name)) throw new ArchiveRejected(`the entry ${name} appears twice`);
          seen.add(name);
          if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) throw new ArchiveRejected(`the entry ${name} is a symbolic link`);
          if (entry.isEncrypted()) throw new ArchiveRejected(`the entry ${name} is encrypted`);
          if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) throw new ArchiveRejected(`the entry ${name} uses an unknown compression method`);
          total += entry.uncompressedSize;
          if (total > limits.maxTotalBytes) throw new ArchiveRejected(`the entries hold more than ${limits.maxTotalBytes} bytes uncompressed`);
          if (name.endsWith('/')) continue;
          const indexed: IndexedEntry = {
            name,
            offset: entry.relativeOffsetOfLocalHeader,
            compressedSize: entry.compressedSize,
            uncompressedSize: entry.uncompressedSize,
            compressionMethod: entry.compressionMethod,
            flags: entry.generalPurposeBitFlag,
          };
          if (name === 'manifest.json') manifestEntry = indexed;
          else if ((LIST_NAMES as readonly string[]).includes(name)) {
            if (entry.uncompressedSize > limits.maxListBytes) throw new ArchiveRejected(`${name} holds more than ${limits.maxListBytes} bytes`);
            lists.set(name as ListName, indexed);
          } else if (STORY_ENTRY.exec(name)?.[2] === 'json') stories.push(indexed);
          else if (STORY_ENTRY.test(name)) continue; // the readable copy: for people, not restored
          else if (name.startsWith('images/') && isImagePath(name.slice('images/'.length))) images.push(indexed);
          else ignored.push(name);
        }
      } catch (error) {
        if (error instanceof ArchiveRejected) throw error;
        // yauzl refuses absolute paths, `..` segments and backslashes in names itself.
        throw new ArchiveRejected(`unsafe or unreadable entry: ${(error as Error).message}`);
      }
      if (manifestEntry === undefined) throw new ArchiveRejected('manifest.json is missing: this is not a Storyshelf library archive');
      const byName = (a: IndexedEntry, b: IndexedEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
      const manifest = await readManifest(zip, manifestEntry);
      return new ArchiveReader(zip, manifest, stories.sort(byName), images.sort(byName), lists, ignored, limits);
    } catch (error) {
      zip.close();
      throw error;
    }
  }

  /** The entry's bytes; throws when it holds more than `cap` bytes (declared or real). */
  readBuffer(entry: IndexedEntry, cap: number): Promise<Buffer> {
    return readEntry(this.zip, entry, cap);
  }

  /** The entry's uncompressed bytes as a stream (sizes checked against the directory by yauzl). */
  openStream(entry: IndexedEntry): Promise<Readable> {
    return openEntry(this.zip, entry);
  }

  /**
   * The lines of a list from line `from` (0-based) on, with their numbers; a line longer than
   * {@link ArchiveLimits.maxLineBytes} is yielded as `tooLong` instead of its text.
   */
  async *lines(entry: IndexedEntry, from: number): AsyncGenerator<{ number: number; text: string | undefined }> {
    const stream = await this.openStream(entry);
    let pending: Buffer[] = [];
    let pendingSize = 0;
    let number = 0;
    let tooLong = false;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        let start = 0;
        for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
          const piece = chunk.subarray(start, end);
          if (!tooLong && pendingSize + piece.length <= this.limits.maxLineBytes) pending.push(piece);
          else tooLong = true;
          const text = tooLong ? undefined : Buffer.concat(pending).toString('utf8');
          if (number >= from && (text === undefined || text.trim() !== '')) yield { number, text };
          number += 1;
          pending = [];
          pendingSize = 0;
          tooLong = false;
          start = end + 1;
        }
        const rest = chunk.subarray(start);
        if (!tooLong && pendingSize + rest.length <= this.limits.maxLineBytes) {
          pending.push(Buffer.from(rest));
          pendingSize += rest.length;
        } else {
          tooLong = true;
          pending = [];
        }
      }
      const last = tooLong ? undefined : Buffer.concat(pending).toString('utf8');
      if (number >= from && (last === undefined || last.trim() !== '')) yield { number, text: last };
    } finally {
      stream.destroy();
    }
  }

  close(): void {
    this.zip.close();
  }
}

/** The manifest, checked: {@link ArchiveRejected} unless it is a valid manifest of a version this code reads. */
async function readManifest(zip: yauzl.ZipFile, entry: IndexedEntry): Promise<ArchiveManifest> {
  if (entry.uncompressedSize > 1024 ** 2) throw new ArchiveRejected('manifest.json is larger than 1 MiB');
  let value: unknown;
  try {
    value = JSON.parse((await readEntry(zip, entry, 1024 ** 2)).toString('utf8'));
  } catch (error) {
    throw new ArchiveRejected(`manifest.json is not valid JSON (${(error as Error).message})`);
  }
  const header = value as { format?: unknown; version?: unknown } | null;
  if (header === null || typeof header !== 'object' || header.format !== ARCHIVE_FORMAT) throw new ArchiveRejected(`manifest.json does not say format "${ARCHIVE_FORMAT}"`);
  if (typeof header.version !== 'number' || header.version > ARCHIVE_VERSION) {
    throw new ArchiveRejected(`the archive is format version ${String(header.version)}; this Storyshelf reads version ${ARCHIVE_VERSION}`);
  }
  const problem = checkEntry(ArchiveManifest, value);
  if (problem !== undefined) throw new ArchiveRejected(`manifest.json is invalid: ${problem}`);
  return value as ArchiveManifest;
}

async function readEntry(zip: yauzl.ZipFile, entry: IndexedEntry, cap: number): Promise<Buffer> {
  if (entry.uncompressedSize > cap) throw new Error(`holds ${entry.uncompressedSize} bytes, more than ${cap}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of await openEntry(zip, entry)) {
    size += (chunk as Buffer).length;
    if (size > cap) throw new Error(`holds more than ${cap} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** yauzl opens an entry from these few fields: a shell on its prototype stands in for the full object. */
function openEntry(zip: yauzl.ZipFile, entry: IndexedEntry): Promise<Readable> {
  const shell = Object.assign(Object.create(yauzl.Entry.prototype) as yauzl.Entry, {
    fileName: entry.name,
    relativeOffsetOfLocalHeader: entry.offset,
    compressedSize: entry.compressedSize,
    uncompressedSize: entry.uncompressedSize,
    compressionMethod: entry.compressionMethod,
    generalPurposeBitFlag: entry.flags,
  });
  return zip.openReadStreamPromise(shell);
}
