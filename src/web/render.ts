import type { FastifyReply } from 'fastify';
import { Eta } from 'eta';
import { WEB_SOURCE } from './paths.js';
import { layoutModel, type LayoutModel } from './layout/view.js';
import type { AssetManifest } from './assets.js';
import { setPageHeaders } from './headers.js';

declare const MODEL: unique symbol;

/**
 * A template's name tied to the view model it reads. Eta templates are not type-checked, so the
 * view model is the typed contract: `render` only accepts a model of the template's own type
 * (docs/web.md, "Rendering").
 */
export type Template<M> = string & { readonly [MODEL]?: M };

/** Declares a template (a path under src/web/, without `.eta`) and its view model. */
export function template<M extends PageModel>(name: string): Template<M> {
  return name as Template<M>;
}

/** What every page's view model carries besides its own data. */
export interface PageModel {
  /** The page's h1 and the start of the document title. */
  title: string;
  /** The text already in the header's search box (the search page sets it). */
  searchQuery?: string;
}

/** What a template receives as `it`: its model plus the layout part. */
export type TemplateData<M> = M & { layout: LayoutModel };

declare module 'fastify' {
  interface FastifyInstance {
    /** The hashed assets of the pages (src/web/assets.ts); decorated in the web scope only. */
    webAssets: AssetManifest;
  }
}

/**
 * Renders a page as HTML with the layout (theme, navigation, hashed asset URLs) worked out from
 * the request. Every `<%= %>` is escaped by Eta; `<%~ %>` is only for HTML the sanitizer or
 * the search snippet builder produced.
 */
export async function render<M extends PageModel>(reply: FastifyReply, name: Template<M>, model: M, status = 200): Promise<FastifyReply> {
  const layout = layoutModel(reply.request, reply.server.webAssets, model.title, model.searchQuery);
  const data: TemplateData<M> = { ...model, layout };
  const html = await reply.viewAsync(name, data);
  setPageHeaders(reply);
  return reply.code(status).type('text/html; charset=utf-8').send(html);
}

/**
 * The template engine of the pages: escapes every `<%= %>`, reads templates from src/web/ and
 * caches them unless `development` (`NODE_ENV=development`, src/config.ts: then an edited
 * template shows on the next request).
 */
export function createEta(development = false): Eta {
  return new Eta({ autoEscape: true, cache: !development, views: WEB_SOURCE });
}

/** Renders a template outside a request (tests render every template with a full and an empty model). */
export function renderTemplate<M extends PageModel>(eta: Eta, name: Template<M>, data: TemplateData<M>): string {
  return eta.render(name, data);
}
