import net from 'node:net';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { tempDataDir, TEST_PASSWORD } from '../helpers/app.js';
import * as img from '../helpers/images.js';
import { fileUpload } from '../helpers/multipart.js';

/**
 * Found by the socket sweep: a client that dropped its connection mid-upload (a cancelled
 * upload) was logged as a failed request at error level and answered 500. It is the client's
 * doing: logged at info, and nothing is left on disk.
 */
t.test('an upload cut off by the client is not a server error and leaves nothing', async (t) => {
  const dataDir = tempDataDir(t);
  const lines: Array<{ level: number; msg: string }> = [];
  const config = loadConfig({ DATA_DIR: dataDir, APP_PASSWORD: TEST_PASSWORD, LOG_LEVEL: 'info' });
  const app = await buildApp(config, { logger: { level: 'info', stream: { write: (line: string) => lines.push(JSON.parse(line)) } } });
  t.teardown(() => app.close());
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const token = (await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: TEST_PASSWORD } })).json().token;
  const story = (await app.inject({ method: 'POST', url: '/api/stories', payload: { title: 'x' }, cookies: { token } })).json();

  const body = fileUpload(img.pngOfSize(1024 * 1024));
  await new Promise<void>((resolve) => {
    const socket = net.connect(Number(new URL(address).port), '127.0.0.1', () => {
      socket.write(
        `POST /api/stories/${story.id}/cover HTTP/1.1\r\nHost: x\r\nCookie: token=${token}\r\n` +
          `Content-Type: ${body.headers['content-type']}\r\nContent-Length: ${body.payload.length}\r\n\r\n`,
      );
      socket.write(body.payload.subarray(0, 300_000), () => setTimeout(() => socket.destroy(), 100));
    });
    socket.on('close', () => resolve());
    socket.on('error', () => undefined);
  });
  await new Promise((resolve) => setTimeout(resolve, 300));

  t.same(lines.filter((line) => line.level >= 50), [], 'nothing logged as an error');
  t.ok(lines.some((line) => line.level === 30 && /closed the connection/.test(line.msg)), 'the abort is noted at info');
  t.same(img.imageFolderFiles(dataDir), [], 'no temp file and no image left');
  t.equal((await app.inject({ method: 'GET', url: `/api/stories/${story.id}`, cookies: { token } })).json().coverPath, null);
});
