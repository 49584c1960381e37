/**
 * `Content-Disposition: attachment` for a download named after user text (RFC 6266): an ASCII
 * `filename` every client understands, and the real name in `filename*` (UTF-8, percent-encoded)
 * for the clients that read it, which is all current browsers and e-reader apps.
 */

/** Longest name offered, in characters: file systems cap names near 255 bytes. */
const NAME_MAX = 120;

/** Characters file systems or the header itself cannot take in a name. */
const UNSAFE = /[\u0000-\u001F\u007F"\\/:*?<>|]+/g;

/**
 * The first {@link NAME_MAX} UTF-16 units of `text`, one fewer when the cut would split a
 * surrogate pair: a lone half makes `encodeURIComponent` throw, which turned a download whose
 * title (or search text) has an emoji at the cut into a 500.
 */
function cutName(text: string): string {
  const cut = text.slice(0, NAME_MAX);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

function cleanName(name: string): string {
  return cutName(name.replace(UNSAFE, '_').replace(/\s+/g, ' ').trim()).trim();
}

/** RFC 5987 value characters: encodeURIComponent leaves `'()*` and `!` as is, which the grammar does not allow. */
function percentEncode(text: string): string {
  return encodeURIComponent(text).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The two names {@link attachment} offers for `name` + `extension`: `ascii` (the `filename`
 * parameter) and `full` (the `filename*` one), extension included. KOReader sync matches a book
 * by the name it was saved under, so the EPUB service records these too (src/epub/file-names.ts).
 */
export function attachmentNames(name: string, extension: string, fallback = 'download'): { ascii: string; full: string } {
  const clean = cleanName(name) || fallback;
  const ascii = cleanName(clean.normalize('NFKD').replace(/[\u0300-\u036F]/g, '').replace(/[^\u0020-\u007E]+/g, '_')) || fallback;
  return { ascii: `${ascii}${extension}`, full: `${clean}${extension}` };
}

/** The header value for downloading `name` + `extension` (extension with its dot, e.g. ".epub"). */
export function attachment(name: string, extension: string, fallback = 'download'): string {
  const { ascii, full } = attachmentNames(name, extension, fallback);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${percentEncode(full)}`;
}
