/**
 * The one multipart receiver (src/lib/multipart-intake.ts) with a folder destination, at small
 * limits: each file counted as it arrives (one byte over its cap is 413, even when the parser's
 * own limit, one byte higher, lets it through whole), the total capped, types refused by name
 * before a byte is written, files past the count dropped, an empty file input taken as no
 * file, and on any failure nothing left on disk.
 */
import fs from 'node:fs';
import path from 'node:path';
import fastifyMultipart from '@fastify/multipart';
import Fastify from 'fastify';
import t, { type Test } from 'tap';
import { registerErrorHandling, TooLarge, UnsupportedType } from '../../src/errors.js';
import { folderDestination, receiveMultipart } from '../../src/lib/multipart-intake.js';
import { tempDataDir } from '../helpers/app.js';
import { multipart, type Part } from '../helpers/multipart.js';

async function intakeApp(t: Test) {
  const folder = path.join(tempDataDir(t), 'jobs', 'one');
  const app = Fastify({ logger: false });
  registerErrorHandling(app);
  await app.register(fastifyMultipart, { throwFileSizeLimit: true });
  app.post('/in', async (request) =>
    receiveMultipart(request, {
      field: 'file',
      maxFiles: 2,
      required: true,
      limits: { fileSize: 11, files: 5 },
      refuseType: (filename) => (filename.endsWith('.txt') ? undefined : new UnsupportedType(`${filename} is refused`, { file: 'must be .txt' })),
      destination: folderDestination(folder, {
        nameOf: (_filename, index) => `${index + 1}.txt`,
        maxFileBytes: 10,
        fileTooLarge: (filename) => new TooLarge(`${filename} is over 10 bytes`, { file: 'at most 10 bytes' }),
        maxTotalBytes: 15,
        totalTooLarge: () => new TooLarge('over 15 bytes in all'),
      }),
    }),
  );
  t.teardown(() => app.close());
  const send = (parts: Part[]) => {
    const body = multipart(parts);
    return app.inject({ method: 'POST', url: '/in', payload: body.payload, headers: body.headers });
  };
  const sendJson = () => app.inject({ method: 'POST', url: '/in', payload: { file: 'a' } });
  return { folder, send, sendJson };
}

const file = (filename: string, size: number): Part => ({ name: 'file', filename, data: Buffer.alloc(size, 0x61) });

t.test('files within the caps are stored under our names; one past the count is dropped', async (t) => {
  const { folder, send } = await intakeApp(t);
  const res = await send([file('a.txt', 10), { name: 'note', value: 'ignored' }, file('b.txt', 5), file('c.txt', 1)]);
  t.equal(res.statusCode, 200);
  t.same(res.json(), [{ filename: 'a.txt', name: '1.txt' }, { filename: 'b.txt', name: '2.txt' }]);
  t.same(fs.readdirSync(folder).sort(), ['1.txt', '2.txt']);
  t.equal(fs.statSync(path.join(folder, '1.txt')).mode & 0o777, 0o600, 'private to the service');
});

t.test('one byte over a file’s cap, over the total, or of a refused type fails the request and leaves nothing', async (t) => {
  const { folder, send } = await intakeApp(t);
  const over = await send([file('a.txt', 11)]);
  t.equal(over.statusCode, 413);
  t.same(over.json(), { error: 'a.txt is over 10 bytes', details: { file: 'at most 10 bytes' } });
  t.notOk(fs.existsSync(folder));

  const total = await send([file('a.txt', 8), file('b.txt', 8)]);
  t.equal(total.statusCode, 413);
  t.equal(total.json().error, 'over 15 bytes in all');
  t.notOk(fs.existsSync(folder), 'the first file is removed with the folder');

  const refused = await send([file('a.txt', 2), file('run.exe', 2), file('b.txt', 2)]);
  t.equal(refused.statusCode, 415);
  t.same(refused.json().details, { file: 'must be .txt' });
  t.notOk(fs.existsSync(folder));
});

t.test('no file, an empty file input, or a body that is not multipart', async (t) => {
  const { send, sendJson } = await intakeApp(t);
  t.equal((await sendJson()).statusCode, 415, 'not multipart');
  const none = await send([{ name: 'note', value: 'x' }]);
  t.equal(none.statusCode, 400);
  t.same(none.json().details, { file: 'is required' });
  const empty = await send([{ name: 'file', filename: '', data: Buffer.alloc(0) }]);
  t.equal(empty.statusCode, 400, 'an empty file input is no file');
  t.same(empty.json().details, { file: 'is required' });
});
