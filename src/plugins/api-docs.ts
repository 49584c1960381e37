import fp from 'fastify-plugin';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifySchema, RouteOptions } from 'fastify';
import { ErrorBody } from '../schemas/common.js';
import { helmetHeaders } from './security-headers.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set by `markRequiresToken` on every route of a scope whose onRequest hook demands a token. */
    requiresToken?: boolean;
    /**
     * For a route with `acceptsMultipart`, the form it reads when it takes more than an image in
     * the part `file`: for the document only (the route's own code reads and checks the parts).
     */
    multipartForm?: TSchema;
  }
}

/**
 * onRoute hook for a scope whose onRequest hook demands a token: marks each of its routes, so
 * the document can tell protected routes from public ones (a scope's hooks are not visible in a
 * route's options; a route's own `onRequest: app.authenticate` is recognised without a mark).
 */
export function markRequiresToken(route: RouteOptions): void {
  route.config = { ...route.config, requiresToken: true };
}

/**
 * The `/docs` page's content security policy: Swagger UI's own files, its same-origin calls and
 * data: images and fonts, nothing else. No `upgrade-insecure-requests` (the UI's default): on
 * plain HTTP at a LAN address it turned every script and style request into https, which the
 * server does not speak, and left a blank page. No inline scripts, one inline style (by hash),
 * no other hosts (the spec validator badge is off).
 */
export const DOCS_CSP = helmetHeaders({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      baseUri: ["'self'"],
      fontSrc: ["'self'", 'data:'],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      imgSrc: ["'self'", 'data:'],
      objectSrc: ["'none'"],
      scriptSrc: ["'self'"],
      scriptSrcAttr: ["'none'"],
      // The one inline style Swagger UI has: the <style> of its logo (the colours of the top bar).
      styleSrc: ["'self'", "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"],
    },
  },
})['content-security-policy'];

const BinaryFile = Type.String({ format: 'binary' });

/** The form of a multipart route that takes just the image, in the part `file` (src/images/upload.ts), unless the route names its own `multipartForm`. */
const ImageForm = Type.Object({ file: BinaryFile });

/** The name a trailing `*` gets as a path parameter (OpenAPI has no wildcard segments). */
const WILDCARD_NAMES: Readonly<Record<string, string>> = { '/api/files/images/*': 'imagePath' };

type JsonSchema = Record<string, unknown> & { properties?: Record<string, Record<string, unknown>>; required?: string[] };

/** `GET /api/stories/:id/cover` -> `getStoriesByIdCover`: stable, unique per method and path. */
export function operationIdFor(method: string, url: string): string {
  const words = url
    .split('/')
    .filter((segment) => segment !== '' && segment !== 'api')
    .flatMap((segment) => (segment.startsWith(':') ? ['by', ...segment.slice(1).split(/[^A-Za-z0-9]+/)] : segment.split(/[^A-Za-z0-9]+/)))
    .filter((word) => word !== '');
  return [method.toLowerCase(), ...words.map((word) => word[0]!.toUpperCase() + word.slice(1))].join('');
}

/** A querystring schema in which a parameter with a default is optional: the server fills it in. */
function optionalDefaults(querystring: JsonSchema): JsonSchema {
  const required = (querystring.required ?? []).filter((name) => querystring.properties?.[name]?.default === undefined);
  const { required: _dropped, ...rest } = querystring;
  return required.length > 0 ? { ...rest, required } : rest;
}

/**
 * Binary responses are images (src/schemas/files.ts), documented as image content, unless the
 * schema names its media type in `contentMediaType` (EPUB books, src/schemas/epub.ts; the library
 * archive's ZIP).
 */
function imageResponses(response: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(response).map(([status, schema]) => {
      if (schema.format !== 'binary') return [status, schema];
      const mediaType = typeof schema.contentMediaType === 'string' ? schema.contentMediaType : 'image/*';
      return [status, { description: schema.description, content: { [mediaType]: { schema: BinaryFile } } }];
    }),
  );
}

