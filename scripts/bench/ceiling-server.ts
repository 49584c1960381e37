/**
 * The ceiling of `npm run bench` (docs/performance.md): a bare Fastify server that answers each
 * benchmarked request with the exact status, headers and body bytes the real server sent for it,
 * captured just before. No database, no auth, no validation, no serialization: what is left is
 * Fastify, Node's HTTP stack and the bytes on the wire, so "real / ceiling" is the share of the
 * machine the application itself leaves.
 *
 *   node dist/scripts/bench/ceiling-server.js <captures.json> <port>
 *
 * Routes are the captured URLs' paths (query strings are told apart by a map lookup); a POST body
 * is parsed by Fastify's default JSON parser, as any Fastify app would. Listens on 127.0.0.1 only.
 */
import fs from 'node:fs';
import Fastify from 'fastify';
import type { Capture } from './protocol.js';

const [file, portText] = process.argv.slice(2);
if (file === undefined || portText === undefined) {
  process.stderr.write('usage: ceiling-server <captures.json> <port>\n');
  process.exit(2);
}

/** Hop-by-hop and per-response headers Node sets itself. */
const SKIPPED = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

const captures = JSON.parse(fs.readFileSync(file, 'utf8')) as Capture[];
const app = Fastify({ logger: false, bodyLimit: 16 * 1024 * 1024 });
const byRoute = new Map<string, Map<string, { status: number; headers: Record<string, string>; body: Buffer }>>();
for (const capture of captures) {
  const url = new URL(capture.url, 'http://127.0.0.1');
  const key = `${capture.method} ${url.pathname}`;
  let responses = byRoute.get(key);
  if (responses === undefined) {
    responses = new Map();
    byRoute.set(key, responses);
    app.route({
      method: capture.method,
      url: url.pathname,
      handler: async (request, reply) => {
        const response = responses!.get(request.url);
        if (response === undefined) return reply.code(404).send();
        return reply.code(response.status).headers(response.headers).send(response.body);
      },
    });
  }
  const headers = Object.fromEntries(Object.entries(capture.headers).filter(([name]) => !SKIPPED.has(name.toLowerCase())));
  responses.set(capture.url, { status: capture.status, headers, body: Buffer.from(capture.bodyBase64, 'base64') });
}

process.on('SIGTERM', () => {
  app.close().then(() => process.exit(0), () => process.exit(1));
});

await app.listen({ host: '127.0.0.1', port: Number(portText) });
process.stdout.write(`ceiling listening on ${portText}\n`);
