/**
 * Bytes of an HTML document to text, by the WHATWG rules browsers follow (docs/decisions.md,
 * "URL import"): a byte-order mark wins, then the charset the transport declared (HTTP's
 * Content-Type), then a `<meta charset>` or `http-equiv` found in the first 1,024 bytes. With
 * none of those, UTF-8 when the bytes are valid UTF-8 (as Chromium's detector decides for such
 * pages; most undeclared pages today are UTF-8, and valid UTF-8 is almost never meant as
 * windows-1252), else the standard's windows-1252. encoding-sniffer decides; Node's TextDecoder
 * decodes.
 */
import { getEncoding } from 'encoding-sniffer';

/** The text of `bytes`; `transportCharset` is the Content-Type's `charset` parameter, if any. */
export function decodeHtml(bytes: Uint8Array, transportCharset?: string): string {
  const transport = transportCharset === undefined ? {} : { transportLayerEncodingLabel: transportCharset };
  const encoding = getEncoding(bytes, transport);
  // The same answer with another default means something declared it; a different one, nothing did.
  const declared = getEncoding(bytes, { ...transport, defaultEncoding: 'UTF-8' }) === encoding;
  if (!declared) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      // Not UTF-8: fall through to the standard's default.
    }
  }
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    decoder = new TextDecoder(encoding);
  } catch {
    // A label this Node's ICU lacks: the WHATWG default still reads ASCII markup right.
    decoder = new TextDecoder('windows-1252');
  }
  return decoder.decode(bytes);
}
