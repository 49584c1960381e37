/**
 * Reading a library archive safely (docs/decisions.md, "Library archive"), through the one
 * defensive ZIP reader (src/lib/safe-zip.ts) with the archive's caps: the whole central
 * directory is checked before anything is restored, and any entry that could write outside its
 * place or hide a bomb refuses the whole archive. Entries are read one at a time with their
 * sizes capped, never the archive as a whole.
 */
import type { Readable } from 'node:stream';
import { isImagePath } from '../images/image-path.js';
import { SafeZip, UnsafeZip, type ZipEntry, type ZipRefusal } from '../lib/safe-zip.js';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, ArchiveManifest } from '../schemas/archive.js';
import { checkEntry } from './entry-check.js';

export interface ArchiveLimits {
  /** Entries in all (the index of entries is held in memory, ~100 bytes each). */
  maxEntries: number;
  /** Uncompressed bytes of every entry together, as declared (and enforced while reading). */
  maxTotalBytes: number;
  /** One `stories/<id>.json` (16 MiB of HTML, the API's body limit, plus its escaping). */
  maxStoryBytes: number;
  /** `authors.jsonl`, `series.jsonl`, `tags.jsonl`, `progress.jsonl` or `shelves.jsonl`, each. */
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

/** What is kept of an entry: enough to open it again (src/lib/safe-zip.ts). */
export type IndexedEntry = ZipEntry;

export const LIST_NAMES = ['authors.jsonl', 'series.jsonl', 'tags.jsonl', 'progress.jsonl', 'shelves.jsonl'] as const;
export type ListName = (typeof LIST_NAMES)[number];

const STORY_ENTRY = /^stories\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(json|html)$/;

export class ArchiveReader {
  private constructor(
    private readonly zip: SafeZip,
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
    let zip: SafeZip;
    try {
      zip = await SafeZip.open(file, { maxEntries: limits.maxEntries, maxTotalBytes: limits.maxTotalBytes });
    } catch (error) {
      throw error instanceof UnsafeZip ? new ArchiveRejected(refusalMessage(error.refusal)) : error;
    }
    try {
      const seen = new Set<string>();
      const stories: IndexedEntry[] = [];
      const images: IndexedEntry[] = [];
      const lists = new Map<ListName, IndexedEntry>();
      const ignored: string[] = [];
      let manifestEntry: IndexedEntry | undefined;
      for (const entry of zip.entries) {
        const name = entry.name;
        if (seen.has(name)) throw new ArchiveRejected(`the entry ${name} appears twice`);
        seen.add(name);
        if (SafeZip.isEncrypted(entry)) throw new ArchiveRejected(`the entry ${name} is encrypted`);
        if (!SafeZip.isReadable(entry)) throw new ArchiveRejected(`the entry ${name} uses an unknown compression method`);
        if (name === 'manifest.json') manifestEntry = entry;
        else if ((LIST_NAMES as readonly string[]).includes(name)) {
          if (entry.uncompressedSize > limits.maxListBytes) throw new ArchiveRejected(`${name} holds more than ${limits.maxListBytes} bytes`);
          lists.set(name as ListName, entry);
        } else if (STORY_ENTRY.exec(name)?.[2] === 'json') stories.push(entry);
        else if (STORY_ENTRY.test(name)) continue; // the readable copy: for people, not restored
        else if (name.startsWith('images/') && isImagePath(name.slice('images/'.length))) images.push(entry);
        else ignored.push(name);
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
    return this.zip.read(entry, cap);
  }

  /** The entry's uncompressed bytes as a stream (sizes checked against the directory by yauzl). */
  openStream(entry: IndexedEntry): Promise<Readable> {
    return this.zip.stream(entry);
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

/** The archive's words for a refused ZIP, as the 400's `details.file` shows them. */
function refusalMessage(refusal: ZipRefusal): string {
  switch (refusal.problem) {
    case 'not-a-zip':
      return `not a readable ZIP archive (${refusal.cause})`;
    case 'bad-entry':
      // yauzl refuses absolute paths, `..` segments and backslashes in names itself.
      return `unsafe or unreadable entry: ${refusal.cause}`;
    case 'symlink':
      return `the entry ${refusal.name} is a symbolic link`;
    case 'too-many-entries':
      return `too many entries: ${refusal.count} (at most ${refusal.max})`;
    case 'too-many-bytes':
      return `the entries hold more than ${refusal.max} bytes uncompressed`;
  }
}

/** The manifest, checked: {@link ArchiveRejected} unless it is a valid manifest of a version this code reads. */
async function readManifest(zip: SafeZip, entry: IndexedEntry): Promise<ArchiveManifest> {
  if (entry.uncompressedSize > 1024 ** 2) throw new ArchiveRejected('manifest.json is larger than 1 MiB');
  let value: unknown;
  try {
    value = JSON.parse((await zip.read(entry, 1024 ** 2)).toString('utf8'));
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
