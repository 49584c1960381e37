import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import t, { type Test } from 'tap';
import { HttpError } from '../../src/errors.js';
import { findStoredImage, ImageStore, INCOMING_DIR, MAX_IMAGE_BYTES, TRASH_DIR, TRASH_RETENTION_MS, type UploadedPart } from '../../src/images/store.js';
import { tempDataDir } from '../helpers/app.js';
import * as img from '../helpers/images.js';

const quiet = { warn: () => undefined };

async function openStore(t: Test) {
  const dataDir = tempDataDir(t);
  const store = await ImageStore.open(path.join(dataDir, 'images'), quiet);
  return { dataDir, store, root: store.root };
}

/** A stand-in for a multipart file part: the bytes in chunks of `chunk`. */
function part(bytes: Buffer, chunk = 64 * 1024, fieldname = 'file'): UploadedPart {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += chunk) chunks.push(bytes.subarray(offset, offset + chunk));
  return { fieldname, file: Readable.from(chunks) };
}

function status(error: unknown): number | undefined {
  return error instanceof HttpError ? error.statusCode : undefined;
}

/** Every file under the images folder, relative to it. */
function listFiles(root: string): string[] {
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((entry) => fs.lstatSync(path.join(root, entry)).isFile())
    .sort();
}

t.test('startup creates the folders', async (t) => {
  const { root } = await openStore(t);
  for (const folder of ['covers', 'avatars', INCOMING_DIR, TRASH_DIR, `${TRASH_DIR}/covers`, `${TRASH_DIR}/avatars`]) {
    t.ok(fs.statSync(path.join(root, folder)).isDirectory(), folder);
  }
});

t.test('startup sweeps stale uploads and keeps fresh ones', async (t) => {
  const dataDir = tempDataDir(t);
  const incoming = path.join(dataDir, 'images', INCOMING_DIR);
  fs.mkdirSync(incoming, { recursive: true });
  fs.writeFileSync(path.join(incoming, 'old.upload'), 'x');
  const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
  fs.utimesSync(path.join(incoming, 'old.upload'), twoHoursAgo, twoHoursAgo);
  fs.writeFileSync(path.join(incoming, 'fresh.upload'), 'x');
  await ImageStore.open(path.join(dataDir, 'images'), quiet);
  t.same(fs.readdirSync(incoming), ['fresh.upload']);
});

t.test('startup refuses an image folder that is a symlink', async (t) => {
  for (const folder of ['covers', 'avatars', INCOMING_DIR, TRASH_DIR, `${TRASH_DIR}/covers`]) {
    const dataDir = tempDataDir(t);
    const outside = tempDataDir(t);
    fs.mkdirSync(path.dirname(path.join(dataDir, 'images', folder)), { recursive: true });
    fs.symlinkSync(outside, path.join(dataDir, 'images', folder));
    await t.rejects(ImageStore.open(path.join(dataDir, 'images'), quiet), /must be a directory/, folder);
  }
});

t.test('removing an image moves it into the trash, stamped with the time of removal', async (t) => {
  const { store, root } = await openStore(t);
  const relPath = await store.saveUploadedImage(part(img.png()), 'covers');
  const longAgo = new Date(Date.now() - 3 * TRASH_RETENTION_MS);
  fs.utimesSync(path.join(root, relPath), longAgo, longAgo);

  t.equal(await store.removeImage(relPath), true);
  t.notOk(fs.existsSync(path.join(root, relPath)), 'gone from covers/');
  const trashed = path.join(root, TRASH_DIR, relPath);
  t.same(fs.readFileSync(trashed), img.png(), 'kept whole in the trash for a running backup');
  t.equal(findStoredImage(root, relPath), trashed, 'the trash is where the online backup looks for removed images');
  t.ok(Date.now() - fs.statSync(trashed).mtimeMs < 60_000, 'the retention counts from the removal, not the upload');
  t.equal(status(await store.openImage(relPath).catch((e: unknown) => e)), 404, 'no longer served');
  t.equal(status(await store.openImage(`${TRASH_DIR}/${relPath}`).catch((e: unknown) => e)), 400, 'the trash is never served');
  t.equal(await store.removeImage(relPath), false, 'removing it again finds nothing');

  t.equal(await store.purgeTrash(TRASH_RETENTION_MS), 0, 'a fresh removal outlives a purge');
  t.equal(await store.purgeTrash(0), 1);
  t.notOk(fs.existsSync(trashed));
});

