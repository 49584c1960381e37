/**
 * What a person sees when the server starts (docs/decisions.md, "Running the service"): the
 * first line is the address to open, and on a first start the generated password is plainly
 * there. LOG_FORMAT=pretty (what a terminal gets) is one line per entry without JSON; json
 * (what systemd's journal gets) is one JSON object per line with the password as a field.
 * The real server process, on a fresh data folder each time.
 */
import net from 'node:net';
import t from 'tap';
import { tempDataDir } from '../helpers/app.js';
import { stopCleanly } from '../helpers/reliability.js';
import { startServer } from '../helpers/server-process.js';

/** A port free a moment ago, so the server knows its address before it listens. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function loginStatus(origin: string, password: string): Promise<number> {
  const res = await fetch(`${origin}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password }),
  });
  return res.status;
}

t.test('pretty: one plain line per entry, the address first, the first-start password shown', async (t) => {
  const port = await freePort();
  const server = await startServer(t, { DATA_DIR: tempDataDir(t), LOG_FORMAT: 'pretty', PORT: String(port) });
  const password = /generatedPassword=(\S+)/.exec(server.output())?.[1];
  t.ok(password, 'the generated password is on a log line');
  t.equal(await loginStatus(server.origin, password ?? ''), 200, 'and it is the password that logs in');
  await stopCleanly(t, server);

  const lines = server.output().split('\n').filter((line) => line.trim() !== '');
  t.match(lines[0], `Storyshelf: open http://127.0.0.1:${port}/`, 'the first line is the address to open');
  t.ok(lines.length >= 4, `startup, password, serving and shutdown lines (${lines.length})`);
  for (const line of lines) {
    t.match(line, /^\[\d\d:\d\d:\d\d\] (INFO|WARN|ERROR|FATAL|DEBUG|TRACE): \S/, `one entry per line: ${line}`);
    t.notMatch(line, /[{}]/, `no JSON braces: ${line}`);
  }
  t.match(server.output(), /WARN: No APP_PASSWORD was set[^\n]* generatedPassword=\S+\n/, 'the password sits on its warning line');
});

t.test('json: parseable lines, the address first, the password a field', async (t) => {
  const port = await freePort();
  const server = await startServer(t, { DATA_DIR: tempDataDir(t), LOG_FORMAT: 'json', PORT: String(port) });
  await stopCleanly(t, server);

  const lines = server.output().split('\n').filter((line) => line.trim() !== '');
  const entries = lines.map((line) => {
    try {
      return JSON.parse(line) as { level: number; msg: string; generatedPassword?: string };
    } catch {
      t.fail(`not a JSON line: ${line}`);
      return undefined;
    }
  });
  t.match(entries[0], { level: 30, msg: `Storyshelf: open http://127.0.0.1:${port}/` }, 'the first line is the address to open');
  t.ok(entries.some((entry) => typeof entry?.generatedPassword === 'string' && entry.generatedPassword.length >= 16), 'the generated password is a field');
});

t.test('a port the system picks is announced once listening', async (t) => {
  const server = await startServer(t, { DATA_DIR: tempDataDir(t), LOG_FORMAT: 'json', APP_PASSWORD: 'announce password' });
  await stopCleanly(t, server);
  t.match(server.output(), `"msg":"Storyshelf: open ${server.origin}/ (data in `);
});
