/**
 * Every route's validators and response serializers compile. The app compiles each of them on
 * its route's first use instead of at start-up (docs/decisions.md, "Validation"), so a schema
 * that Ajv or fast-json-stringify refuses would otherwise show only as a 500 on that route's
 * first request instead of an app that does not start.
 */
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifySchema, RouteOptions } from 'fastify';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { validatorCompiler } from '../../src/validation.js';
import { TEST_PASSWORD, tempDataDir } from '../helpers/app.js';

const PARTS = ['body', 'querystring', 'params', 'headers'] as const;

/** A part's schema, or one per content type (`{ content: { type: { schema } } }`). */
function schemasOf(part: unknown): unknown[] {
  if (part === null || typeof part !== 'object') return [];
  const content = (part as { content?: Record<string, { schema: unknown }> }).content;
  return content === undefined ? [part] : Object.values(content).map((entry) => entry.schema);
}

t.test('every route compiles the validator of each part and the serializer of each status', async (t) => {
  const routes: RouteOptions[] = [];
  const config = loadConfig({ DATA_DIR: tempDataDir(t), APP_PASSWORD: TEST_PASSWORD, LOG_LEVEL: 'silent' });
  const app = await buildApp(config, { logger: false, onRoute: (route) => routes.push(route) });
  t.teardown(() => app.close());
  await app.ready();

  const compileSerializer = SerializerSelector()({}, {});
  const failures: string[] = [];
  let validators = 0;
  let serializers = 0;
  for (const route of routes) {
    const schema: FastifySchema = route.schema ?? {};
    const method = String(route.method);
    for (const httpPart of PARTS) {
      for (const part of schemasOf(schema[httpPart])) {
        validators += 1;
        try {
          // The first call compiles.
          validatorCompiler({ schema: part, httpPart, method, url: route.url })(undefined);
        } catch (error) {
          failures.push(`${method} ${route.url} ${httpPart}: ${String(error)}`);
        }
      }
    }
    for (const [httpStatus, response] of Object.entries((schema.response ?? {}) as Record<string, unknown>)) {
      for (const part of schemasOf(response)) {
        serializers += 1;
        try {
          compileSerializer({ schema: part as object, method, url: route.url, httpStatus });
        } catch (error) {
          failures.push(`${method} ${route.url} ${httpStatus}: ${String(error)}`);
        }
      }
    }
  }
  t.strictSame(failures, [], 'no schema is refused');
  t.ok(validators > 100, `${validators} validators compiled`);
  t.ok(serializers > 300, `${serializers} serializers compiled`);
});
