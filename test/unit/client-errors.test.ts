import net from 'node:net';
import Fastify from 'fastify';
import t from 'tap';
import { renderClientError } from '../../src/errors.js';

/** Sends raw bytes and returns everything the server writes back before it closes. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(text));
  });
}

/**
 * Found by the socket sweep: what Node's HTTP parser refuses was answered by Fastify's default
 * handler as {error, message, statusCode}. renderClientError keeps the one error shape.
 */
t.test('malformed HTTP is answered {error} with the right status, and the connection closed', async (t) => {
  const app = Fastify({ clientErrorHandler: renderClientError });
  app.get('/', async () => ({ ok: true }));
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  const port = Number(new URL(address).port);
  const cases: Array<[string, string, number, string]> = [
    ['a garbage request line', 'GARBAGE\r\n\r\n', 400, 'Malformed HTTP request'],
    ['both Content-Length and Transfer-Encoding', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400, 'Malformed HTTP request'],
    ['headers over the limit', `GET /?q=${'q'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, 'The request headers are too large'],
  ];
  for (const [label, bytes, status, error] of cases) {
    const answer = await exchange(port, bytes);
    t.match(answer, new RegExp(`^HTTP/1\\.1 ${status} `), label);
    t.match(answer, /\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    t.match(answer, /\r\nConnection: close\r\n/);
    t.same(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), { error });
  }
});
