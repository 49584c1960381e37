/**
 * Slow and silent clients against the real server process, over real sockets: a request whose
 * headers or body stop arriving is answered 408 in the `{error}` shape and its connection
 * closed once REQUEST_TIMEOUT_SECONDS / HEADERS_TIMEOUT_SECONDS have passed (docs/decisions.md,
 * "Running the service: timeouts, Node version, start-up and logs"), while a slow body that keeps coming still gets its
 * answer. Short timeouts from the environment keep the test to seconds.
 */
import net from 'node:net';
import t, { type Test } from 'tap';
import { tempDataDir } from '../helpers/app.js';
import { errorLogLines, stopCleanly } from '../helpers/reliability.js';
import { startServer } from '../helpers/server-process.js';

const PASSWORD = 'slow clients password';
const HEADERS_TIMEOUT_S = 1;
const REQUEST_TIMEOUT_S = 2;
/** Node checks its connections' timers once a second (src/server.ts), plus scheduling slack. */
const SLACK_MS = 2_500;

interface Outcome {
  /** Everything the server sent before it closed the connection (or the wait ended). */
  answer: string;
  closed: boolean;
  elapsedMs: number;
}

/** Writes `first`, then each of `trickle` 300 ms apart, then stays silent for up to `waitMs`. */
function exchange(port: number, first: string, waitMs: number, trickle: string[] = []): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let settled = false;
    const settle = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ answer, closed, elapsedMs: Date.now() - started });
    };
    const timer = setTimeout(() => settle(false), waitMs);
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => settle(true));
    socket.on('connect', async () => {
      socket.write(first);
      for (const piece of trickle) {
        await new Promise((wait) => setTimeout(wait, 300));
        if (!socket.destroyed) socket.write(piece);
      }
    });
  });
}

function parseOrNull(text: string): object | null {
  try {
    return JSON.parse(text) as object;
  } catch {
    return null;
  }
}

function assert408(t: Test, outcome: Outcome, timeoutS: number, what: string): void {
  t.ok(outcome.closed, `${what}: the server closed the connection (after ${outcome.elapsedMs} ms)`);
  t.match(outcome.answer, /^HTTP\/1\.1 408 /, `${what}: answered 408`);
  const body = outcome.answer.slice(outcome.answer.indexOf('\r\n\r\n') + 4);
  t.same(Object.keys(parseOrNull(body) ?? {}), ['error'], `${what}: in the {error} shape`);
  t.ok(outcome.elapsedMs >= timeoutS * 1000 - 100, `${what}: not before the timeout (${outcome.elapsedMs} ms)`);
}

t.test('requests that stop arriving are timed out; slow ones that keep coming are not', async (t) => {
  const server = await startServer(t, {
    DATA_DIR: tempDataDir(t),
    APP_PASSWORD: PASSWORD,
    HEADERS_TIMEOUT_SECONDS: String(HEADERS_TIMEOUT_S),
    REQUEST_TIMEOUT_SECONDS: String(REQUEST_TIMEOUT_S),
  });
  const port = Number(new URL(server.origin).port);
  const body = JSON.stringify({ password: PASSWORD });
  const head = `POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;

  const [halfBody, halfHeaders, steady] = await Promise.all([
    exchange(port, head + body.slice(0, body.length >> 1), REQUEST_TIMEOUT_S * 1000 + SLACK_MS),
    exchange(port, 'POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl', HEADERS_TIMEOUT_S * 1000 + SLACK_MS),
    // 1.5 s for the whole request, under the 2 s limit: in three pieces, the last after 900 ms.
    exchange(port, head, REQUEST_TIMEOUT_S * 1000 + SLACK_MS, [body.slice(0, 10), body.slice(10, 20), body.slice(20)]),
  ]);
  assert408(t, halfBody, REQUEST_TIMEOUT_S, 'headers and half a body, then silence');
  assert408(t, halfHeaders, HEADERS_TIMEOUT_S, 'half the headers, then silence');
  t.match(steady.answer, /^HTTP\/1\.1 200 /, 'a body that trickles in within the limit is answered');

  t.equal((await fetch(`${server.origin}/healthz`)).status, 200, 'the server still answers');
  await stopCleanly(t, server);
  t.same(errorLogLines(server.output()), [], 'nothing was logged as an error');
});