t.test('startup purges trash older than the retention and keeps fresher entries', async (t) => {
  const dataDir = tempDataDir(t);
  const trash = path.join(dataDir, 'images', TRASH_DIR);
  for (const kind of ['covers', 'avatars']) fs.mkdirSync(path.join(trash, kind), { recursive: true });
  const expired = new Date(Date.now() - TRASH_RETENTION_MS - 60_000);
  const recent = new Date(Date.now() - TRASH_RETENTION_MS + 10 * 60_000);
  fs.writeFileSync(path.join(trash, 'covers', 'old.png'), img.png());
  fs.utimesSync(path.join(trash, 'covers', 'old.png'), expired, expired);
  fs.writeFileSync(path.join(trash, 'avatars', 'old.jpg'), img.jpeg());
  fs.utimesSync(path.join(trash, 'avatars', 'old.jpg'), expired, expired);
  fs.writeFileSync(path.join(trash, 'covers', 'recent.png'), img.png());
  fs.utimesSync(path.join(trash, 'covers', 'recent.png'), recent, recent);
  fs.writeFileSync(path.join(trash, 'covers', 'now.png'), img.png());

  await ImageStore.open(path.join(dataDir, 'images'), quiet);
  t.same(fs.readdirSync(path.join(trash, 'covers')).sort(), ['now.png', 'recent.png']);
  t.same(fs.readdirSync(path.join(trash, 'avatars')), []);
});

t.test('discardUpload deletes a never-committed upload outright, not into the trash', async (t) => {
  const { store, root } = await openStore(t);
  const relPath = await store.saveUploadedImage(part(img.png()), 'avatars');
  await store.discardUpload(relPath);
  t.same(listFiles(root), []);
  await store.discardUpload(relPath);
  await store.discardUpload(undefined);
  await store.discardUpload('../../etc/passwd');
  t.pass('missing, absent and refused paths are quiet');
});

t.test('saves each format under its kind with the extension of its real type', async (t) => {
  const { store, root } = await openStore(t);
  const cover = await store.saveUploadedImage(part(img.png()), 'covers');
  t.match(cover, /^covers\/[0-9a-f-]{36}\.png$/);
  t.same(fs.readFileSync(path.join(root, cover)), img.png());
  t.match(await store.saveUploadedImage(part(img.jpeg(), 1), 'avatars'), /^avatars\/[0-9a-f-]{36}\.jpg$/, 'byte by byte');
  t.match(await store.saveUploadedImage(part(img.webp(), 5), 'covers'), /^covers\/[0-9a-f-]{36}\.webp$/);
  t.same(fs.readdirSync(path.join(root, INCOMING_DIR)), [], 'no temp file left');
});

t.test('size limit: exactly 5 MiB is stored, one byte more is 413 and leaves nothing', async (t) => {
  const { store, root } = await openStore(t);
  const exact = await store.saveUploadedImage(part(img.pngOfSize(MAX_IMAGE_BYTES)), 'covers');
  t.equal(fs.statSync(path.join(root, exact)).size, MAX_IMAGE_BYTES);
  const before = listFiles(root);
  const error = await store.saveUploadedImage(part(img.pngOfSize(MAX_IMAGE_BYTES + 1)), 'covers').catch((e: unknown) => e);
  t.equal(status(error), 413);
  t.same((error as HttpError).details, { file: 'must be at most 5 MiB (5242880 bytes)' });
  t.same(listFiles(root), before);
});

t.test('a stream cut short by the parser limit is 413', async (t) => {
  const { store } = await openStore(t);
  const file = Object.assign(Readable.from([img.png()]), { truncated: true });
  t.equal(status(await store.saveUploadedImage({ fieldname: 'avatar', file }, 'avatars').catch((e: unknown) => e)), 413);
});

t.test('refused content is 415 naming the part, and leaves nothing', async (t) => {
  const { store, root } = await openStore(t);
  for (const [label, bytes] of Object.entries({ gif: img.gif(), svg: img.svg(), polyglot: img.jpegHeaderPolyglot(), truncated: img.jpeg().subarray(0, 100) })) {
    const error = await store.saveUploadedImage(part(bytes, 7, 'avatar'), 'avatars').catch((e: unknown) => e);
    t.equal(status(error), 415, label);
    t.same((error as HttpError).details, { avatar: 'must be a JPEG, PNG or WebP image' });
  }
  t.same(listFiles(root), []);
});

t.test('a stream that fails mid-file leaves nothing', async (t) => {
  const { store, root } = await openStore(t);
  const bytes = img.pngOfSize(200_000);
  const file = new Readable({ read() {} });
  file.push(bytes.subarray(0, 100_000));
  setTimeout(() => file.destroy(new Error('client went away')), 20);
  await t.rejects(store.saveUploadedImage({ fieldname: 'file', file }, 'covers'), /client went away/);
  t.same(listFiles(root), []);
});

