import type { FastifyReply } from 'fastify';
import { toPage, type PageRequest } from './pagination.js';

declare const jsonBytes: unique symbol;

/**
 * A response body already rendered as UTF-8 JSON (by SQLite, for the story DTOs: see
 * src/stories/present.ts), sent as it is. A 20-story list page is ~0.7 MB of text: rendered in
 * SQLite and kept as bytes it is never turned into JavaScript strings, escaped again and
 * encoded again, which was ~75% of such a request's CPU (docs/performance.md).
 */
export type JsonBytes = Buffer & { readonly [jsonBytes]: true };

const OPEN_ARRAY = Buffer.from('[');
const CLOSE_ARRAY = Buffer.from(']');
const COMMA = Buffer.from(',');
const OPEN_CONTENT = Buffer.from('{"content":');

/** Marks bytes the caller knows to be one JSON value. */
export function asJsonBytes(bytes: Buffer): JsonBytes {
  return bytes as JsonBytes;
}

/** `[a,b,...]` from JSON values. */
export function jsonArray(items: readonly JsonBytes[]): JsonBytes {
  const parts: Buffer[] = [OPEN_ARRAY];
  items.forEach((item, index) => {
    if (index > 0) parts.push(COMMA);
    parts.push(item);
  });
  parts.push(CLOSE_ARRAY);
  return Buffer.concat(parts) as JsonBytes;
}

/** The paged envelope of spec 2.6 (exactly {@link toPage}'s, keys in the same order) around JSON items. */
export function jsonPage(items: readonly JsonBytes[], totalElements: number, request: PageRequest): JsonBytes {
  const { content: _content, ...envelope } = toPage(items as unknown as unknown[], totalElements, request);
  const rest = JSON.stringify(envelope);
  return Buffer.concat([OPEN_CONTENT, jsonArray(items), COMMA, Buffer.from(rest.slice(1))]) as JsonBytes;
}

/**
 * Sends rendered JSON with the content type Fastify gives serialized JSON. Fastify sends a Buffer
 * untouched, so the route's response schema documents this body (OpenAPI) but does not
 * serialize it; the SQL that renders it is tested against that schema instead.
 */
export function sendJson(reply: FastifyReply, body: JsonBytes, status = 200): FastifyReply {
  return reply.code(status).header('content-type', 'application/json; charset=utf-8').send(body);
}
