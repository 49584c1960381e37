/**
 * `npm run export -- <file>` (scripts/export.ts) writes the same archive as `GET /api/export`
 * (docs/api.md, "Export and restore"), from DATA_DIR, while the library is open elsewhere.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { exportArchive, readArchive } from '../helpers/archive.js';
import { entryPoint } from '../helpers/server-process.js';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

t.test('the export script writes the archive the API sends', async (t) => {
  const ctx = await buildTestApp(t);
  const author = (await ctx.post('/api/authors', { name: 'Script Author' })).json() as { id: string };
  for (const title of ['One', 'Two ü']) {
    t.equal((await ctx.post('/api/stories', { title, authorId: author.id, tagNames: ['cli'], contentHtml: '<p>Text.</p>' })).statusCode, 201);
  }
  const target = path.join(ctx.dataDir, 'out', 'library.zip');
  fs.mkdirSync(path.dirname(target));
  const cli = await run(process.execPath, [...entryPoint('scripts/export.ts'), target], { cwd: ROOT, env: { ...process.env, DATA_DIR: ctx.dataDir } });
  const report = JSON.parse(cli.stdout) as { path: string; sizeBytes: number; counts: { stories: number } };
  t.equal(report.path, target);
  t.equal(report.counts.stories, 2);
  t.equal(fs.statSync(target).size, report.sizeBytes);
  t.notOk(fs.existsSync(`${target}.partial`), 'the partial file was renamed');

  const fromCli = await readArchive(fs.readFileSync(target));
  const fromApi = await readArchive(await exportArchive(ctx));
  const withoutDate = (entries: Map<string, unknown>) =>
    [...entries].map(([name, value]) => [name, name === 'manifest.json' ? { ...(value as object), createdAt: '' } : value]);
  t.same(withoutDate(fromCli), withoutDate(fromApi), 'the same entries, in the same order');
  t.same(fs.readdirSync(path.join(ctx.dataDir, '.export')), [], 'the database copies are gone');

  const refused = await run(process.execPath, [...entryPoint('scripts/export.ts')], { cwd: ROOT, env: { ...process.env, DATA_DIR: ctx.dataDir } }).catch((error: { code: number; stderr: string }) => error);
  t.match(refused, { code: 1, stderr: /usage: npm run export -- <file.zip>/ });
});
