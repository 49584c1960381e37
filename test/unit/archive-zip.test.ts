/**
 * The private parts of yazl that src/archive/export.ts relies on to keep its writing linear
 * (`parkWrittenEntries`): the list of entries is `entries`, and a written entry's `state` is 3.
 * A yazl upgrade that changes either fails here, not in a slow export. Kept as a pin because yazl
 * 3.3.1 offers no public way to avoid its quadratic scan (the reason is beside `YazlInternals`).
 */
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import t from 'tap';
import yazl from 'yazl';

t.test("yazl keeps its entries in `entries`, each at state 3 once written", async (t) => {
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from('one'), 'a.txt');
  zip.addBuffer(Buffer.from('two'), 'b.txt');
  const entries = (zip as unknown as { entries: { state: number; utf8FileName: Buffer }[] }).entries;
  t.ok(Array.isArray(entries));
  t.same(entries.map((entry) => entry.utf8FileName.toString()), ['a.txt', 'b.txt']);
  zip.end();
  await pipeline(zip.outputStream, new Writable({ write: (_chunk, _encoding, callback) => callback() }));
  t.same(entries.map((entry) => entry.state), [3, 3]);
});
