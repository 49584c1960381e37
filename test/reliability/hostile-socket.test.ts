/**
 * Hostile input over real sockets against the real server process (reliability, part 3 of 4): what
 * app.inject cannot send. Bodies cut off mid-way (JSON and multipart, the connection half-closed
 * or dropped, also after a pause while the upload streams), bodies longer or shorter than their
 * Content-Length, a 17 MB JSON body (with a length and chunked), an image over 5 MiB, malformed
 * request lines, headers and chunked encoding, request smuggling shapes, a 20 KB URL, pipelined
 * requests and a flood of half-open connections.
 *
 * Every answer that comes back must follow the rule of hostile.test.ts (never 5xx, errors are
 * 4xx JSON {error, details?}); a connection the client dropped may get no answer. Afterwards the
 * server is up, the canary unchanged, no upload left a temp file or an image behind, and
 * nothing was logged as an error.
 */
import net from 'node:net';
import t from 'tap';
import { tempDataDir } from '../helpers/app.js';
import { createCanary, judge, snapshotCanary, type Answer, type Send } from '../helpers/hostile.js';
import * as img from '../helpers/images.js';
import { multipart } from '../helpers/multipart.js';
import { errorLogLines, filesIn, Random, stopCleanly, strayOutputLines, testSeed } from '../helpers/reliability.js';
import { login, startServer } from '../helpers/server-process.js';

const PASSWORD = 'hostile socket password';
const MiB = 1024 * 1024;

interface RawOptions {
  /** Written after `first`, after `pauseMs`. */
  then?: Buffer;
  pauseMs?: number;
  /** After writing: 'end' half-closes, 'destroy' drops the connection, 'wait' keeps it open. */
  finish?: 'end' | 'destroy' | 'wait';
  /** How long to wait for an answer. */
  waitMs?: number;
}

interface RawAnswer extends Answer {
  raw: string;
}

/** Sends bytes over a fresh connection and parses whatever HTTP answers come back. */
function rawExchange(port: number, first: Buffer, options: RawOptions = {}): Promise<RawAnswer[]> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswers(Buffer.concat(chunks)));
    };
    const timer = setTimeout(finish, options.waitMs ?? 1000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', finish);
    socket.on('connect', async () => {
      socket.write(first, () => undefined);
      if (options.then !== undefined) {
        await new Promise((wait) => setTimeout(wait, options.pauseMs ?? 0));
        if (!socket.destroyed) socket.write(options.then, () => undefined);
      }
      if (options.finish === 'end') socket.end();
      if (options.finish === 'destroy') {
        socket.destroy();
        finish();
      }
    });
  });
}

/** Splits a byte stream into HTTP/1.1 answers (Content-Length or chunked bodies). */
function parseAnswers(bytes: Buffer): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) break;
    const head = rest.subarray(0, headEnd).toString('latin1');
    const [statusLine, ...lines] = head.split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let body: Buffer;
    let after = rest.subarray(headEnd + 4);
    if (headers['transfer-encoding']?.includes('chunked')) {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = after.indexOf('\r\n');
        if (lineEnd < 0) break;
        const size = parseInt(after.subarray(0, lineEnd).toString('latin1'), 16);
        after = after.subarray(lineEnd + 2);
        if (!(size > 0)) {
          after = after.subarray(2);
          break;
        }
        parts.push(after.subarray(0, size));
        after = after.subarray(size + 2);
      }
      body = Buffer.concat(parts);
    } else {
      const length = Number(headers['content-length'] ?? after.length);
      body = after.subarray(0, length);
      after = after.subarray(length);
    }
    answers.push({ status, headers, body, raw: head });
    rest = after;
  }
  return answers;
}

function request(method: string, path: string, headers: Record<string, string>, body?: Buffer | string): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body === undefined ? Buffer.alloc(0) : Buffer.from(body)]);
}

