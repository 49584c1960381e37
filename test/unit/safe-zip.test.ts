/**
 * The one defensive ZIP reader (src/lib/safe-zip.ts) under the file import and the library
 * archive: what refuses an archive as a whole, and reading entries from the small index through
 * yauzl's public low-level calls (the local header read raw, then the data at the offset it
 * gives), from a path or from bytes, in a fresh reader as a resumed restore does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { deflateRawSync } from 'node:zlib';
import t from 'tap';
import yazl from 'yazl';
import { SafeZip, UnsafeZip, type ZipRefusal } from '../../src/lib/safe-zip.js';
import { zipOf } from '../helpers/archive.js';
import { tempDataDir } from '../helpers/app.js';

const LIMITS = { maxEntries: 100, maxTotalBytes: 1024 * 1024 };

async function refusal(source: string | Buffer, limits = LIMITS): Promise<ZipRefusal> {
  try {
    (await SafeZip.open(source, limits)).close();
  } catch (error) {
    if (error instanceof UnsafeZip) return error.refusal;
    throw error;
  }
  throw new Error('the archive was not refused');
}

/** A ZIP with a folder entry `folder/` before the given files. */
function withFolder(files: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  zip.addEmptyDirectory('folder/');
  for (const [name, data] of Object.entries(files)) zip.addBuffer(Buffer.from(data), name);
  zip.end();
  return buffer(zip.outputStream);
}

/**
 * One stored entry whose local header carries an extra field the central record does not, as
 * some writers do (yazl writes the opposite): the data starts where the local header says.
 */
function zipWithLocalExtra(name: string, data: Buffer): Buffer {
  const nameBytes = Buffer.from(name);
  const extra = Buffer.from([0xfe, 0xca, 0x03, 0x00, 1, 2, 3]);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(10, 4);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  local.writeUInt16LE(extra.length, 28);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(10, 4);
  central.writeUInt16LE(10, 6);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  central.writeUInt32LE(0, 42);
  const body = Buffer.concat([local, nameBytes, extra, data]);
  const directory = Buffer.concat([central, nameBytes]);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(body.length, 16);
  return Buffer.concat([body, directory, end]);
}

t.test('entries are read from the index, by path or from bytes, stored or deflated, and again after a reopen', async (t) => {
  const long = 'a long line of text that deflates well. '.repeat(2000);
  const bytes = await zipOf({ 'folder/one.txt': 'one', 'two.html': long, 'image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47]) });
  const folder = await SafeZip.open(await withFolder({ 'folder/a.txt': 'a' }), LIMITS);
  t.same(folder.entries.map((entry) => entry.name), ['folder/a.txt'], 'folders are left out of the index');
  folder.close();
  const file = path.join(tempDataDir(t), 'some.zip');
  fs.writeFileSync(file, bytes);

  for (const source of [file, bytes]) {
    const zip = await SafeZip.open(source, LIMITS);
    t.same(zip.entries.map((entry) => entry.name), ['folder/one.txt', 'two.html', 'image.png']);
    t.ok(zip.entries[1]!.compressedSize < long.length, 'the long entry is deflated');
    t.equal((await zip.read(zip.entries[0]!, 100)).toString(), 'one');
    t.equal((await zip.read(zip.entries[1]!, long.length)).toString(), long);
    t.same([...(await zip.read(zip.entries[2]!, 4))], [0x89, 0x50, 0x4e, 0x47]);
    zip.close();
  }

  const first = await SafeZip.open(file, LIMITS);
  const index = first.entries;
  first.close();
  const again = await SafeZip.open(file, LIMITS);
  t.teardown(() => again.close());
  t.equal((await again.read(index[1]!, long.length)).toString(), long, 'an entry kept from an earlier open reads the same');

  const local = await SafeZip.open(zipWithLocalExtra('story.txt', Buffer.from('the story')), LIMITS);
  t.equal((await local.read(local.entries[0]!, 100)).toString(), 'the story', 'the data starts after the local header’s own extra field');
  local.close();
});

t.test('the caller’s caps and the entry’s own size bound each read', async (t) => {
  const zip = await SafeZip.open(await zipOf({ 'big.txt': 'x'.repeat(5000) }), LIMITS);
  t.teardown(() => zip.close());
  await t.rejects(zip.read(zip.entries[0]!, 4999), /holds 5000 bytes, more than 4999/);
  t.equal((await zip.read(zip.entries[0]!, 5000)).length, 5000);
});

t.test('an entry whose local header is not one is refused when read', async (t) => {
  const bytes = await zipOf({ 'a.txt': 'a' });
  bytes.write('XX', 0, 'latin1');
  const zip = await SafeZip.open(bytes, LIMITS);
  t.teardown(() => zip.close());
  await t.rejects(zip.read(zip.entries[0]!, 10), /a.txt: invalid local file header/);
});

t.test('archives that could write outside their place or hide a bomb are refused whole', async (t) => {
  t.match(await refusal(Buffer.from('hello')), { problem: 'not-a-zip' });
  t.match(await refusal(await zipOf({ '../x': 'boom' })), { problem: 'bad-entry', cause: /invalid relative path/ });
  t.match(await refusal(await zipOf({ '/etc/x': 'boom' })), { problem: 'bad-entry', cause: /absolute path/ });
  const backslash = await zipOf({ 'a_b.txt': 'x' });
  for (let at = backslash.indexOf('a_b.txt'); at !== -1; at = backslash.indexOf('a_b.txt', at + 1)) backslash.write('\\', at + 1, 'latin1');
  t.match(await refusal(backslash), { problem: 'bad-entry', cause: /invalid characters/ }, 'a backslash in a name');
  t.match(await refusal(await zipOf({ 'link.txt': '/etc/passwd' }, { symlink: 'link.txt' })), { problem: 'symlink', name: 'link.txt' });
  const three = await withFolder({ 'folder/b.txt': 'b', 'c.txt': 'c' });
  t.same(await refusal(three, { ...LIMITS, maxEntries: 2 }), { problem: 'too-many-entries', count: 3, max: 2 }, 'folders count as entries');
  const bomb = await zipOf({ 'a.txt': Buffer.alloc(600_000), 'b.txt': Buffer.alloc(600_000) });
  t.ok(bomb.length < 10_000, 'small compressed');
  t.same(await refusal(bomb), { problem: 'too-many-bytes', max: LIMITS.maxTotalBytes }, 'declared sizes add up past the cap');
  t.equal((await SafeZip.open(three, { ...LIMITS, maxEntries: 3 })).entries.length, 2, 'at the cap, taken');
  t.match(await refusal(deflateRawSync(Buffer.from('not a zip either'))), { problem: 'not-a-zip', cause: /central directory record signature not found/ });
});
