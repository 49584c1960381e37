import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fastifyFormbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import fastifyView from '@fastify/view';
import { answerFor, NotFound } from '../errors.js';
import { requestToken } from '../auth/request-token.js';
import { proxyPrincipal } from '../auth/principal.js';
import { AssetManifest, IMMUTABLE } from './assets.js';
import { WEB_SOURCE } from './paths.js';
import { setPageHeaders } from './headers.js';
import { createEta } from './render.js';
import { renderErrorPage } from './errors/routes.js';
import { loginRoutes, loginPath } from './login/routes.js';
import { themeRoutes } from './theme/routes.js';
import { homeRoutes } from './home/routes.js';
import { searchPageRoutes } from './search/routes.js';
import { libraryRoutes } from './library/routes.js';
import { editRoutes } from './edit/routes.js';
import { chapterEditRoutes } from './edit/chapter-routes.js';
import { shelfPageRoutes } from './shelves/routes.js';
import { manageTagsRoutes } from './manage-tags/routes.js';
import { settingsRoutes } from './settings/routes.js';
import { storyRoutes } from './stories/routes.js';
import { importPageRoutes } from './import/routes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A page anyone may open without logging in (the login page, the assets, the theme form). */
    publicPage?: boolean;
  }
}

/** The form body a page accepts unless its route says less (login, logout and theme take 8 KiB) or more (the chapter form), docs/decisions.md, "Web interface". */
export const FORM_BODY_LIMIT = 64 * 1024;

/**
 * Everything at `/` that is not the API: the view engine, the hashed assets, the page CSP,
 * urlencoded form bodies (this scope only: the API keeps its 415 for anything but JSON), the
 * login redirect, and errors and unknown paths rendered as HTML pages (docs/web.md).
 */
export const webPlugin: FastifyPluginAsync = async (app) => {
  // The OpenAPI document describes the JSON API only.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  const assets = new AssetManifest();
  app.decorate('webAssets', assets);

  await app.register(fastifyFormbody, { bodyLimit: FORM_BODY_LIMIT });
  await app.register(fastifyView, {
    engine: { eta: createEta(app.config.development) },
    root: WEB_SOURCE,
    production: !app.config.development,
  });
  // serve: false: nothing is served by path; the asset route below sends only manifest files.
  await app.register(fastifyStatic, { root: WEB_SOURCE, serve: false });

  app.addHook('onRequest', async (_request, reply) => setPageHeaders(reply));

  // Every page but the public ones needs a valid token (or the login proxy's word, docs/decisions.md,
  // "Proxy login"); a reader who has neither is sent to log in.
  app.addHook('onRequest', async (request, reply) => {
    try {
      request.principal = proxyPrincipal(request, app.proxyLogin);
      if (request.principal !== undefined) return;
      request.token = app.auth.verify(requestToken(request));
    } catch {
      if (request.routeOptions.config.publicPage === true) return;
      // An unknown path is a page that may exist once logged in, except under /assets.
      if (request.routeOptions.url === undefined && request.url.startsWith('/assets/')) return;
      const next = request.method === 'GET' || request.method === 'HEAD' ? request.url : undefined;
      return reply.redirect(loginPath(next), 303);
    }
  });

  app.get<{ Params: { name: string } }>('/assets/:name', { config: { publicPage: true } }, async (request, reply) => {
    const file = assets.lookup(request.params.name);
    if (file === undefined) throw new NotFound('No such asset');
    reply.header('cache-control', IMMUTABLE).type(file.type);
    return reply.sendFile(file.file, file.root, { cacheControl: false, etag: false, lastModified: false });
  });

  app.setErrorHandler(async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body } = answerFor(error, request, reply);
    return renderErrorPage(reply, status, body);
  });
  app.setNotFoundHandler(async (request, reply) => renderErrorPage(reply, 404, { error: 'There is no page at this address.' }));

  await app.register(loginRoutes);
  await app.register(themeRoutes);
  await app.register(homeRoutes);
  await app.register(searchPageRoutes);
  await app.register(libraryRoutes);
  await app.register(editRoutes);
  await app.register(chapterEditRoutes);
  await app.register(manageTagsRoutes);
  await app.register(shelfPageRoutes);
  await app.register(settingsRoutes);
  await app.register(storyRoutes);
  await app.register(importPageRoutes);
};