t.test('hostile bytes over real sockets: the server answers in shape or drops, and stays whole', async (t) => {
  const seed = testSeed(t, 'hostile-socket');
  const rng = new Random(seed);
  const dataDir = tempDataDir(t);
  const server = await startServer(t, { DATA_DIR: dataDir, APP_PASSWORD: PASSWORD });
  const token = await login(server.origin, PASSWORD);
  const port = Number(new URL(server.origin).port);
  const cookie = `token=${token}`;

  const send: Send = async (sent) => {
    const res = await fetch(`${server.origin}${sent.url}`, {
      method: sent.method,
      headers: { ...(sent.auth === false ? {} : { cookie }), ...(sent.headers ?? {}) },
      body: sent.payload,
    });
    return { status: res.status, headers: Object.fromEntries(res.headers), body: Buffer.from(await res.arrayBuffer()) };
  };
  const canary = await createCanary(send, rng);
  const before = await snapshotCanary(send, canary);
  const victim = JSON.parse((await send({ method: 'POST', url: '/api/stories', payload: JSON.stringify({ title: 'socket victim' }), headers: { 'content-type': 'application/json' } })).body.toString());
  const imagesBefore = [...filesIn(dataDir, 'covers').keys()].sort();

  const auth = { Cookie: cookie };
  const json = { ...auth, 'Content-Type': 'application/json' };
  const upload = multipart([{ name: 'file', data: img.pngOfSize(2 * MiB) }]);
  const coverUrl = `/api/stories/${victim.id}/cover`;
  const uploadHead = (length: number) => request('POST', coverUrl, { ...auth, 'Content-Type': upload.headers['content-type'], 'Content-Length': String(length) });
  const hugeJson = Buffer.alloc(17 * MiB, 0x61);
  hugeJson.write('{"name":"', 0);
  hugeJson.write('"}', hugeJson.length - 2);

  const cases: Array<{ label: string; run: () => Promise<RawAnswer[]>; expect?: number[]; mayDrop?: boolean }> = [
    { label: 'JSON shorter than its Content-Length, half-closed', run: () => rawExchange(port, request('POST', '/api/tags', { ...json, 'Content-Length': '100' }, '{"name":"cut'), { finish: 'end' }), mayDrop: true },
    { label: 'JSON shorter than its Content-Length, dropped', run: () => rawExchange(port, request('POST', '/api/tags', { ...json, 'Content-Length': '100' }, '{"name":"cut'), { finish: 'destroy' }), mayDrop: true },
    { label: 'JSON longer than its Content-Length (the rest is a bad next request)', run: () => rawExchange(port, request('POST', '/api/tags', { ...json, 'Content-Length': '5' }, '{"name":"long"}'), { finish: 'end' }) },
    { label: 'multipart upload cut off, dropped', run: () => rawExchange(port, Buffer.concat([uploadHead(upload.payload.length), upload.payload.subarray(0, 700_000)]), { finish: 'destroy' }), mayDrop: true },
    {
      label: 'multipart upload cut off after a pause mid-stream, dropped',
      run: () => rawExchange(port, Buffer.concat([uploadHead(upload.payload.length), upload.payload.subarray(0, 300_000)]), { then: upload.payload.subarray(300_000, 900_000), pauseMs: 400, finish: 'destroy' }),
      mayDrop: true,
    },
    { label: 'multipart upload cut off, half-closed', run: () => rawExchange(port, Buffer.concat([uploadHead(upload.payload.length), upload.payload.subarray(0, 500_000)]), { finish: 'end' }), mayDrop: true },
    { label: 'multipart body without its closing boundary', run: () => rawExchange(port, Buffer.concat([uploadHead(upload.payload.length - 40), upload.payload.subarray(0, upload.payload.length - 40)]), { finish: 'wait' }), expect: [400] },
    // Refused on its Content-Length alone, before a byte of the body is read.
    { label: '17 MB JSON body announced by its Content-Length', run: () => rawExchange(port, request('POST', '/api/tags', { ...json, 'Content-Length': String(hugeJson.length) }), { finish: 'wait', waitMs: 5000 }), expect: [413] },
    // Refused once 16 MiB have arrived; the server may reset the connection while the client still
    // writes, and a reset can discard the answer in the client's kernel: then there is none.
    { label: '17 MB JSON body, chunked', run: () => rawExchange(port, request('POST', '/api/tags', { ...json, 'Transfer-Encoding': 'chunked' }), { then: Buffer.concat([Buffer.from(`${hugeJson.length.toString(16)}\r\n`), hugeJson, Buffer.from('\r\n0\r\n\r\n')]), finish: 'wait', waitMs: 10_000 }), expect: [413], mayDrop: true },
    {
      label: 'an image one byte over 5 MiB',
      run: async () => {
        const big = multipart([{ name: 'file', data: img.pngOfSize(5 * MiB + 1) }]);
        return rawExchange(port, request('POST', coverUrl, { ...auth, 'Content-Type': big.headers['content-type'], 'Content-Length': String(big.payload.length) }, big.payload), { finish: 'wait', waitMs: 10_000 });
      },
      expect: [413],
    },
    { label: 'a garbage request line', run: () => rawExchange(port, Buffer.from('GARBAGE\r\n\r\n'), { finish: 'end' }) },
    { label: 'a NUL in a header', run: () => rawExchange(port, Buffer.from('GET /api/tags HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n', 'latin1'), { finish: 'end' }) },
    { label: 'Content-Length and Transfer-Encoding together', run: () => rawExchange(port, request('POST', '/api/tags', { ...json, 'Content-Length': '4', 'Transfer-Encoding': 'chunked' }, '0\r\n\r\nGET /api/tags HTTP/1.1\r\nHost: x\r\n\r\n'), { finish: 'end' }) },
    { label: 'two Content-Lengths', run: () => rawExchange(port, request('POST', '/api/tags', { ...json, 'Content-Length': '2', 'content-length': '40' }, '{}'), { finish: 'end' }) },
    { label: 'malformed chunked encoding', run: () => rawExchange(port, request('POST', '/api/tags', { ...json, 'Transfer-Encoding': 'chunked' }, 'zz\r\n{"name":"x"}\r\n0\r\n\r\n'), { finish: 'end' }) },
    { label: 'a 20 KB URL', run: () => rawExchange(port, request('GET', `/api/tags/search?query=${'q'.repeat(20_000)}`, auth), { finish: 'end' }) },
    { label: '400 headers', run: () => rawExchange(port, request('GET', '/api/tags', { ...auth, ...Object.fromEntries(Array.from({ length: 400 }, (_, n) => [`X-H${n}`, 'v'.repeat(60)])) }), { finish: 'end' }) },
    { label: 'an absolute-form URL to another host', run: () => rawExchange(port, Buffer.from(`GET http://evil.example/api/tags HTTP/1.1\r\nHost: evil.example\r\nCookie: ${cookie}\r\n\r\n`), { finish: 'end' }) },
    { label: 'HTTP/1.0 without a Host', run: () => rawExchange(port, Buffer.from(`GET /api/tags HTTP/1.0\r\nCookie: ${cookie}\r\n\r\n`), { finish: 'end' }) },
    {
      label: 'pipelined: a good request, a hostile one, a good one',
      run: () => rawExchange(port, Buffer.concat([request('GET', '/api/tags', auth), request('POST', '/api/tags', { ...json, 'Content-Length': '12' }, '{"name": 5 }'), request('GET', '/api/series', { ...auth, Connection: 'close' })]), { finish: 'wait' }),
    },
    { label: 'an invalid method', run: () => rawExchange(port, request('BREW', '/api/tags', auth), { finish: 'end' }) },
    { label: 'a path with a NUL and a dot-dot', run: () => rawExchange(port, Buffer.from(`GET /api/files/images/covers/%00/../../../etc/passwd HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\n\r\n`), { finish: 'end' }) },
  ];

  for (const one of cases) {
    const answers = await one.run();
    if (answers.length === 0) {
      t.ok(one.mayDrop === true, `${one.label}: ${one.mayDrop === true ? 'dropped by the client, no answer needed' : 'no answer at all'}`);
      continue;
    }
    for (const answer of answers) {
      const verdict = judge(answer, one.expect);
      t.same(verdict, { ok: true }, `${one.label}: ${answer.status} ${answer.body.toString().slice(0, 120)}`);
    }
  }

  await t.test('a flood of half-open connections does not stop the service', async (t) => {
    const sockets = await Promise.all(
      Array.from({ length: 200 }, () =>
        new Promise<net.Socket>((resolve) => {
          const socket = net.connect(port, '127.0.0.1', () => {
            socket.write(`POST /api/tags HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"na`);
            resolve(socket);
          });
          socket.on('error', () => undefined);
        }),
      ),
    );
    const res = await fetch(`${server.origin}/api/tags?size=1`, { headers: { cookie } });
    t.equal(res.status, 200, 'a normal request is served meanwhile');
    await res.arrayBuffer();
    for (const socket of sockets) socket.destroy();
  });

  await new Promise((resolve) => setTimeout(resolve, 300)); // let the aborted uploads clean up
  t.same(filesIn(dataDir, '.incoming').size, 0, 'no aborted upload left a temp file');
  t.same([...filesIn(dataDir, 'covers').keys()].sort(), imagesBefore, 'no aborted or refused upload left an image');
  t.equal((await send({ method: 'GET', url: `/api/stories/${victim.id}` })).status, 200, 'the victim story is still there');
  t.same(await snapshotCanary(send, canary), before, 'the canary is byte-for-byte unchanged');
  const health = await fetch(`${server.origin}/healthz`);
  t.equal(health.status, 200, 'the server is up');
  await health.arrayBuffer();
  await stopCleanly(t, server);
  t.same(errorLogLines(server.output()), [], 'nothing was logged as an error');
  t.same(strayOutputLines(server.output()), [], 'nothing but log lines on stdout and stderr');
});
