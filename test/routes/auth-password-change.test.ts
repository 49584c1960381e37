import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { storePassword } from '../../src/auth/secrets.js';
import { loadConfig } from '../../src/config.js';
import { buildTestApp, tempDataDir } from '../helpers/app.js';

t.test('tokens obtained with the old password in a tight login loop all die with set-password', async (t) => {
  const dataDir = tempDataDir(t);
  await storePassword(dataDir, 'old password');
  const app = await buildApp(loadConfig({ DATA_DIR: dataDir }), { logger: false });
  t.teardown(() => app.close());

  const tokens: string[] = [];
  let running = true;
  // Several clients, each on its own address so the throttle never locks them out.
  const loop = async (client: number) => {
    for (let n = 0; running; n += 1) {
      const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: 'old password' }, remoteAddress: `10.9.${client}.${n % 250}` });
      if (res.statusCode === 200) tokens.push(res.json().token as string);
    }
  };
  const loops = [0, 1, 2, 3].map(loop);
  while (tokens.length < 4) await sleep(5);
  await storePassword(dataDir, 'new password');
  const before = tokens.length;
  // Keep logging in with the old password across the change, over the next second.
  await sleep(1200);
  running = false;
  await Promise.all(loops);
  t.ok(before >= 4, `${before} tokens before the change, ${tokens.length} in all`);

  t.equal((await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: 'old password' } })).statusCode, 401);
  const refused = [];
  for (const token of tokens) {
    refused.push((await app.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token } })).statusCode);
  }
  t.same(new Set(refused), new Set([401]), 'every token obtained with the old password is 401');
  const fresh = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: 'new password' } });
  t.equal(fresh.statusCode, 200);
  t.equal((await app.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token: fresh.json().token } })).statusCode, 200);
});

t.test('a login right after the change is checked against the new password, not a cached one', async (t) => {
  const dataDir = tempDataDir(t);
  await storePassword(dataDir, 'old password');
  const app = await buildApp(loadConfig({ DATA_DIR: dataDir }), { logger: false });
  t.teardown(() => app.close());
  const old = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: 'old password' } });
  t.equal(old.statusCode, 200);
  await storePassword(dataDir, 'new password');
  t.equal((await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: 'old password' } })).statusCode, 401, 'the old one fails at once');
  const fresh = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: 'new password' } });
  t.equal(fresh.statusCode, 200, 'the new one works at once');
  t.equal((await app.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token: old.json().token } })).statusCode, 401, 'and the old token died at once');
});

t.test('with APP_PASSWORD, tokens survive a restart and die with set-password', async (t) => {
  const dataDir = tempDataDir(t);
  const first = await buildTestApp(t, { DATA_DIR: dataDir });
  await first.app.close();
  const second = await buildTestApp(t, { DATA_DIR: dataDir });
  const verify = (token: string) => second.app.inject({ method: 'GET', url: '/api/auth/verify', cookies: { token } });
  t.equal((await verify(first.token)).statusCode, 200, 'a restart keeps tokens');
  await storePassword(dataDir, 'stored but overridden');
  await sleep(1100);
  t.equal((await verify(first.token)).statusCode, 401);
  t.equal((await verify(second.token)).statusCode, 401);
});