t.test('disk guard: symlinks leaving the image folders are 400, missing files 404', async (t) => {
  const { dataDir, store, root } = await openStore(t);
  const secret = path.join(dataDir, 'secret.png');
  fs.writeFileSync(secret, img.png());
  fs.symlinkSync(secret, path.join(root, 'covers', 'planted.png'));
  fs.symlinkSync(path.join(dataDir, 'gone.png'), path.join(root, 'covers', 'dangling.png'));
  fs.symlinkSync(path.join(root, INCOMING_DIR), path.join(root, 'covers', 'temp.png'));

  for (const name of ['planted.png', 'dangling.png', 'temp.png']) {
    t.equal(status(await store.openImage(`covers/${name}`).catch((e: unknown) => e)), 400, `open ${name}`);
    t.equal(status(await store.removeImage(`covers/${name}`).catch((e: unknown) => e)), 400, `remove ${name}`);
    t.equal(status(await store.assertStoredImage('covers', `covers/${name}`, 'coverPath').catch((e: unknown) => e)), 400);
  }
  t.ok(fs.existsSync(secret), 'the outside file is untouched');
  t.equal(status(await store.openImage('covers/missing.png').catch((e: unknown) => e)), 404);
  t.equal(await store.removeImage('covers/missing.png'), false);
});

t.test('a link inside the folders is served; removing it removes the link, not the target', async (t) => {
  const { store, root } = await openStore(t);
  const real = await store.saveUploadedImage(part(img.png()), 'avatars');
  fs.symlinkSync(path.join(root, real), path.join(root, 'covers', 'alias.png'));
  const opened = await store.openImage('covers/alias.png');
  t.equal(opened.contentType, 'image/png');
  await opened.close();
  t.equal(await store.removeImage('covers/alias.png'), true);
  t.ok(fs.existsSync(path.join(root, real)));
});

t.test('openImage: type from the bytes, strong ETag, 404 for non-images on disk', async (t) => {
  const { store, root } = await openStore(t);
  const relPath = await store.saveUploadedImage(part(img.jpeg()), 'covers');
  fs.renameSync(path.join(root, relPath), path.join(root, 'covers', 'renamed.png'));
  const opened = await store.openImage('covers/renamed.png');
  t.equal(opened.contentType, 'image/jpeg', 'the name says png, the bytes say jpeg');
  t.match(opened.etag, /^"[^"]+"$/, 'strong (no W/)');
  t.equal(opened.size, img.jpeg().length);
  const chunks: Buffer[] = [];
  for await (const chunk of opened.stream()) chunks.push(chunk as Buffer);
  t.same(Buffer.concat(chunks), img.jpeg());

  fs.writeFileSync(path.join(root, 'covers', 'notes.png'), 'plain text');
  t.equal(status(await store.openImage('covers/notes.png').catch((e: unknown) => e)), 404);
  fs.mkdirSync(path.join(root, 'covers', 'folder.png'));
  t.equal(status(await store.openImage('covers/folder.png').catch((e: unknown) => e)), 404);
});

t.test('assertStoredImage: the right folder and an existing file', async (t) => {
  const { store } = await openStore(t);
  const cover = await store.saveUploadedImage(part(img.png()), 'covers');
  t.equal(await store.assertStoredImage('covers', cover, 'coverPath'), cover);
  const wrongKind = await store.assertStoredImage('avatars', cover, 'avatarImagePath').catch((e: unknown) => e);
  t.same((wrongKind as HttpError).details, { avatarImagePath: 'must name an image under avatars/' });
  const missing = await store.assertStoredImage('covers', 'covers/nothing.png', 'coverPath').catch((e: unknown) => e);
  t.same((missing as HttpError).details, { coverPath: 'must name an uploaded image' });
  t.equal(status(await store.assertStoredImage('covers', '../x.png', 'coverPath').catch((e: unknown) => e)), 400);
});

t.test('removeImageQuietly never throws', async (t) => {
  const warnings: unknown[] = [];
  const dataDir = tempDataDir(t);
  const store = await ImageStore.open(path.join(dataDir, 'images'), { warn: (details) => warnings.push(details) });
  await store.removeImageQuietly(null);
  await store.removeImageQuietly(undefined);
  await store.removeImageQuietly('covers/missing.png');
  await store.removeImageQuietly('../../etc/passwd');
  t.equal(warnings.length, 1, 'the refused path is logged');
});
