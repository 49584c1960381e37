/**
 * The EPUB's ZIP container, byte for byte reproducible (docs/decisions.md, "EPUB export"): entries
 * in the order given, `mimetype` first and stored, every entry stamped with the book's version,
 * text deflated at one fixed level, images stored (they are compressed already). Only DOS
 * timestamps are written (`forceDosTimestamp`), and they are made from the stamp's UTC fields, so
 * the server's time zone cannot change the bytes. Same entries, same bytes: KOReader's hash of
 * the file then names one version of the book.
 */
import { buffer } from 'node:stream/consumers';
import yazl from 'yazl';

export interface ZipEntry {
  name: string;
  bytes: Buffer;
  /** Deflate (text) or store (images, mimetype). */
  compress: boolean;
}

/** zlib's level for text entries: its default, written down so a change is deliberate. */
const DEFLATE_LEVEL = 6;

/** A Date whose local-time fields equal `iso`'s UTC fields: yazl writes DOS times from local fields. */
function dosStamp(iso: string): Date {
  const utc = new Date(iso);
  return new Date(utc.getUTCFullYear(), utc.getUTCMonth(), utc.getUTCDate(), utc.getUTCHours(), utc.getUTCMinutes(), utc.getUTCSeconds());
}

/** The ZIP of these entries, in this order, every one dated `stamp`. */
export function zipEntries(entries: readonly ZipEntry[], stamp: string): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const mtime = dosStamp(stamp);
  for (const entry of entries) {
    zip.addBuffer(entry.bytes, entry.name, entry.compress ? { mtime, forceDosTimestamp: true, compressionLevel: DEFLATE_LEVEL } : { mtime, forceDosTimestamp: true, compress: false });
  }
  zip.end();
  return buffer(zip.outputStream);
}
