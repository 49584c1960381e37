import t from 'tap';
import type { RouteOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { tempDataDir } from '../helpers/app.js';

interface Operation {
  summary?: string;
  tags?: string[];
  responses: Record<string, unknown>;
}

t.test('the OpenAPI document lists every API route, each with a summary, a tag and its errors', async (t) => {
  const routes: Array<{ method: string; url: string }> = [];
  const app = await buildApp(loadConfig({ DATA_DIR: tempDataDir(t), APP_PASSWORD: 'pw', LOG_LEVEL: 'silent' }), {
    logger: false,
    onRoute: (route: RouteOptions) => {
      for (const method of [route.method].flat()) {
        if (method !== 'HEAD' && route.url.startsWith('/api')) routes.push({ method: method.toLowerCase(), url: route.url });
      }
    },
  });
  t.teardown(() => app.close());

  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  t.equal(res.statusCode, 200, 'readable without a login');
  const doc = res.json() as { openapi: string; paths: Record<string, Record<string, Operation>> };
  t.match(doc.openapi, /^3\./);
  t.ok(routes.length > 60, `${routes.length} API routes registered`);

  for (const route of routes) {
    const openApiPath = route.url.replace(/:([A-Za-z]+)/g, '{$1}').replace(/\*$/, '{*}');
    const operation = doc.paths[openApiPath]?.[route.method];
    t.ok(operation, `${route.method.toUpperCase()} ${route.url} is documented`);
    if (operation === undefined) continue;
    t.ok(operation.summary, `${route.method.toUpperCase()} ${route.url} has a summary`);
    t.ok(operation.tags?.length, `${route.method.toUpperCase()} ${route.url} has a tag`);
    const isPublic = route.url === '/api/auth/login' || route.url === '/api/auth/logout';
    if (!isPublic) t.ok(operation.responses['401'], `${route.method.toUpperCase()} ${route.url} documents its 401`);
  }

  const page = await app.inject({ method: 'GET', url: '/docs/' });
  t.equal(page.statusCode, 200, 'the interactive page is served');
  t.match(page.headers['content-type'], /text\/html/);
});

t.test('security headers on every response, and an unauthenticated liveness route', async (t) => {
  const app = await buildApp(loadConfig({ DATA_DIR: tempDataDir(t), APP_PASSWORD: 'pw', LOG_LEVEL: 'silent' }), { logger: false });
  t.teardown(() => app.close());
  for (const url of ['/healthz', '/api/stories', '/api/nope', '/openapi.json']) {
    const res = await app.inject({ method: 'GET', url });
    t.equal(res.headers['x-content-type-options'], 'nosniff', `${url}: nosniff`);
    t.match(res.headers['content-security-policy'], /default-src 'none'/, `${url}: strict CSP`);
    t.match(res.headers['content-security-policy'], /frame-ancestors 'none'/, `${url}: frame-ancestors`);
    t.equal(res.headers['referrer-policy'], 'no-referrer', `${url}: Referrer-Policy`);
    t.equal(res.headers['x-frame-options'], 'DENY');
  }
  const health = await app.inject({ method: 'GET', url: '/healthz' });
  t.equal(health.statusCode, 200);
  t.same(health.json(), { status: 'ok' });
});
