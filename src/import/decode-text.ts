/**
 * Bytes of an imported file or page to text: the one decoder for HTML pages fetched by address,
 * and for HTML, text and Markdown files (docs/decisions.md, "URL import" and "File import").
 *
 * In order, the first that answers decides:
 * 1. a byte-order mark (UTF-8, UTF-16LE, UTF-16BE);
 * 2. HTML only: the charset the transport declared (HTTP's Content-Type), then a `<meta charset>`
 *    or `http-equiv` in the first 1,024 bytes, as the WHATWG rules browsers follow say
 *    (encoding-sniffer decides);
 * 3. UTF-16 without a mark, by the zero bytes every ASCII character has in one half of its code
 *    unit (Windows editors save "Unicode" so; read as UTF-8, such a file kept one NUL per letter);
 * 4. UTF-8 when the bytes are valid UTF-8 (as Chromium's detector decides for undeclared pages;
 *    valid UTF-8 is almost never meant as anything else);
 * 5. else windows-1252, the standard's default and what Windows editors wrote for decades: it
 *    reads every byte, so a curly quote or an é is kept instead of becoming U+FFFD.
 *
 * Node's TextDecoder decodes. What could not be decoded (U+FFFD that was not in the source) and
 * the NUL characters removed are counted in `notes`, which the import job lists in its result:
 * nothing is lost without saying so.
 */
import { getEncoding } from 'encoding-sniffer';

export interface DecodedText {
  text: string;
  /** The WHATWG name of the encoding the bytes were read as. */
  encoding: string;
  /** What decoding changed, in words for the job's result; empty when nothing was lost. */
  notes: string[];
}

export type DecodeKind = 'html' | 'text';

/** Bytes looked at to recognise UTF-16 without a byte-order mark. */
const UTF16_SAMPLE = 4096;

function bomEncoding(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

/**
 * UTF-16LE or BE when, in the first code units, one half is zero in at least a quarter of them
 * and the other half almost never: Latin-script text in UTF-16. Text in UTF-8 or a legacy
 * charset has no zero bytes at all.
 */
export function sniffUtf16(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  const units = Math.min(bytes.length, UTF16_SAMPLE) >> 1;
  if (units < 2) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < units; i += 1) {
    if (bytes[2 * i] === 0) evenZeros += 1;
    if (bytes[2 * i + 1] === 0) oddZeros += 1;
  }
  if (oddZeros * 4 >= units && evenZeros * 20 <= oddZeros) return 'utf-16le';
  if (evenZeros * 4 >= units && oddZeros * 20 <= evenZeros) return 'utf-16be';
  return undefined;
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The encoding step 2 finds declared in an HTML document, or undefined when nothing declares one. */
function declaredHtmlEncoding(bytes: Uint8Array, transportCharset: string | undefined): string | undefined {
  const transport = transportCharset === undefined ? {} : { transportLayerEncodingLabel: transportCharset };
  const encoding = getEncoding(bytes, transport);
  // The same answer with another default means something declared it; a different one, nothing did.
  return getEncoding(bytes, { ...transport, defaultEncoding: 'UTF-8' }) === encoding ? encoding : undefined;
}

/** U+FFFD characters a source in `encoding` itself holds: only the Unicode encodings can spell one. */
function replacementsInSource(bytes: Uint8Array, encoding: string): number {
  let count = 0;
  if (encoding === 'utf-8') {
    for (let i = bytes.indexOf(0xef); i !== -1; i = bytes.indexOf(0xef, i + 1)) if (bytes[i + 1] === 0xbf && bytes[i + 2] === 0xbd) count += 1;
  } else if (encoding === 'utf-16le' || encoding === 'utf-16be') {
    const [high, low] = encoding === 'utf-16le' ? [1, 0] : [0, 1];
    for (let i = 0; i + 1 < bytes.length; i += 2) if (bytes[i + high] === 0xff && bytes[i + low] === 0xfd) count += 1;
  }
  return count;
}

function countOf(text: string, char: string): number {
  let count = 0;
  for (let i = text.indexOf(char); i !== -1; i = text.indexOf(char, i + 1)) count += 1;
  return count;
}

/**
 * What windows-1252 reads bytes 0x80-0x9F as (the WHATWG index): the curly quotes, dashes, € and
 * the like. Node 20's TextDecoder reads this encoding as ISO-8859-1, which puts invisible C1
 * control characters there instead, so every quote of a Windows file vanished; the other bytes
 * are the same in both.
 */
const WINDOWS_1252_HIGH = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decodeWindows1252(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('latin1')
    .replace(/[\x80-\x9f]/g, (char) => WINDOWS_1252_HIGH[char.charCodeAt(0) - 0x80] as string);
}

function decodeAs(bytes: Uint8Array, encoding: string): DecodedText {
  const notes: string[] = [];
  let text: string;
  try {
    // Every byte means something in windows-1252: it never fails.
    text = encoding === 'windows-1252' ? decodeWindows1252(bytes) : new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    text = new TextDecoder(encoding).decode(bytes);
    const lost = countOf(text, '\uFFFD') - replacementsInSource(bytes, encoding);
    if (lost > 0) notes.push(`${lost} ${lost === 1 ? 'sequence was' : 'sequences were'} not valid ${encoding} and ${lost === 1 ? 'is' : 'are'} shown as \uFFFD`);
  }
  const nuls = countOf(text, '\0');
  if (nuls > 0) {
    text = text.replaceAll('\0', '');
    notes.push(`${nuls} NUL ${nuls === 1 ? 'character was' : 'characters were'} removed`);
  }
  return { text, encoding, notes };
}

/** `bytes` as text by the rules above; `transportCharset` is the Content-Type's `charset`, if any (HTML only). */
export function decodeImported(bytes: Uint8Array, kind: DecodeKind, transportCharset?: string): DecodedText {
  const bom = bomEncoding(bytes);
  if (bom !== undefined) return decodeAs(bytes, bom); // TextDecoder drops the mark itself
  const declared = kind === 'html' ? declaredHtmlEncoding(bytes, transportCharset) : undefined;
  const label = declared ?? sniffUtf16(bytes) ?? (isUtf8(bytes) ? 'utf-8' : 'windows-1252');
  let encoding: string;
  try {
    encoding = new TextDecoder(label).encoding; // the canonical lower-case name
  } catch {
    // A label this Node's ICU lacks: the WHATWG default still reads ASCII markup right.
    encoding = 'windows-1252';
  }
  return decodeAs(bytes, encoding);
}

/** The text of an HTML page (docs/decisions.md, "URL import"); `transportCharset` is the Content-Type's `charset`, if any. */
export function decodeHtml(bytes: Uint8Array, transportCharset?: string): string {
  return decodeImported(bytes, 'html', transportCharset).text;
}
