/**
 * `ImageStore.restoreImage` (docs/decisions.md, "Library archive"): an archive's image is stored
 * under its own name after the upload checks, waits as unattached, is kept when already there,
 * and leaves nothing behind when refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import t from 'tap';
import { HttpError } from '../../src/errors.js';
import { ImageStore, UNATTACHED_DIR } from '../../src/images/store.js';
import { tempDataDir } from '../helpers/app.js';
import * as img from '../helpers/images.js';

const quiet = { warn: () => undefined };

function statusOf(error: unknown): number | undefined {
  return error instanceof HttpError ? error.statusCode : undefined;
}

function incoming(root: string): string[] {
  return fs.readdirSync(path.join(root, '.incoming'));
}

t.test('an archive image keeps its name, waits as unattached, and is not stored twice', async (t) => {
  const store = await ImageStore.open(path.join(tempDataDir(t), 'images'), quiet);
  const name = 'covers/0f1e2d3c-0000-4000-8000-000000000001.png';
  t.equal(await store.restoreImage(name, Readable.from([img.png()])), 'stored');
  t.same(fs.readFileSync(path.join(store.root, name)), img.png(), 'byte for byte');
  t.ok(fs.existsSync(path.join(store.root, UNATTACHED_DIR, name)), 'marked as waiting for a row');
  t.equal(await store.restoreImage(name, Readable.from([img.png()])), 'exists');
  t.same(incoming(store.root), [], 'no temp file left');
});

t.test('a refused archive image leaves nothing', async (t) => {
  const store = await ImageStore.open(path.join(tempDataDir(t), 'images'), quiet);
  const cases: [string, Buffer, number][] = [
    ['covers/a.jpg', img.png(), 400],
    ['covers/b.png', Buffer.from('<svg onload=alert(1)>'), 415],
    ['../secrets/c.png', img.png(), 400],
    ['covers/d.png', Buffer.concat([img.png(), Buffer.alloc(5 * 1024 * 1024)]), 413],
  ];
  for (const [name, bytes, status] of cases) {
    const error = await store.restoreImage(name, Readable.from([bytes])).catch((caught: unknown) => caught);
    t.equal(statusOf(error), status, name);
  }
  t.same(fs.readdirSync(path.join(store.root, 'covers')), [], 'nothing stored');
  t.same(incoming(store.root), [], 'no temp file left');
});
