import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { buildTestApp, TEST_PASSWORD } from '../helpers/app.js';

const NOW = '2026-11-21T10:00:00.000Z';

/** Puts a story row pointing at `coverPath` straight into the database (images are not this test's subject). */
function insertStoryWithCover(db: Database.Database, id: string, coverPath: string | null): void {
  db.prepare('INSERT INTO stories (id, title, cover_path, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(id, `Story ${id}`, coverPath, NOW, NOW);
}

t.test('POST /api/admin/backup writes a self-consistent data folder that opens and keeps tokens valid', async (t) => {
  // The password from the environment, so the secrets folder holds the signing secret alone.
  const ctx = await buildTestApp(t, { APP_PASSWORD: TEST_PASSWORD });
  t.equal((await ctx.post('/api/tags', { name: 'kept' })).statusCode, 201);

  const images = path.join(ctx.dataDir, 'images');
  fs.mkdirSync(path.join(images, 'covers'), { recursive: true });
  fs.mkdirSync(path.join(images, '.trash', 'covers'), { recursive: true });
  fs.writeFileSync(path.join(images, 'covers', '11111111-1111-4111-8111-111111111111.png'), 'live cover');
  fs.writeFileSync(path.join(images, 'covers', '33333333-3333-4333-8333-333333333333.png'), 'unreferenced');
  fs.writeFileSync(path.join(images, '.trash', 'covers', '22222222-2222-4222-8222-222222222222.jpg'), 'removed after the snapshot');
  const client = ctx.app.db.$client;
  insertStoryWithCover(client, 'a1', 'covers/11111111-1111-4111-8111-111111111111.png');
  insertStoryWithCover(client, 'a2', 'covers/22222222-2222-4222-8222-222222222222.jpg');
  insertStoryWithCover(client, 'a3', 'covers/44444444-4444-4444-8444-444444444444.webp');

  const res = await ctx.post('/api/admin/backup');
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.type(body.message, 'string');
  t.ok(body.sizeBytes > 0);
  t.equal(path.dirname(body.path), path.join(ctx.dataDir, 'backups'));
  t.match(path.basename(body.path), /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z/);
  t.notOk(fs.readdirSync(path.join(ctx.dataDir, 'backups')).some((name) => name.startsWith('.partial')), 'no partial folder left');

  t.same(fs.readdirSync(path.join(body.path, 'images', 'covers')).sort(), [
    '11111111-1111-4111-8111-111111111111.png',
    '22222222-2222-4222-8222-222222222222.jpg',
  ], 'exactly the referenced images, the trashed one included');
  t.same(fs.readdirSync(path.join(body.path, 'secrets')).sort(), ['jwt-secret']);

  const copy = new Database(path.join(body.path, 'library.db'), { readonly: true });
  t.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
  t.equal(copy.prepare("SELECT cover_path FROM stories WHERE id = 'a3'").pluck().get(), null, 'a reference to a missing image is cleared in the copy');
  t.equal(copy.prepare("SELECT count(*) FROM tags WHERE name = 'kept'").pluck().get(), 1);
  copy.close();

  const restored = await buildApp(loadConfig({ DATA_DIR: body.path, APP_PASSWORD: TEST_PASSWORD }), { logger: false });
  t.teardown(() => restored.close());
  const verify = await restored.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token: ctx.token } });
  t.equal(verify.statusCode, 200, 'a token issued by the original is valid in the restored copy');
  const tags = await restored.inject({ method: 'GET', url: '/api/tags', cookies: { token: ctx.token } });
  t.same(tags.json().content.map((tag: { name: string }) => tag.name), ['kept']);

  const second = (await ctx.post('/api/admin/backup')).json();
  t.not(second.path, body.path, 'two backups in the same millisecond still get their own folders');
});

t.test('the backup endpoint needs a token', async (t) => {
  const ctx = await buildTestApp(t);
  t.equal((await ctx.app.inject({ method: 'POST', url: '/api/admin/backup' })).statusCode, 401);
  t.notOk(fs.existsSync(path.join(ctx.dataDir, 'backups')));
});
