/**
 * KOReader's document hash ("Binary" document matching of its sync plugin; docs/decisions.md,
 * "KOReader sync"): MD5 over 1,024-byte samples at offsets `1024 << 2i` for i = -1 to 10, stopping
 * at the first offset past the end. The shift is a 32-bit one whose count is taken modulo 32
 * (LuaJIT's bit.lshift), so i = -1 gives `1024 << 30`, which wraps to 0: the first sample is the
 * file's first KiB. JavaScript's `<<` has the same semantics, so the formula is written as is.
 */
import { createHash } from 'node:crypto';

const SAMPLE_BYTES = 1024;

/** The partial MD5 (lowercase hex) of a whole file held in memory. */
export function koreaderPartialMd5(bytes: Uint8Array): string {
  const md5 = createHash('md5');
  for (let i = -1; i <= 10; i++) {
    const offset = SAMPLE_BYTES << (2 * i);
    if (offset >= bytes.length) break;
    md5.update(bytes.subarray(offset, offset + SAMPLE_BYTES));
  }
  return md5.digest('hex');
}
