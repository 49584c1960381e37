import Fastify, { LogController, type FastifyInstance, type RouteOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import { kosyncRoutes } from './kosync/routes.js';
import { registerErrorHandling, renderClientError, renderFrameworkError, renderRouteNotFound } from './errors.js';
import { cachedSerializerFactory } from './serialization.js';
import { collectEveryBodyIssue, validatorCompiler } from './validation.js';
import { closeConnectionsAsTheyIdle, refuseRequestsWhileClosing } from './lib/shutdown.js';
import { dbPlugin } from './plugins/db.js';
import { authPlugin } from './plugins/auth.js';
import { imagesPlugin } from './plugins/images.js';
import { urlImportPlugin } from './plugins/url-import.js';
import { textRederivePlugin } from './plugins/text-rederive.js';
import { searchPlugin } from './plugins/search.js';
import { jobsPlugin } from './plugins/jobs.js';
import { archivePlugin } from './archive/plugin.js';
import { epubPlugin } from './epub/plugin.js';
import { sendPlugin } from './send/plugin.js';
import { fanficfarePlugin } from './sources/fanficfare/plugin.js';
import { importPlugin } from './import/plugin.js';
import { followPlugin } from './follow/plugin.js';
import { reindexJobPlugin } from './search/reindex-job.js';
import { apiDocsPlugin } from './plugins/api-docs.js';
import { securityHeadersPlugin } from './plugins/security-headers.js';
import { crossSitePlugin } from './plugins/cross-site.js';
import { apiRoutes, healthRoutes } from './routes.js';
import { webPlugin } from './web/plugin.js';
import { opdsPlugin } from './opds/plugin.js';
import { withRedactedUrls } from './logger.js';

/**
 * Security headers on every response (helmet): the API serves only JSON and images, so its
 * content security policy allows nothing at all; `/docs` sets its own, narrower-than-usual one.
 * HSTS is left to the TLS-terminating proxy: on plain HTTP at home it would do nothing but harm.
 */
const SECURITY_HEADERS = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
  },
  frameguard: { action: 'deny' as const },
  referrerPolicy: { policy: 'no-referrer' as const },
  hsts: false,
};

/** docs/decisions.md, "Requests": a JSON body over 16 MiB is 413. */
export const JSON_BODY_LIMIT = 16 * 1024 * 1024;

export type App = FastifyInstance;

declare module 'fastify' {
  interface FastifyInstance {
    /** The validated configuration the app was built with. */
    config: Config;
  }
}

export interface BuildOptions {
  /** Pino options or `false`; tests pass their own to capture or silence logs. */
  logger?: boolean | Record<string, unknown>;
  /** Called for every route as it registers (tests use it to enumerate the API). */
  onRoute?: (route: RouteOptions) => void;
}

/**
 * Builds the whole service for a configuration without listening (docs/architecture.md, "Ten
 * habits", 1): plugins in a fixed order (database, auth, then the API), one error handler, one
 * validator setup.
 */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    // Request URLs are logged without OPDS path tokens (src/logger.ts).
    logger: withRedactedUrls(options.logger ?? { level: config.logLevel }),
    // A hop count is valid at runtime though Fastify's typings omit numbers.
    trustProxy: config.trustProxy as boolean | string,
    bodyLimit: JSON_BODY_LIMIT,
    // A request whose headers or body stop arriving is answered 408 and closed (src/config.ts
    // has the arithmetic); Node checks the timers every second, so a timeout fires within 1 s.
    requestTimeout: config.requestTimeoutMs,
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: 1_000,
    },
    // Per-request info lines cost ~15% CPU on hot GETs (docs/performance.md): debug only.
    logController: new LogController({ disableRequestLogging: config.logLevel !== 'debug' && config.logLevel !== 'trace' }),
    // Requests that arrive while closing get our own 503 (src/lib/shutdown.ts).
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    frameworkErrors: renderFrameworkError,
    // Malformed HTTP (bad framing, oversized headers) is answered in the same {error} shape.
    clientErrorHandler: renderClientError,
    schemaController: { compilersFactory: { buildSerializer: cachedSerializerFactory } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('config', config);
  closeConnectionsAsTheyIdle(app);
  refuseRequestsWhileClosing(app);
  app.setValidatorCompiler(validatorCompiler);
  // One 400 names every offending body field, schema and service rules alike (src/validation.ts).
  app.addHook('onRoute', collectEveryBodyIssue);
  if (options.onRoute !== undefined) app.addHook('onRoute', options.onRoute);
  registerErrorHandling(app);
  acceptEmptyJsonBodies(app);
  await app.register(securityHeadersPlugin, SECURITY_HEADERS);
  await app.register(crossSitePlugin);

  await app.register(dbPlugin, { dataDir: config.dataDir });
  await app.register(searchPlugin);
  await app.register(textRederivePlugin);
  await app.register(imagesPlugin, { dataDir: config.dataDir });
  await app.register(urlImportPlugin);
  await app.register(epubPlugin);
  await app.register(sendPlugin);
  await app.register(authPlugin, config);
  // The job runner, then the kinds it runs (docs/architecture.md, "Background jobs").
  await app.register(jobsPlugin);
  await app.register(importPlugin);
  await app.register(fanficfarePlugin);
  await app.register(followPlugin);
  await app.register(archivePlugin);
  await app.register(reindexJobPlugin);
  await app.register(apiDocsPlugin);
  await app.register(healthRoutes);
  await app.register(
    async (api) => {
      // The API's unknown paths stay JSON 404s; every other unknown path is the pages' HTML 404.
      api.setNotFoundHandler(renderRouteNotFound);
      await api.register(apiRoutes);
    },
    { prefix: '/api' },
  );
  // The OPDS catalog: feeds for e-readers, with the API's JSON errors (docs/api.md, "OPDS catalog").
  await app.register(opdsPlugin);
  // KOReader's sync protocol, outside /api: its own credentials, error shape and content type.
  await app.register(kosyncRoutes, { prefix: '/kosync' });
  // The pages, after the API: their own CSP, form bodies, login redirect and HTML errors, all
  // in their own scope (docs/web.md, "Layout").
  await app.register(webPlugin);
  return app;
}

/**
 * A bodiless POST sent with `Content-Type: application/json` (logout, tag links) is common
 * client behaviour; treat the empty body as absent instead of failing it. Routes that need a
 * body still reject `undefined` through their schema.
 */
function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // Only JSON (and, where a route says so, multipart) is accepted: anything else is 415.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, text, done);
  });
}
