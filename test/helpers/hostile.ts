/**
 * Pieces of the hostile-input suites (test/reliability/hostile*.test.ts): the hostile values,
 * a value generator driven by the routes' own TypeBox schemas, the rule every answer must obey,
 * and the canary (a story with author, series, tags and cover, created first and compared
 * byte for byte at the end). Transport-neutral: `Send` is app.inject or a real socket.
 */
import type { Random } from './reliability.js';
import * as img from './images.js';
import { multipart } from './multipart.js';

export interface SentRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  payload?: string | Buffer;
  /** false: no token cookie (login, logout). Default true. */
  auth?: boolean;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export type Send = (request: SentRequest) => Promise<Answer>;

const MiB = 1024 * 1024;

/** Strings that have broken services before: SQL, FTS5 syntax, paths, markup, control and odd Unicode. */
export const HOSTILE_STRINGS: readonly string[] = [
  '',
  ' ',
  '\t\n',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\ufeff',
  '\u202eevil',
  '\uffff',
  '🙂',
  'Ǆ ǅ ǆ İ ß ﬃ',
  "' OR 1=1 --",
  '"; DROP TABLE stories; --',
  "'); DELETE FROM tags; --",
  '1; SELECT * FROM sqlite_master',
  '"',
  "'",
  'NEAR(',
  'NEAR(a b, 2)',
  '*',
  'a*',
  '**',
  'AND OR',
  'AND',
  'OR NOT',
  '(',
  ')',
  '^title',
  'title:x',
  '{title body}: x',
  '-x',
  '+x',
  '""',
  '"*"',
  '%',
  '_',
  '\\',
  '%00',
  '%ZZ',
  '%2e%2e%2f',
  '../../etc/passwd',
  '..\\..\\win.ini',
  '/etc/passwd',
  'covers/../../secrets/jwt',
  'covers/x.png',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '${7*7}{{7*7}}',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  '-1',
  '0',
  '1e308',
  '2.5',
  'NaN',
  'Infinity',
  '0x10',
  'true',
  'null',
  '[]',
  '{}',
];

/** SQL and FTS5 syntax: every string field of every route gets each of these (hostile.test.ts). */
export const SQL_AND_FTS: readonly string[] = [
  "' OR 1=1 --",
  '"; DROP TABLE stories; --',
  "x'); DROP TABLE tags; --",
  '"',
  'a"b',
  'NEAR(',
  'NEAR(a b',
  '*',
  'AND OR',
  'NOT x',
  '(a OR',
  '^x',
  'title:x',
  '{title}:x',
  '%_\\',
];

/** Whether a schema (or its non-null branch) takes a string or a list of strings. */
export function takesText(schema: Schema): 'string' | 'array' | undefined {
  const branch = schema.anyOf?.find((one) => one.type !== 'null') ?? schema;
  if (branch.type === 'string' && branch.format !== 'uuid' && branch.enum === undefined && branch.pattern === undefined) return 'string';
  if (branch.type === 'array' && branch.items !== undefined && takesText(branch.items) === 'string') return 'array';
  return undefined;
}

/** Numbers out of every range and of the wrong kind (NaN and Infinity cannot be JSON numbers; see the strings). */
export const HOSTILE_NUMBERS: readonly number[] = [-1, 0, 6, 2.5, 1e308, -1e308, 1e21, Number.MAX_SAFE_INTEGER + 2, -0.0001];

/** Values of every other JSON type. */
export const HOSTILE_OTHERS: readonly unknown[] = [true, false, null, [], {}, [[]], ['x', 1], { a: 1 }, [null], { $gt: '' }];

export const HUGE_STRING_BYTES = MiB;

/** Literal segments that win over an `{id}` in the same position (docs/api.md, "Resources"): never used as a bad id. */
const LITERAL_SEGMENTS = new Set(['search', 'recent', 'top-rated', 'stats', 'popular', 'unused', 'autocomplete', 'empty', 'with-stories', 'author', 'series', 'tags', 'search-typesense', 'suggestions']);

