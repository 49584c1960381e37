/**
 * The file names a downloaded book ends up under on an e-reader, for KOReader's second way of
 * naming a document in progress sync: the MD5 of the file's name (its "file name" checksum
 * method; docs/decisions.md, "KOReader sync"). Worked out from what KOReader does, not copied:
 *
 * - its OPDS browser names a download "<author> - <title>" from the entry (a missing author is
 *   "Unknown Author"), replaces each of `\/:*?"<>|` with `_`, drops trailing dots and spaces,
 *   adds ".epub", turns line breaks and tabs into spaces and cuts the name to 240 bytes without
 *   splitting a character;
 * - with its "Use server filenames" setting, and in browsers that ignore `filename*`, the
 *   Content-Disposition `filename` (URL-decoded by KOReader, already safe on any file system);
 * - browsers that read `filename*` save the full UTF-8 name.
 *
 * A name can only match what it was computed from, so a book renamed on the device, or whose
 * name KOReader's translated "Unknown Author" changed, syncs only by its file hash.
 */
import { createHash } from 'node:crypto';
import { attachmentNames } from '../lib/content-disposition.js';

/** What KOReader's OPDS browser calls an entry without an author (its English text). */
const UNKNOWN_AUTHOR = 'Unknown Author';
/** KOReader's longest file name, in bytes, before the extension is added back. */
const NAME_BYTES = 240;

/** The longest start of `text` that is at most `limit` UTF-8 bytes and ends on a whole character. */
function cutBytes(text: string, limit: number): string {
  let bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return text;
  bytes = bytes.subarray(0, limit);
  // Drop the bytes of a character the cut split (at most three).
  while (bytes.length > 0 && !Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes)) bytes = bytes.subarray(0, bytes.length - 1);
  return bytes.toString('utf8');
}

/** The name KOReader's OPDS browser saves an entry's EPUB under. */
export function koreaderOpdsName(title: string, author: string | null): string {
  const joined = `${author ?? UNKNOWN_AUTHOR} - ${title}`.replace(/[\\/:*?"<>|]/g, '_').replace(/[.\t\n\v\f\r ]+$/, ''); // Lua's %s: ASCII white space only
  return `${cutBytes(joined.replace(/\r?\n/g, ' ').replace(/\t/g, ' '), NAME_BYTES)}.epub`;
}

/** `%XX` sequences decoded as KOReader's urlDecode does (byte by byte, the rest left as is). */
function urlDecode(name: string): string {
  return Buffer.from(name.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
}

/**
 * Every name a book may be saved under: the download's own (`downloadTitle`, as
 * Content-Disposition offers it), and, for a story, the OPDS browser's name from its title and
 * author. Deduplicated.
 */
export function bookFileNames(downloadTitle: string, story?: { title: string; author: string | null }): string[] {
  const { ascii, full } = attachmentNames(downloadTitle, '.epub', 'book');
  const names = [urlDecode(ascii), full];
  if (story !== undefined) names.push(koreaderOpdsName(story.title, story.author));
  return [...new Set(names)];
}

/** KOReader's document id for a file name: the MD5 of its UTF-8 bytes, in hex. */
export function fileNameDigest(name: string): string {
  return createHash('md5').update(name, 'utf8').digest('hex');
}
