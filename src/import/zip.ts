/**
 * Reading ZIP files (uploaded archives and EPUBs) with yauzl, defensively (docs/decisions.md,
 * "File import"): an entry whose name is absolute, climbs with `..`, or is a symbolic link makes
 * the whole archive refused; so do more than {@link ZIP_ENTRIES_MAX} entries or more than
 * {@link ZIP_TOTAL_BYTES_MAX} declared uncompressed bytes (a zip bomb). Entries are read into
 * memory one at a time, never past their declared size (yauzl checks that the data matches it)
 * nor past the caller's cap; nothing is ever extracted to disk.
 */
import yauzl, { type Entry, type ZipFile } from 'yauzl';

export const ZIP_ENTRIES_MAX = 10_000;
export const ZIP_TOTAL_BYTES_MAX = 1024 * 1024 * 1024;

/** An archive that is refused as a whole: the reason is shown as the file's import error. */
export class UnsafeArchive extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeArchive';
  }
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

export interface OpenedZip {
  /** Every file entry (folders left out), in the archive's order. */
  entries: Entry[];
  /** The bytes of one entry; refused when it declares more than `maxBytes`. */
  read(entry: Entry, maxBytes: number): Promise<Buffer>;
  close(): void;
}

/** Why an entry makes the whole archive unsafe, or undefined. */
function unsafeEntry(entry: Entry): string | undefined {
  const name = entry.fileName;
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name) || name.includes('\\')) return `absolute or Windows path: ${name}`;
  if (name.split('/').includes('..')) return `path climbing out of the archive: ${name}`;
  if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) return `symbolic link: ${name}`;
  return undefined;
}

function openSource(source: string | Buffer): Promise<ZipFile> {
  const options = { lazyEntries: true, autoClose: false, validateEntrySizes: true, decodeStrings: true };
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, zip?: ZipFile) => (error !== null || zip === undefined ? reject(error) : resolve(zip));
    if (typeof source === 'string') yauzl.open(source, options, done);
    else yauzl.fromBuffer(source, options, done);
  });
}

/** Every entry of the central directory, checked as it is listed. */
function listEntries(zip: ZipFile): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    let total = 0;
    const fail = (error: Error) => {
      zip.close();
      reject(error);
    };
    zip.on('error', (error: Error) => fail(error instanceof UnsafeArchive ? error : new UnsafeArchive(`not a readable ZIP: ${error.message}`)));
    zip.on('entry', (entry: Entry) => {
      const unsafe = unsafeEntry(entry);
      if (unsafe !== undefined) return fail(new UnsafeArchive(`refused: ${unsafe}`));
      if (!entry.fileName.endsWith('/')) {
        entries.push(entry);
        total += entry.uncompressedSize;
      }
      if (entries.length > ZIP_ENTRIES_MAX) return fail(new UnsafeArchive(`refused: more than ${ZIP_ENTRIES_MAX} entries`));
      if (total > ZIP_TOTAL_BYTES_MAX) return fail(new UnsafeArchive(`refused: more than ${ZIP_TOTAL_BYTES_MAX} bytes once uncompressed`));
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.readEntry();
  });
}

/** Opens a ZIP file (a path or its bytes) and checks its whole directory first; throws {@link UnsafeArchive}. */
export async function openZip(source: string | Buffer): Promise<OpenedZip> {
  let zip: ZipFile;
  try {
    zip = await openSource(source);
  } catch (error) {
    throw new UnsafeArchive(`not a readable ZIP: ${(error as Error).message}`);
  }
  const entries = await listEntries(zip);
  return {
    entries,
    close: () => zip.close(),
    read: (entry, maxBytes) => {
      if (entry.uncompressedSize > maxBytes) {
        return Promise.reject(new UnsafeArchive(`${entry.fileName} is over ${maxBytes} bytes once uncompressed`));
      }
      if (entry.isEncrypted()) return Promise.reject(new Error(`${entry.fileName} is encrypted`));
      return new Promise<Buffer>((resolve, reject) => {
        zip.openReadStream(entry, (error, stream) => {
          if (error !== null) return reject(error);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => resolve(Buffer.concat(chunks)));
        });
      });
    },
  };
}