/** Ids that are not UUIDs, or not ids of anything. */
export const BAD_IDS: readonly string[] = [
  'not-a-uuid',
  '1',
  '-1',
  '0',
  '3F2B8C1E-9A4D-4E6F-8B7A-1C2D3E4F5A6B0',
  '3f2b8c1e9a4d4e6f8b7a1c2d3e4f5a6b',
  "' OR 1=1 --",
  '"; DROP TABLE stories; --',
  '%00',
  '%ZZ',
  '..%2f..%2fetc',
  '__proto__',
  'constructor',
  'x'.repeat(600),
  '\ud800',
  '🙂',
].filter((id) => !LITERAL_SEGMENTS.has(id));

/** A raw JSON text nested `depth` levels deep (built as text: JSON.stringify would recurse). */
export function deepJson(depth: number, kind: 'array' | 'object' = 'array'): string {
  return kind === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Raw bodies that are not a JSON object, or not JSON at all. */
export function rawBodies(rng: Random): string[] {
  return [
    '',
    'null',
    '[]',
    '"a string"',
    '123',
    'true',
    '{',
    '{"a":',
    '{"title": "x"',
    '{"title": "x",}',
    "{'title': 'x'}",
    '\u0000',
    '\ufeff{"name":"bom"}',
    '{"name": "\\ud800"}',
    '{"name": "a\\u0000b"}',
    '{"__proto__": {"polluted": true}, "name": "x"}',
    '{"constructor": {"prototype": {"polluted": true}}, "name": "x"}',
    '{"name": "x", "name": "y"}',
    deepJson(10_000),
    deepJson(10_000, 'object'),
    `{"name": ${deepJson(10_000)}}`,
    `{"title": "x", "tagNames": ${deepJson(10_000)}}`,
    JSON.stringify({ name: 'x'.repeat(rng.between(1, 3) * 100_000) }),
  ];
}

/** Content types no JSON route takes (415), and odd spellings of JSON. */
export const WRONG_CONTENT_TYPES: readonly string[] = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'text/html',
  'application/octet-stream',
  'application/jsonx',
  'image/png',
];

/** JSON Schema as TypeBox emits it (the subset the routes use). */
export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  default?: unknown;
  content?: Record<string, { schema: Schema }>;
}

/** The body schema of a route (the author PUT declares it per content type). */
export function bodySchemaOf(schema: Schema | undefined): Schema | undefined {
  if (schema === undefined) return undefined;
  return schema.content?.['application/json']?.schema ?? schema;
}

export interface ValueHints {
  /** Ids to use for uuid fields by field name (authorId, seriesId, tagId...); else a fresh UUID. */
  ids: Record<string, string>;
}

/**
 * A plausible valid value for `schema` (the field name picks a suitable one where the schema
 * cannot say: URLs, passwords, ids), with fresh random names so nothing collides with the canary.
 */
export function validValue(schema: Schema, field: string, rng: Random, hints: ValueHints): unknown {
  if (schema.anyOf !== undefined) return validValue(schema.anyOf.find((branch) => branch.type !== 'null') ?? schema.anyOf[0]!, field, rng, hints);
  if (schema.enum !== undefined) return rng.pick(schema.enum);
  switch (schema.type) {
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        if ((schema.required ?? []).includes(name) || rng.chance(0.4)) value[name] = validValue(property, name, rng, hints);
      }
      return value;
    }
    case 'array':
      return Array.from({ length: rng.between(0, 2) }, () => validValue(schema.items ?? { type: 'string' }, field, rng, hints));
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? 0;
      const max = Math.min(schema.maximum ?? min + 10, min + 10);
      return rng.between(min, max);
    }
    case 'boolean':
      return rng.chance(0.5);
    default: {
      if (schema.format === 'uuid') return hints.ids[field] ?? crypto.randomUUID();
      if (schema.pattern !== undefined) return rng.pick(['asc', 'desc', 'ASC']);
      if (field === 'password') return 'not the password';
      // The URL import fetches its `url`: a loopback address it refuses (403) keeps every sweep off the network.
      if (field === 'url') return `http://127.0.0.1:9/${rng.letters(6)}`;
      if (/url/i.test(field)) return `https://example.com/${rng.letters(6)}`;
      if (field === 'coverPath' || field === 'avatarImagePath' || field === 'path') return undefined;
      const text = `h${rng.letters(8)} ${rng.letters(5)}`;
      return schema.maxLength === undefined ? text : text.slice(0, Math.max(1, schema.maxLength));
    }
  }
}

