import http from 'node:http';
import Fastify from 'fastify';
import t from 'tap';
import { closeConnectionsAsTheyIdle } from '../../src/lib/shutdown.js';

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

t.test('an app that never listened closes as before', async (t) => {
  const app = Fastify();
  closeConnectionsAsTheyIdle(app);
  await app.ready();
  await app.close();
  t.pass();
});
