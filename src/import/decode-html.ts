/**
 * Bytes of an HTML document to text, by the WHATWG rules browsers follow (docs/decisions.md,
 * "URL import"): a byte-order mark wins, then the charset the transport declared (HTTP's
 * Content-Type), then a `<meta charset>` or `http-equiv` found in the first 1,024 bytes, then
 * windows-1252. encoding-sniffer decides; Node's TextDecoder decodes.
 */
import { getEncoding } from 'encoding-sniffer';

/** The text of `bytes`; `transportCharset` is the Content-Type's `charset` parameter, if any. */
export function decodeHtml(bytes: Uint8Array, transportCharset?: string): string {
  const encoding = getEncoding(bytes, transportCharset === undefined ? {} : { transportLayerEncodingLabel: transportCharset });
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    decoder = new TextDecoder(encoding);
  } catch {
    // A label this Node's ICU lacks: the WHATWG default still reads ASCII markup right.
    decoder = new TextDecoder('windows-1252');
  }
  return decoder.decode(bytes);
}