/** One hostile value of any kind, 1 MB strings and 10k-deep nesting included (as a marker). */
export function hostileValue(rng: Random): unknown {
  return rng.weighted<() => unknown>([
    [6, () => rng.pick(HOSTILE_STRINGS)],
    [3, () => rng.pick(HOSTILE_NUMBERS)],
    [3, () => rng.pick(HOSTILE_OTHERS)],
    [1, () => 'x'.repeat(HUGE_STRING_BYTES)],
    [1, () => `${rng.pick(HOSTILE_STRINGS)}${'y'.repeat(rng.between(256, 20_000))}`],
    [1, () => DEEP],
  ])();
}

/** Stands for a 10,000-level nested array inside a JSON body; {@link toJson} writes it out. */
export const DEEP = Symbol('10k-deep');

/** JSON text of a body that may hold {@link DEEP} markers. */
export function toJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, item) => (item === DEEP ? '\u0001DEEP\u0001' : item));
  return (text ?? 'null').split('"\\u0001DEEP\\u0001"').join(deepJson(10_000));
}

/**
 * Percent-encodes text for a URL, lone surrogates included (`encodeURIComponent` throws on
 * them): each becomes the three bytes UTF-8 would give it, which no valid UTF-8 decoder accepts.
 */
export function encodeHostile(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    let out = '';
    for (const char of text) {
      const unit = char.charCodeAt(0);
      if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
        out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
      } else out += encodeURIComponent(char);
    }
    return out;
  }
}

/** Text of a value for a query string or path segment. */
export function asText(value: unknown): string {
  if (value === DEEP) return '['.repeat(5000);
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}

export interface Verdict {
  ok: boolean;
  why?: string;
}

/**
 * The rule for every answer to hostile input: never 5xx; an error is a 4xx JSON body of exactly
 * `{error: string, details?: {field: string}}`, small (no echo of huge input) and without a stack
 * trace; a success is JSON too, except image bytes, EPUB books, the library archive and 304. `expected` narrows the status.
 */
