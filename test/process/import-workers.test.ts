/**
 * The import workers in the real server process, started with `npm start`'s node flags
 * (test/helpers/server-process.ts): a URL import (Readability in its worker) and a file import
 * job (the parser worker) both complete. Passing the process's V8 flags to a worker explicitly
 * made `new Worker` throw, which a server under `npm start` would have answered with a 500.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { tempDataDir } from '../helpers/app.js';
import { call, login, startServer } from '../helpers/server-process.js';

const PASSWORD = 'process test password';
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>The Keeper</title></head><body><article><h1>The Keeper</h1>
${Array.from({ length: 12 }, (_, i) => `<p>Paragraph ${i} of the lighthouse keeper's long night, told slowly and with care.</p>`).join('\n')}
</article></body></html>`;

t.test('URL and file imports run their workers in a server started like npm start', async (t) => {
  const site = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  t.teardown(() => site.close());
  const server = await startServer(t, { DATA_DIR: tempDataDir(t), APP_PASSWORD: PASSWORD, IMPORT_ALLOW_HOSTS: '127.0.0.1' });
  const token = await login(server.origin, PASSWORD);

  const imported = await call(server.origin, token, 'POST', '/api/import/url', { url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/keeper` });
  t.equal(imported.status, 201, 'the URL import answered 201');
  t.equal(((await imported.json()) as { title: string }).title, 'The Keeper');

  const form = new FormData();
  form.append('file', new Blob(['<html><head><title>From a file</title></head><body><p>Imported from a file.</p></body></html>'], { type: 'text/html' }), 'story.html');
  const queued = await fetch(`${server.origin}/api/import/files`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
  t.equal(queued.status, 202);
  const { jobId } = (await queued.json()) as { jobId: string };
  let status = '';
  for (let i = 0; i < 100 && status !== 'done' && status !== 'failed'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = ((await (await call(server.origin, token, 'GET', `/api/jobs/${jobId}`)).json()) as { status: string }).status;
  }
  t.equal(status, 'done', 'the file import job finished');
  t.notMatch(server.output(), /ERR_WORKER_INVALID_EXEC_ARGV/);
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);
});
