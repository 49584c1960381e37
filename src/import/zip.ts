/**
 * The import's ZIP files (uploaded archives and EPUBs), read through the one defensive reader
 * (src/lib/safe-zip.ts) with the import's caps (docs/decisions.md, "File import"): more than
 * {@link ZIP_ENTRIES_MAX} entries or more than {@link ZIP_TOTAL_BYTES_MAX} declared uncompressed
 * bytes, an unsafe name or a symbolic link refuses the whole archive. Entries are read into
 * memory one at a time, never past their declared size nor past the caller's cap.
 */
import { SafeZip, UnsafeZip, type ZipEntry, type ZipRefusal } from '../lib/safe-zip.js';

export const ZIP_ENTRIES_MAX = 10_000;
export const ZIP_TOTAL_BYTES_MAX = 1024 * 1024 * 1024;

/** An archive that is refused as a whole: the reason is shown as the file's import error. */
export class UnsafeArchive extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeArchive';
  }
}

export interface OpenedZip {
  /** Every file entry (folders left out), in the archive's order. */
  entries: readonly ZipEntry[];
  /** The bytes of one entry; refused when it declares more than `maxBytes`. */
  read(entry: ZipEntry, maxBytes: number): Promise<Buffer>;
  close(): void;
}

/** The import's words for a refused archive, as its job errors show them. */
function refusalMessage(refusal: ZipRefusal): string {
  switch (refusal.problem) {
    case 'not-a-zip':
    case 'bad-entry':
      return `not a readable ZIP: ${refusal.cause}`;
    case 'symlink':
      return `refused: symbolic link: ${refusal.name}`;
    case 'too-many-entries':
      return `refused: more than ${refusal.max} entries`;
    case 'too-many-bytes':
      return `refused: more than ${refusal.max} bytes once uncompressed`;
  }
}

/** Opens a ZIP file (a path or its bytes) and checks its whole directory first; throws {@link UnsafeArchive}. */
export async function openZip(source: string | Buffer): Promise<OpenedZip> {
  let zip: SafeZip;
  try {
    zip = await SafeZip.open(source, { maxEntries: ZIP_ENTRIES_MAX, maxTotalBytes: ZIP_TOTAL_BYTES_MAX });
  } catch (error) {
    throw error instanceof UnsafeZip ? new UnsafeArchive(refusalMessage(error.refusal)) : error;
  }
  return {
    entries: zip.entries,
    close: () => zip.close(),
    read: async (entry, maxBytes) => {
      if (entry.uncompressedSize > maxBytes) throw new UnsafeArchive(`${entry.name} is over ${maxBytes} bytes once uncompressed`);
      return zip.read(entry, maxBytes);
    },
  };
}