export function judge(answer: Answer, expected?: readonly number[]): Verdict {
  const type = String(answer.headers['content-type'] ?? '');
  if (answer.status >= 500) return { ok: false, why: `status ${answer.status}` };
  if (expected !== undefined && !expected.includes(answer.status)) return { ok: false, why: `status ${answer.status}, expected ${expected.join('/')}` };
  if (answer.status === 304 || (answer.status === 200 && (/^image\//.test(type) || type === 'application/epub+zip' || type === 'application/zip'))) return { ok: true };
  if (!type.startsWith('application/json')) return { ok: false, why: `content-type "${type}"` };
  let body: unknown;
  try {
    body = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return { ok: false, why: 'body is not JSON' };
  }
  if (answer.status < 400) return { ok: true };
  if (answer.body.length > 16 * 1024) return { ok: false, why: `error body of ${answer.body.length} bytes` };
  if (/\bat .+\.(?:js|ts):\d+/.test(answer.body.toString('utf8'))) return { ok: false, why: 'stack trace in the body' };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, why: 'error body is not an object' };
  const { error, details, ...rest } = body as Record<string, unknown>;
  if (typeof error !== 'string' || error === '') return { ok: false, why: 'no error message' };
  if (Object.keys(rest).length > 0) return { ok: false, why: `unexpected keys ${Object.keys(rest).join(', ')}` };
  if (details !== undefined) {
    if (typeof details !== 'object' || details === null || Array.isArray(details)) return { ok: false, why: 'details is not an object' };
    if (Object.values(details).some((message) => typeof message !== 'string')) return { ok: false, why: 'a details message is not a string' };
  }
  return { ok: true };
}

export interface Canary {
  storyId: string;
  authorId: string;
  seriesId: string;
  tagIds: string[];
  coverPath: string;
  avatarPath: string;
}

async function json(send: Send, method: string, url: string, body: unknown, expected: number): Promise<any> {
  const answer = await send({ method, url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  if (answer.status !== expected) throw new Error(`canary setup: ${method} ${url} answered ${answer.status} ${answer.body.toString()}`);
  return JSON.parse(answer.body.toString());
}

async function upload(send: Send, method: string, url: string, data: Buffer): Promise<any> {
  const form = multipart([{ name: 'file', data, filename: 'canary.png', contentType: 'image/png' }]);
  const answer = await send({ method, url, payload: form.payload, headers: form.headers });
  if (answer.status !== 200) throw new Error(`canary setup: ${url} answered ${answer.status} ${answer.body.toString()}`);
  return JSON.parse(answer.body.toString());
}

/** The canary: a story with an author (notes, URLs, rating, avatar), a series, two tags and a cover. */
export async function createCanary(send: Send, rng: Random): Promise<Canary> {
  const suffix = rng.letters(10);
  const author = await json(send, 'POST', '/api/authors', { name: `Canary Author ${suffix}`, notes: 'sings', urls: ['https://canary.example/a'] }, 201);
  await json(send, 'PUT', `/api/authors/${author.id}`, { rating: 4 }, 200);
  const avatar = await upload(send, 'POST', `/api/authors/${author.id}/avatar`, img.jpeg());
  const series = await json(send, 'POST', '/api/series', { name: `Canary Series ${suffix}`, description: 'yellow' }, 201);
  const story = await json(
    send,
    'POST',
    '/api/stories',
    {
      title: `Canary ${suffix}`,
      summary: 'a bird in a mine',
      description: 'it must not change',
      contentHtml: `<p>The canary ${suffix} sings <em>on</em>.</p>`,
      sourceUrl: 'https://canary.example/story',
      authorId: author.id,
      seriesId: series.id,
      volume: 3,
      rating: 5,
      tagNames: [`canary-${suffix}-a`, `canary-${suffix}-b`],
    },
    201,
  );
  const cover = await upload(send, 'POST', `/api/stories/${story.id}/cover`, img.png());
  return {
    storyId: story.id,
    authorId: author.id,
    seriesId: series.id,
    tagIds: story.tags.map((tag: { id: string }) => tag.id),
    coverPath: cover.coverPath,
    avatarPath: avatar.avatarPath,
  };
}

/** Every view of the canary, byte for byte: its story, author, series, tags, lists and images. */
export async function snapshotCanary(send: Send, canary: Canary): Promise<Record<string, string>> {
  const urls = [
    `/api/stories/${canary.storyId}`,
    `/api/authors/${canary.authorId}`,
    `/api/series/${canary.seriesId}`,
    ...canary.tagIds.map((id) => `/api/tags/${id}`),
    `/api/stories/author/${canary.authorId}`,
    `/api/stories/series/${canary.seriesId}`,
    `/api/files/images/${canary.coverPath}`,
    `/api/files/images/${canary.avatarPath}`,
  ];
  const snapshot: Record<string, string> = {};
  for (const url of urls) {
    const answer = await send({ method: 'GET', url });
    snapshot[url] = `${answer.status} ${answer.body.toString('base64')}`;
  }
  return snapshot;
}
