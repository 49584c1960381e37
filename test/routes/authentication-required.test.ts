import t from 'tap';
import type { RouteOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { tempDataDir } from '../helpers/app.js';

/** The only routes a client may call without a token (docs/api.md, "Logging in"). */
const PUBLIC = new Set(['POST /api/auth/login', 'POST /api/auth/logout']);
const SAMPLE_ID = '3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b';

/**
 * Table-driven over every route the app registers, so a route added later is covered without
 * editing this test: each protected one answers 401 {error} with no token, a bad token and an
 * expired one, before any validation or lookup happens.
 */
t.test('every protected route is 401 without a valid token', async (t) => {
  const dataDir = tempDataDir(t);
  const routes: Array<{ method: string; url: string }> = [];
  const config = loadConfig({ DATA_DIR: dataDir, APP_PASSWORD: 'pw', LOG_LEVEL: 'silent' });
  const app = await buildApp(config, {
    logger: false,
    onRoute: (route: RouteOptions) => {
      for (const method of [route.method].flat()) {
        if (method !== 'HEAD' && route.url.startsWith('/api')) routes.push({ method, url: route.url });
      }
    },
  });
  t.teardown(() => app.close());

  t.ok(routes.length >= 10, `found ${routes.length} API routes`);
  const expired = app.jwt.sign({ jti: 'expired' }, { expiresIn: -60 });
  for (const route of routes) {
    const key = `${route.method} ${route.url}`;
    if (PUBLIC.has(key)) continue;
    const url = route.url.replace(/:[A-Za-z]+/g, SAMPLE_ID).replace(/\*$/, 'covers/x.png');
    for (const [label, cookies] of [['no token', {}], ['bad token', { token: 'not.a.jwt' }], ['expired token', { token: expired }]] as const) {
      const res = await app.inject({ method: route.method as 'GET', url, cookies });
      t.equal(res.statusCode, 401, `${key} with ${label}`);
      t.type(res.json().error, 'string');
    }
  }
});
