import Fastify from 'fastify';
import t, { type Test } from 'tap';
import { registerErrorHandling } from '../../src/errors.js';
import { receiveUpload } from '../../src/images/upload.js';
import { dbPlugin } from '../../src/plugins/db.js';
import { imagesPlugin } from '../../src/plugins/images.js';
import { tempDataDir } from '../helpers/app.js';
import * as img from '../helpers/images.js';
import { multipart, type MultipartBody } from '../helpers/multipart.js';

/** A bare app with the images plugin and one route shaped like the multipart author update. */
async function formApp(t: Test) {
  const dataDir = tempDataDir(t);
  const app = Fastify({ logger: false });
  registerErrorHandling(app);
  // The images plugin sweeps unreferenced files against the real database before the first request.
  await app.register(dbPlugin, { dataDir });
  await app.register(imagesPlugin, { dataDir });
  app.put('/form', { config: { acceptsMultipart: true } }, async (request) =>
    receiveUpload(request, app.images, { kind: 'avatars', fileField: 'avatar', required: false }),
  );
  t.teardown(() => app.close());
  const send = (body: MultipartBody) => app.inject({ method: 'PUT', url: '/form', payload: body.payload, headers: body.headers });
  return { app, dataDir, send };
}

t.test('collects text fields (repeated ones in order) and the optional image', async (t) => {
  const { send, dataDir } = await formApp(t);
  const res = await send(
    multipart([
      { name: 'name', value: 'Ursula' },
      { name: 'urls', value: 'https://a.example' },
      { name: 'avatar', data: img.jpeg(), filename: 'me.jpg', contentType: 'image/jpeg' },
      { name: 'urls', value: 'https://b.example' },
      { name: 'authorRating', value: '5' },
      { name: 'notes', value: 'é'.repeat(10_000) },
    ]),
  );
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.match(body.image, /^avatars\/[0-9a-f-]{36}\.jpg$/);
  t.same(body.fields.urls, ['https://a.example', 'https://b.example']);
  t.same(body.fields.name, ['Ursula']);
  t.same(body.fields.authorRating, ['5']);
  t.equal(body.fields.notes[0].length, 10_000, 'a long note fits the field limit');
  t.same(img.imageFolderFiles(dataDir), [body.image]);

  const noImage = await send(multipart([{ name: 'name', value: 'x' }]));
  t.equal(noImage.statusCode, 200);
  t.equal(noImage.json().image, undefined, 'the image is optional here');
});

t.test('a field over the size limit is 413 naming it, and the image is not kept', async (t) => {
  const { send, dataDir } = await formApp(t);
  const res = await send(
    multipart([
      { name: 'avatar', data: img.png(), filename: 'a.png' },
      { name: 'notes', value: 'x'.repeat(65 * 1024) },
    ]),
  );
  t.equal(res.statusCode, 413);
  t.same(res.json().details, { notes: 'is too long' });
  t.same(img.imageFolderFiles(dataDir), []);
});

t.test('too many fields is 413, and the image is not kept', async (t) => {
  const { send, dataDir } = await formApp(t);
  const parts = [{ name: 'avatar', data: img.png(), filename: 'a.png' }, ...Array.from({ length: 200 }, () => ({ name: 'urls', value: 'u' }))];
  const res = await send(multipart(parts));
  t.equal(res.statusCode, 413);
  t.same(img.imageFolderFiles(dataDir), []);
});

t.test('a refused image fails the whole form; other file parts are ignored', async (t) => {
  const { send, dataDir } = await formApp(t);
  const bad = await send(multipart([{ name: 'name', value: 'x' }, { name: 'avatar', data: img.gif(), filename: 'a.gif' }]));
  t.equal(bad.statusCode, 415);
  t.same(bad.json().details, { avatar: 'must be a JPEG, PNG or WebP image' });
  const other = await send(multipart([{ name: 'cover', data: img.png(), filename: 'a.png' }]));
  t.equal(other.statusCode, 200);
  t.equal(other.json().image, undefined);
  t.same(img.imageFolderFiles(dataDir), []);
});
