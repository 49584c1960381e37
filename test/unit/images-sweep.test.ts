import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import t, { type Test } from 'tap';
import { ImageStore, TRASH_DIR, UNATTACHED_DIR } from '../../src/images/store.js';
import { tempDataDir } from '../helpers/app.js';
import * as img from '../helpers/images.js';

const quiet = { warn: () => undefined };

async function openStore(t: Test, dataDir = tempDataDir(t)) {
  const store = await ImageStore.open(path.join(dataDir, 'images'), quiet);
  return { dataDir, store, root: store.root };
}

function save(store: ImageStore, kind: 'covers' | 'avatars' = 'covers'): Promise<string> {
  return store.saveUploadedImage({ fieldname: 'file', file: Readable.from([img.png()]) }, kind);
}

t.test('the startup sweep trashes what nothing names and nothing waits for, and keeps the rest', async (t) => {
  const { store, root } = await openStore(t);
  await store.sweepUnreferenced(() => false); // a fresh folder: completes its (empty) set of markers
  const named = await save(store);
  const waiting = await save(store, 'avatars');
  await store.markUnattached(waiting);
  const leftover = await save(store); // stored, but the row that would name it never committed
  fs.symlinkSync('/etc/passwd', path.join(root, 'covers', 'link.png'));

  const trashed = await store.sweepUnreferenced((relPath) => relPath === named);
  t.same(trashed.sort(), [leftover, 'covers/link.png'].sort());
  t.same(img.imageFolderFiles(path.dirname(root)).sort(), [named, waiting].sort(), 'the named and the waiting images stay');
  t.ok(fs.existsSync(path.join(root, TRASH_DIR, leftover)), 'the leftover went to the trash, not away');
  t.ok(fs.lstatSync(path.join(root, TRASH_DIR, 'covers', 'link.png')).isSymbolicLink(), 'a link is moved as a link');
  t.ok(fs.existsSync('/etc/passwd'));
});

t.test('markers of attached or vanished images are dropped', async (t) => {
  const { store, root } = await openStore(t);
  await store.sweepUnreferenced(() => false);
  const attached = await save(store);
  const vanished = await save(store);
  await store.markUnattached(attached);
  await store.markUnattached(vanished);
  fs.rmSync(path.join(root, vanished));

  t.same(await store.sweepUnreferenced((relPath) => relPath === attached), []);
  t.same(fs.readdirSync(path.join(root, UNATTACHED_DIR, 'covers')), [], 'no marker is left');
  t.same(await store.sweepUnreferenced(() => false), [attached], 'an image released later is swept like any other');
});

t.test('removing an image forgets its marker', async (t) => {
  const { store, root } = await openStore(t);
  const waiting = await save(store);
  await store.markUnattached(waiting);
  t.equal(await store.removeImage(waiting), true);
  t.same(fs.readdirSync(path.join(root, UNATTACHED_DIR, 'covers')), []);
});

t.test('a data folder from before the markers: its first sweep adopts every unreferenced image', async (t) => {
  const dataDir = tempDataDir(t);
  const covers = path.join(dataDir, 'images', 'covers');
  fs.mkdirSync(covers, { recursive: true });
  fs.writeFileSync(path.join(covers, 'old-upload.png'), img.png());
  const { store } = await openStore(t, dataDir);

  t.same(await store.sweepUnreferenced(() => false), [], 'nothing is removed the first time');
  t.same(await store.sweepUnreferenced(() => false), [], 'and the adopted upload keeps waiting after');
  t.same(img.imageFolderFiles(dataDir), ['covers/old-upload.png']);
  fs.writeFileSync(path.join(covers, 'new-leftover.png'), img.png());
  t.same(await store.sweepUnreferenced(() => false), ['covers/new-leftover.png'], 'later leftovers are swept');
});
