import http from 'node:http';
import net from 'node:net';
import Fastify from 'fastify';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { closeConnectionsAsTheyIdle } from '../../src/lib/shutdown.js';
import { tempDataDir } from '../helpers/app.js';

// @runs-alone: these tests time a server's close against a window of a second, which the work a
// longer-lived process carries from earlier test files can stretch (scripts/test.mjs).

/**
 * Found by the crash suite: SIGTERM while a keep-alive client's request was in flight hung the
 * shutdown until the 10 s guard exited 1, because the connection stayed open after its answer.
 */
t.test('close finishes the in-flight request of a keep-alive client, then closes its connection', async (t) => {
  const app = Fastify({ forceCloseConnections: 'idle', return503OnClosing: true });
  closeConnectionsAsTheyIdle(app);
  app.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    return { ok: true };
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const agent = new http.Agent({ keepAlive: true });
  t.teardown(() => agent.destroy());

  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    http
      .get(`${address}/slow`, { agent }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const started = Date.now();
  const closed = app.close().then(() => Date.now() - started);
  t.same(await answer, { status: 200, body: '{"ok":true}' }, 'the request in flight is answered');
  let guard: NodeJS.Timeout | undefined;
  const closeMs = await Promise.race([closed, new Promise<number>((resolve) => (guard = setTimeout(() => resolve(Infinity), 3000)))]);
  clearTimeout(guard);
  t.ok(closeMs < 1000, `close completed ${closeMs} ms after it began, not after the keep-alive timeout`);
});

t.test('close does not wait for connections that never sent a request, or only part of one', async (t) => {
  const app = Fastify({ forceCloseConnections: 'idle', return503OnClosing: true });
  closeConnectionsAsTheyIdle(app);
  // The close must begin only once the server has parsed the upload's headers: a fixed wait was
  // not enough on a loaded CI machine, and until then the connection is rightly "partial".
  let headersIn!: () => void;
  const uploadHeadersParsed = new Promise<void>((resolve) => (headersIn = resolve));
  app.addHook('onRequest', async (request) => {
    if (request.url === '/upload') headersIn();
  });
  app.post('/upload', async (request) => ({ got: (request.body as { n: number }).n }));
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const port = Number(new URL(address).port);
  const open = (bytes: string) =>
    new Promise<net.Socket>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        if (bytes !== '') socket.write(bytes);
        resolve(socket);
      });
      socket.on('error', () => undefined);
    });
  const silent = await Promise.all(Array.from({ length: 20 }, () => open('')));
  const partial = await open('GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ');
  // A request whose headers are in, its body still arriving when the close begins: it is answered.
  const body = '{"n": 7}';
  const uploading = await open(`POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n{"n"`);
  let answer = '';
  uploading.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  // The server may finish closing before this client has read the answer: wait for the end.
  const answered = new Promise<void>((resolve) => uploading.once('close', () => resolve()));
  await uploadHeadersParsed;

  const started = Date.now();
  const closed = app.close().then(() => Date.now() - started);
  await new Promise((resolve) => setTimeout(resolve, 100));
  uploading.write(': 7}');
  let guard: NodeJS.Timeout | undefined;
  const closeMs = await Promise.race([closed, new Promise<number>((resolve) => (guard = setTimeout(() => resolve(Infinity), 3000)))]);
  clearTimeout(guard);
  t.ok(closeMs < 1000, `closed in ${closeMs} ms`);
  await answered;
  t.match(answer, /^HTTP\/1\.1 200 [\s\S]*\{"got":7\}$/, 'the request under way was answered');
  t.ok([...silent, partial].every((socket) => socket.destroyed || socket.readableEnded), 'the others were closed');
  for (const socket of [...silent, partial, uploading]) socket.destroy();
});

t.test('an app that never listened closes as before', async (t) => {
  const app = Fastify();
  closeConnectionsAsTheyIdle(app);
  await app.ready();
  await app.close();
  t.pass();
});

t.test('a request that arrives while the app closes gets a 503 in the service error shape', async (t) => {
  const dataDir = tempDataDir(t);
  const app = await buildApp(loadConfig({ DATA_DIR: dataDir, APP_PASSWORD: 'not-used-here-at-all', LOG_LEVEL: 'silent' }), { logger: false });
  let slowStarted!: () => void;
  const started = new Promise<void>((resolve) => (slowStarted = resolve));
  app.get('/slow', async () => {
    slowStarted();
    await new Promise((resolve) => setTimeout(resolve, 150));
    return { ok: true };
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const socket = net.connect(Number(new URL(address).port), '127.0.0.1');
  socket.on('error', () => undefined);
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
  await started;
  const closed = app.close();
  // Pipelined behind the request in flight, so it is parsed while the app is closing.
  socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
  await closed;
  await ended;
  const responses = answer.split(/(?=HTTP\/1\.1 )/);
  t.equal(responses.length, 2, 'both requests were answered');
  t.match(responses[0], /^HTTP\/1\.1 200 [\s\S]*\{"ok":true\}$/, 'the request in flight finished');
  t.match(responses[1], /^HTTP\/1\.1 503 /, 'the late one is refused');
  t.match(responses[1], /\r\nconnection: close\r\n/i, 'and its connection closed');
  t.same(JSON.parse(responses[1]!.slice(responses[1]!.indexOf('\r\n\r\n') + 4)), { error: 'The service is shutting down; try again shortly' });
});
