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

const CONTENT_OPEN = '{"content":';

/** Marks bytes the caller knows to be one JSON value. */
export function asJsonBytes(bytes: Buffer): JsonBytes {
  return bytes as JsonBytes;
}

/**
 * The paged envelope (docs/api.md, "Lists and paging"; exactly {@link toPage}'s, keys in the
 * same order) around JSON content, as the text before and after it: `render` returns the content's
 * bytes wrapped in them, and how many items it holds. Should that differ from `expectedItems` (the
 * ids asked for), the envelope is rendered again around the content for the real count.
 */
export function jsonPage(
  expectedItems: number,
  totalElements: number,
  request: PageRequest,
  render: (before: string, after: string) => { json: JsonBytes; count: number },
): JsonBytes {
  const tail = (items: number) => {
    const { content: _content, ...envelope } = toPage(new Array<never>(items), totalElements, request);
    return `,${JSON.stringify(envelope).slice(1)}`;
  };
  const { json, count } = render(CONTENT_OPEN, tail(expectedItems));
  if (count === expectedItems) return json;
  const content = json.subarray(CONTENT_OPEN.length, json.length - tail(expectedItems).length);
  return Buffer.concat([Buffer.from(CONTENT_OPEN), content, Buffer.from(tail(count))]) as JsonBytes;
}

/**
 * Sends rendered JSON with the content type Fastify gives serialized JSON. Fastify sends a Buffer
 * untouched, so the route's response schema documents this body (OpenAPI) but does not
 * serialize it; the SQL that renders it is tested against that schema instead.
 */
export function sendJson(reply: FastifyReply, body: JsonBytes, status = 200): FastifyReply {
  return reply.code(status).header('content-type', 'application/json; charset=utf-8').send(body);
}
