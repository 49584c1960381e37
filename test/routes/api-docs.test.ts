import t from 'tap';
import type { RouteOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { tempDataDir } from '../helpers/app.js';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: { default?: unknown };
}

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, { format?: string }> } }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
}

t.test('the OpenAPI document lists every API route, each with a summary, a tag and its errors', async (t) => {
  const routes: Array<{ method: string; url: string; multipart: boolean }> = [];
  const app = await buildApp(loadConfig({ DATA_DIR: tempDataDir(t), APP_PASSWORD: 'pw', LOG_LEVEL: 'silent' }), {
    logger: false,
    onRoute: (route: RouteOptions) => {
      for (const method of [route.method].flat()) {
        if (method !== 'HEAD' && route.url.startsWith('/api')) routes.push({ method: method.toLowerCase(), url: route.url, multipart: route.config?.acceptsMultipart === true });
      }
    },
  });
  t.teardown(() => app.close());

  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  t.equal(res.statusCode, 200, 'readable without a login');
  const doc = res.json() as { openapi: string; servers?: unknown[]; paths: Record<string, Record<string, Operation>> };
  t.match(doc.openapi, /^3\./);
  t.ok(routes.length > 60, `${routes.length} API routes registered`);

  for (const route of routes) {
    // OpenAPI has no wildcard segment: the image route's tail is the parameter `imagePath`.
    const openApiPath = route.url.replace(/:([A-Za-z]+)/g, '{$1}').replace(/\*$/, '{imagePath}');
    const operation = doc.paths[openApiPath]?.[route.method];
    t.ok(operation, `${route.method.toUpperCase()} ${route.url} is documented`);
    if (operation === undefined) continue;
    t.ok(operation.summary, `${route.method.toUpperCase()} ${route.url} has a summary`);
    t.ok(operation.tags?.length, `${route.method.toUpperCase()} ${route.url} has a tag`);
    const isPublic = route.url === '/api/auth/login' || route.url === '/api/auth/logout';
    if (!isPublic) t.ok(operation.responses['401'], `${route.method.toUpperCase()} ${route.url} documents its 401`);
    t.same(operation.security, isPublic ? [] : undefined, `${route.method.toUpperCase()} ${route.url}: ${isPublic ? 'no' : 'the'} login in its security`);
    if (route.multipart) {
      const form = operation.requestBody?.content['multipart/form-data']?.schema.properties ?? {};
      t.ok(
        Object.values(form).some((part) => part.format === 'binary'),
        `${route.method.toUpperCase()} ${route.url} documents a multipart form with a file`,
      );
    }
  }

  const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
  const ids = operations.map((operation) => operation.operationId);
  t.ok(ids.every((id) => id !== undefined && /^[a-z][A-Za-z0-9]*$/.test(id)), 'every operation has a readable operationId');
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  t.equal(doc.paths['/api/stories']?.get?.operationId, 'getStories');
  t.equal(doc.paths['/api/stories/{id}/cover']?.post?.operationId, 'postStoriesByIdCover');
  t.ok(doc.servers?.length, 'servers are listed');

  const defaulted = operations.flatMap((operation) => operation.parameters ?? []).filter((parameter) => parameter.schema.default !== undefined);
  t.ok(defaulted.length > 20, `${defaulted.length} parameters have defaults`);
  t.same(
    defaulted.filter((parameter) => parameter.required === true).map((parameter) => parameter.name),
    [],
    'a parameter with a default is not required',
  );
  t.equal(doc.paths['/api/stories/search']?.get?.parameters?.find((parameter) => parameter.name === 'query')?.required, true, 'a parameter without one still is');

  t.same(doc.paths['/healthz']?.get?.security, [], '/healthz needs no login');
  const author = doc.paths['/api/authors/{id}']?.put?.requestBody?.content ?? {};
  t.ok(author['application/json'], 'the author update still documents its JSON form');
  t.equal(author['multipart/form-data']?.schema.properties?.avatar?.format, 'binary', 'and its multipart form with the avatar');
  for (const path of ['/api/files/images', '/api/files/images/{imagePath}']) {
    t.same(Object.keys(doc.paths[path]?.get?.responses['200']?.content ?? {}), ['image/*'], `GET ${path} documents image content`);
  }

  const page = await app.inject({ method: 'GET', url: '/docs/' });
  t.equal(page.statusCode, 200, 'the interactive page is served');
  t.match(page.headers['content-type'], /text\/html/);
});

t.test('the /docs page has a narrow CSP that works over plain HTTP', async (t) => {
  const app = await buildApp(loadConfig({ DATA_DIR: tempDataDir(t), APP_PASSWORD: 'pw', LOG_LEVEL: 'silent' }), { logger: false });
  t.teardown(() => app.close());
  for (const url of ['/docs/', '/docs/static/swagger-ui-bundle.js', '/docs/json']) {
    const res = await app.inject({ method: 'GET', url });
    t.equal(res.statusCode, 200, url);
    const csp = String(res.headers['content-security-policy']);
    t.notMatch(csp, /upgrade-insecure-requests/, `${url}: requests are not upgraded to https`);
    t.match(csp, /(^|;)script-src 'self'(;|$)/, `${url}: scripts only from the server`);
    t.notMatch(csp, /unsafe-|https:|\*/, `${url}: nothing unsafe, no other hosts`);
    t.match(csp, /frame-ancestors 'none'/, `${url}: not framed`);
    t.match(csp, /object-src 'none'/, `${url}: no plugins`);
  }
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
