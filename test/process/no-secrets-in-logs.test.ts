import t from 'tap';
import { tempDataDir } from '../helpers/app.js';
import { call, login, startServer } from '../helpers/server-process.js';

const PASSWORD = 'a very secret password 7f3a';

t.test('no password, token or cookie reaches the log, even at trace level', async (t) => {
  const dataDir = tempDataDir(t);
  const server = await startServer(t, { DATA_DIR: dataDir, APP_PASSWORD: PASSWORD, LOG_LEVEL: 'trace' });
  const token = await login(server.origin, PASSWORD);
  await fetch(`${server.origin}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: `${PASSWORD}-wrong` }) });
  await call(server.origin, token, 'GET', '/api/stories');
  await fetch(`${server.origin}/api/tags`, { headers: { authorization: `Bearer ${token}` } });
  await call(server.origin, token, 'POST', '/api/tags', { name: 'logged tag' });
  await call(server.origin, token, 'GET', '/api/does-not-exist');
  await call(server.origin, token, 'POST', '/api/auth/logout');
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);

  const output = server.output();
  t.match(output, /"reqId"/, 'request lines were logged (so the check below means something)');
  t.notMatch(output, PASSWORD, 'no password');
  t.notMatch(output, token, 'no token');
  t.notMatch(output, token.split('.')[2] as string, 'not even the signature');
  t.notMatch(output, /cookie|authorization/i, 'no cookie or authorization header');
});
