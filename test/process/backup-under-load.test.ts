import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { tempDataDir } from '../helpers/app.js';
import { call, entryPoint, login, startServer } from '../helpers/server-process.js';

const PASSWORD = 'process test password';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const run = promisify(execFile);

function checkSnapshot(t: Test, folder: string): number {
  const db = new Database(path.join(folder, 'library.db'), { readonly: true });
  try {
    t.equal(db.pragma('integrity_check', { simple: true }), 'ok', `${path.basename(folder)} passes integrity_check`);
    t.same(db.pragma('foreign_key_check'), [], 'and foreign_key_check');
    return db.prepare('SELECT count(*) FROM stories').pluck().get() as number;
  } finally {
    db.close();
  }
}

t.test('backups taken under write load (API and CLI) are consistent and open as a data folder', async (t) => {
  const dataDir = tempDataDir(t);
  const server = await startServer(t, { DATA_DIR: dataDir, APP_PASSWORD: PASSWORD });
  const token = await login(server.origin, PASSWORD);

  let writing = true;
  let written = 0;
  const body = `<p>${'Words of a story body. '.repeat(400)}</p>`;
  const writer = (async () => {
    for (let n = 0; writing && n < 2000; n += 1) {
      const res = await call(server.origin, token, 'POST', '/api/stories', { title: `load ${n}`, contentHtml: body, tagNames: [`t${n % 11}`], seriesName: `S${n % 3}` });
      if (res.status === 201) written += 1;
      if (n % 5 === 4) await call(server.origin, token, 'PUT', `/api/stories/${((await res.json()) as { id: string }).id}`, { rating: (n % 5) + 1 });
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 400));

  const viaApi = await call(server.origin, token, 'POST', '/api/admin/backup');
  t.equal(viaApi.status, 200);
  const apiBackup = (await viaApi.json()) as { path: string; sizeBytes: number };
  const cli = await run(process.execPath, entryPoint('scripts/backup.ts'), { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir } });
  const cliBackup = JSON.parse(cli.stdout.trim()) as { path: string; sizeBytes: number };
  writing = false;
  await writer;
  t.ok(written > 0, `${written} stories written during the backups`);

  for (const backup of [apiBackup, cliBackup]) {
    t.ok(backup.sizeBytes > 0);
    const stories = checkSnapshot(t, backup.path);
    t.ok(stories <= written, `snapshot holds ${stories} stories`);
    const restored = await startServer(t, { DATA_DIR: backup.path, APP_PASSWORD: PASSWORD });
    const res = await call(restored.origin, token, 'GET', '/api/stories?size=1');
    t.equal(res.status, 200, 'the snapshot serves, and the old token is valid there');
    t.equal(((await res.json()) as { totalElements: number }).totalElements, stories);
    const search = await call(restored.origin, token, 'GET', '/api/stories/search?query=words&size=1');
    t.equal(((await search.json()) as { totalHits: number }).totalHits, stories, 'its search index agrees with its tables');
    restored.child.kill('SIGTERM');
    t.equal(await restored.exited, 0);
  }
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);
});