/**
 * The OpenAPI 3 document, generated from the route schemas themselves (so it cannot drift from
 * what is validated and serialized), at `/openapi.json`, and an interactive page at `/docs`.
 * Both are outside `/api` and need no login: they describe the API, they do not expose data.
 * What the route schemas cannot say is added here, for every route alike (docs/decisions.md,
 * "API documentation"). Must be registered before the routes it documents.
 */
export const apiDocsPlugin = fp(
  async (app) => {
    const requiresToken = (route: RouteOptions) => route.config?.requiresToken === true || [route.onRequest ?? []].flat().includes(app.authenticate);

    /** One route's schema as documented; the route's own schema object is never changed. */
    const documented = ({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }) => {
      const doc: FastifySchema & Record<string, unknown> = { ...schema };
      const method = [route.method].flat()[0]!;
      let path = url;
      const wildcard = WILDCARD_NAMES[url];
      if (wildcard !== undefined) {
        path = `${url.slice(0, -1)}:${wildcard}`;
        const params = schema.params as JsonSchema;
        doc.params = { ...params, properties: { [wildcard]: params.properties?.['*'] }, required: [wildcard] };
      }
      doc.operationId = operationIdFor(method, path);
      if (!requiresToken(route)) doc.security = [];
      // Any protected route refuses a device token without the scope it needs (src/auth/principal.ts).
      else if (doc.response !== undefined && !(403 in (schema.response as object))) {
        doc.response = { ...(doc.response as object), 403: ErrorBody };
      }
      if (schema.querystring !== undefined) doc.querystring = optionalDefaults(schema.querystring as JsonSchema);
      if (schema.response !== undefined) doc.response = imageResponses(schema.response as Record<string, JsonSchema>);
      if (route.config?.acceptsMultipart === true) {
        const json = (schema.body as { content?: Record<string, unknown> } | undefined)?.content ?? {};
        const form = route.config.multipartForm ?? ImageForm;
        doc.body = { content: { ...json, 'multipart/form-data': { schema: form } } };
      }
      return { schema: doc, url: path };
    };

    await app.register(fastifySwagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'Storyshelf API',
          version: '1.0.0',
          description:
            'A self-hosted story library. Every /api route except login and logout needs the `token` cookie, `Authorization: Bearer` (a login token or a device token), or HTTP Basic with a device token as the password.',
          license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
        },
        // Relative: the document is right wherever the server is reached (LAN address, proxy).
        servers: [{ url: '/', description: 'This Storyshelf server' }],
        components: {
          securitySchemes: {
            cookieAuth: { type: 'apiKey', in: 'cookie', name: 'token' },
            bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT or device token' },
            basicAuth: { type: 'http', scheme: 'basic', description: 'Any user name; a device token as the password' },
          },
        },
        security: [{ cookieAuth: [] }, { bearerAuth: [] }, { basicAuth: [] }],
        tags: [
          { name: 'auth', description: 'Login, logout, token check' },
          { name: 'stories', description: 'Stories, their content, cover and rating' },
          { name: 'authors', description: 'Authors, their URLs and avatars' },
          { name: 'tags', description: 'Tags and how often stories use them' },
          { name: 'series', description: 'Series of stories' },
          { name: 'files', description: 'Cover and avatar images' },
          { name: 'search', description: 'Full-text search and its administration' },
          { name: 'config', description: 'Settings the server applies, such as HTML sanitization' },
          { name: 'admin', description: 'Backups' },
          { name: 'archive', description: 'Export the library as a portable archive, and restore one' },
          { name: 'sources', description: 'Stories that follow their source: the update log and checking the source again' },
          { name: 'tokens', description: 'Device tokens for e-readers and apps' },
          { name: 'health', description: 'Liveness for monitors' },
        ],
      },
      transform: documented,
    });
    await app.register(fastifySwaggerUi, { routePrefix: '/docs', staticCSP: DOCS_CSP });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'storyshelf-api-docs', fastify: '5.x', dependencies: ['storyshelf-auth'] },
);
