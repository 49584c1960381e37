import fp from 'fastify-plugin';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';

/**
 * The OpenAPI 3 document, generated from the route schemas themselves (so it cannot drift from
 * what is validated and serialized), at `/openapi.json`, and an interactive page at `/docs`.
 * Both are outside `/api` and need no login: they describe the API, they do not expose data.
 * Must be registered before the routes it documents.
 */
export const apiDocsPlugin = fp(
  async (app) => {
    await app.register(fastifySwagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'Storyshelf API',
          version: '1.0.0',
          description: 'A self-hosted story library. Every /api route except login and logout needs the `token` cookie (or `Authorization: Bearer`).',
        },
        components: {
          securitySchemes: {
            cookieAuth: { type: 'apiKey', in: 'cookie', name: 'token' },
            bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          },
        },
        security: [{ cookieAuth: [] }, { bearerAuth: [] }],
        tags: [
          { name: 'auth', description: 'Login, logout, token check' },
          { name: 'stories' },
          { name: 'authors' },
          { name: 'tags' },
          { name: 'series' },
          { name: 'files', description: 'Cover and avatar images' },
          { name: 'search', description: 'Full-text search and its administration' },
          { name: 'config' },
          { name: 'admin', description: 'Backups' },
          { name: 'health', description: 'Liveness for monitors' },
        ],
      },
    });
    await app.register(fastifySwaggerUi, { routePrefix: '/docs', staticCSP: true });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'storyshelf-api-docs', fastify: '5.x' },
);
