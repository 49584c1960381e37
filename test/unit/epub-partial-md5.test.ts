/**
 * KOReader's partial MD5 (docs/decisions.md, "KOReader sync"): samples of 1 KiB at 0 (the
 * wrapped `1024 << -2`), 1 KiB, 4 KiB, 16 KiB … stopping at the first offset past the end, each
 * sample cut short by the end of the file.
 */
import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import { koreaderPartialMd5 } from '../../src/epub/partial-md5.js';

const md5 = (...parts: Buffer[]) => createHash('md5').update(Buffer.concat(parts)).digest('hex');

t.test('samples the offsets KOReader reads', async (t) => {
  const file = randomBytes(5 * 1024 * 1024);
  const offsets = [0, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304];
  t.equal(koreaderPartialMd5(file), md5(...offsets.map((at) => file.subarray(at, at + 1024))));
});

t.test('short files: the last sample is cut short, and offsets past the end are not read', async (t) => {
  const small = randomBytes(700);
  t.equal(koreaderPartialMd5(small), md5(small), 'under 1 KiB: the whole file');
  const medium = randomBytes(1500);
  t.equal(koreaderPartialMd5(medium), md5(medium.subarray(0, 1024), medium.subarray(1024)), '0 and 1 KiB');
  const exact = randomBytes(4096);
  t.equal(koreaderPartialMd5(exact), md5(exact.subarray(0, 1024), exact.subarray(1024, 2048)), 'an offset equal to the size is past the end');
  t.equal(koreaderPartialMd5(Buffer.alloc(0)), md5(), 'an empty file');
});
