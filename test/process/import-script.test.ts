import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { buildTestApp, tempDataDir } from '../helpers/app.js';
import { fanficEpub, waitForJob, zipOf } from '../helpers/import.js';
import { entryPoint } from '../helpers/server-process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const run = promisify(execFile);

function write(folder: string, file: string, data: string | Buffer): void {
  fs.mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
  fs.writeFileSync(path.join(folder, file), data);
}

t.test('npm run import imports a folder recursively through the import job, with a progress line', async (t) => {
  const dataDir = tempDataDir(t);
  const setup = await buildTestApp(t, { DATA_DIR: dataDir });
  await setup.app.ready();
  await setup.app.close();

  const folder = tempDataDir(t);
  write(folder, 'a/b/one.html', '<html><head><title>One</title></head><body><p>one</p></body></html>');
  write(folder, 'two.txt', 'two');
  write(folder, 'books/three.epub', await fanficEpub({ title: 'Three' }));
  write(folder, 'bundle.zip', await zipOf([{ name: 'four.md', data: '# Four\n\nfour' }, { name: 'five.txt', data: 'five' }]));
  write(folder, 'broken.epub', 'not an epub');
  write(folder, 'cover.png', 'not a story file');

  const result = await run(process.execPath, [...entryPoint('scripts/import.ts'), folder], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
  });
  t.match(result.stdout, /Started job [0-9a-f-]{36} for /);
  t.match(result.stdout, /\rdone: 6 of 6 \(5 imported, 1 failed\)/, 'the final progress line');
  t.match(result.stdout, /broken\.epub: not a readable ZIP/, 'errors listed');

  const after = await buildTestApp(t, { DATA_DIR: dataDir });
  const titles = ((await after.get('/api/stories?size=100')).json().content as Array<{ title: string }>).map((story) => story.title).sort();
  t.same(titles, ['Four', 'One', 'Three', 'five', 'two']);
  const [job] = (await after.get('/api/jobs')).json().jobs;
  t.match(job, { kind: 'import-folder', status: 'done', total: 6, done: 5, failed: 1 });
  t.match(await waitForJob(after, job.id), { status: 'done' }, 'the service leaves the finished folder job as it is');

  const missing = await run(process.execPath, [...entryPoint('scripts/import.ts'), path.join(folder, 'nope')], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
  }).catch((error: { code: number; stderr: string }) => error);
  t.match(missing, { code: 1, stderr: /is not a folder/ });
});
