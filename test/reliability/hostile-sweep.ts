/**
 * Hostile input sweep (reliability, part 3 of 4), through app.inject for speed. The routes are
 * swept in two halves, by hostile.test.ts and hostile-2.test.ts, so each file stays well inside
 * the runner's time per file and the two run side by side; each builds the same app. The table of routes
 * is the app's own (collected with the `onRoute` option of buildApp), so a route added later is
 * swept without editing this file; what a route takes comes from its TypeBox schemas, plus a few
 * hints below. For every route a seeded generator sends wrong types, missing and extra fields, 1 MB
 * strings, 10,000-level nesting, NUL and lone surrogates, prototype-pollution keys, out-of-range
 * and non-integer numbers, non-UUID ids, SQL and FTS5 syntax in every string, wrong content types,
 * malformed, truncated and oversized multipart bodies and a 17 MB JSON body.
 *
 * The rule (test/helpers/hostile.ts `judge`): never a 5xx; every error a small 4xx JSON body of
 * exactly {error, details?}; successes JSON (or image bytes). Where docs/decisions.md, "Shapes and
 * values" or "Requests", fixes the status
 * (a non-UUID path id is 400 naming the parameter, a content type a route does not take is
 * 415, malformed JSON 400, a JSON body over 16 MiB 413), the status is checked too. A canary
 * story with author, series, tags and cover is created first and must be byte-for-byte the same
 * at the end, nothing may be logged as an error, and Object.prototype must be untouched.
 * hostile-socket.test.ts does what inject cannot (cut-off bodies, raw protocol errors).
 */
import type { RouteOptions } from 'fastify';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { tempDataDir, TEST_PASSWORD } from '../helpers/app.js';
import {
  asText,
  BAD_IDS,
  bodySchemaOf,
  encodeHostile,
  createCanary,
  hostileValue,
  judge,
  rawBodies,
  snapshotCanary,
  SQL_AND_FTS,
  takesText,
  toJson,
  validValue,
  WRONG_CONTENT_TYPES,
  type Schema,
  type Send,
  type SentRequest,
} from '../helpers/hostile.js';
import * as img from '../helpers/images.js';
import { multipart, type Part } from '../helpers/multipart.js';
import { Random, sized, testSeed } from '../helpers/reliability.js';

const CASES_PER_ROUTE = sized(60, 400);

/** Routes that are slow by nature get fewer cases (a backup copies the library). */
const FEW_CASES = new Map([
  ['POST /api/admin/backup', 3],
  ['POST /api/search/reindex', 6],
]);

interface Route {
  method: string;
  url: string;
  schema: { params?: Schema; querystring?: Schema; body?: Schema };
  multipart: boolean;
}

interface Victims {
  storyId: string;
  authorId: string;
  seriesId: string;
  tagId: string;
  tagName: string;
  coverPath: string;
}

interface Case {
  label: string;
  request: SentRequest;
  /** Statuses the rules fix for this kind of input (see above); else any non-5xx. */
  expected?: readonly number[];
  /** For a 400 that must name a field in `details`. */
  detailsKey?: string;
}

/** Sweeps the routes whose place in the app's route table is `part` modulo `parts`. */
export function hostileSweep(part: number, parts: number): void {
t.test(`hostile input on every route (part ${part + 1} of ${parts}): never a 5xx, always {error, details?}, the canary untouched`, async (t) => {
  const seed = testSeed(t, 'hostile');
  const rng = new Random(seed);
  const dataDir = tempDataDir(t);
  const routes: Route[] = [];
  const logged: string[] = [];
  const config = loadConfig({ DATA_DIR: dataDir, APP_PASSWORD: TEST_PASSWORD, LOG_LEVEL: 'warn' });
  const app = await buildApp(config, {
    logger: { level: 'error', stream: { write: (line: string) => logged.push(line) } },
    onRoute: (route: RouteOptions) => {
      for (const method of [route.method].flat()) {
        if (method === 'HEAD' || !route.url.startsWith('/api')) continue;
        routes.push({ method, url: route.url, schema: (route.schema ?? {}) as Route['schema'], multipart: route.config?.acceptsMultipart === true });
      }
    },
  });
  t.teardown(() => app.close());
  const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { password: TEST_PASSWORD } });
  const token = (login.json() as { token: string }).token;

  // Each request comes from its own address, so the login lockout (ten failures, then 429 for
  // every login) does not hide what the sweep asks of login's answers to each hostile input.
  let sent = 0;
  const send: Send = async (request) => {
    sent += 1;
    const res = await app.inject({
      method: request.method as 'GET',
      url: request.url,
      remoteAddress: `127.${(sent >> 16) & 255}.${(sent >> 8) & 255}.${sent & 255}`,
      headers: request.headers,
      payload: request.payload,
      cookies: request.auth === false ? {} : { token },
    });
    return { status: res.statusCode, headers: res.headers as Record<string, string>, body: res.rawPayload };
  };

  const canary = await createCanary(send, rng);
  const before = await snapshotCanary(send, canary);
  let victims = await createVictims(send, rng);
  t.ok(routes.length >= 60, `${routes.length} routes in the app`);
  const mine = routes.filter((_, index) => index % parts === part);
  t.comment(`${mine.length} of them swept here`);

  let total = 0;
  /** 5xx answers of known defects: each logged one error line. */
  for (const route of mine) {
    const name = `${route.method} ${route.url}`;
    const failures: string[] = [];
    const count = FEW_CASES.get(name) ?? CASES_PER_ROUTE;
    for (let n = 0; n < count; n += 1) {
      const hostileCase = makeCase(route, rng, victims);
      const started = Date.now();
      const answer = await send(hostileCase.request);
      const elapsed = Date.now() - started;
      total += 1;
      const verdict = judge(answer, hostileCase.expected);
      let why = verdict.why;
      if (verdict.ok && hostileCase.detailsKey !== undefined && answer.status === 400) {
        const details = JSON.parse(answer.body.toString()).details ?? {};
        if (typeof details[hostileCase.detailsKey] !== 'string') why = `400 without details.${hostileCase.detailsKey}`;
      }
      if (answer.status === 401 && !name.startsWith('POST /api/auth/')) why = 'the token stopped working';
      if (elapsed > 5000) why = `took ${elapsed} ms`;
      if (why !== undefined) {
        const failure = `${hostileCase.label}: ${why} -> ${answer.status} ${answer.body.toString().slice(0, 300)}`;
        failures.push(failure);
      }
      if (answer.status < 300 && route.method === 'DELETE') victims = await createVictims(send, rng);
    }
    t.same(failures.slice(0, 10), [], `${name}: ${count} hostile requests (${failures.length} bad)`);
  }
  t.comment(`${total} hostile requests sent`);

  await t.test('SQL and FTS5 syntax in every string field of every route', async (t) => {
    let sent = 0;
    for (const route of mine) {
      const name = `${route.method} ${route.url}`;
      const failures: string[] = [];
      for (const target of textFields(route)) {
        for (const text of SQL_AND_FTS) {
          const request = textCase(route, target, text, rng, victims);
          const answer = await send(request);
          sent += 1;
          const verdict = judge(answer);
          if (!verdict.ok) failures.push(`${target.where} ${target.field}=${JSON.stringify(text)}: ${verdict.why} -> ${answer.status} ${answer.body.toString().slice(0, 200)}`);
          if (answer.status < 300 && route.method === 'DELETE') victims = await createVictims(send, rng);
        }
      }
      if (failures.length > 0) t.same(failures.slice(0, 10), [], name);
    }
    t.comment(`${sent} requests with SQL or FTS5 syntax`);
  });

  await t.test('extreme numbers in every integer query parameter of every route', async (t) => {
    for (const route of mine) {
      const name = `${route.method} ${route.url}`;
      const integers = Object.entries(route.schema.querystring?.properties ?? {}).filter(([, schema]) => schema.type === 'integer');
      for (const [field] of integers) {
        for (const value of ['1e308', '1e21', String(2 ** 53), '-1', '2.5', 'NaN', 'Infinity', '0x10', '']) {
          const hints = { ids: { authorId: victims.authorId, seriesId: victims.seriesId, tagId: victims.tagId } };
          const query = validValue(route.schema.querystring as Schema, 'query', new Random(1), hints) as Record<string, unknown>;
          query[field] = value;
          const label = `query ${field}=${value}`;
          const answer = await send({ method: route.method, url: `${fillPath(route.url, victims, new Random(0))}${queryString(query)}`, auth: route.url !== '/api/auth/logout' });
          const verdict = judge(answer);
          if (verdict.ok) continue;
          t.fail(`${name} ${label}: ${verdict.why} -> ${answer.status} ${answer.body.toString().slice(0, 200)}`);
        }
      }
    }
  });

  // Not a route's: one half sends them.
  if (part === 0) await t.test('heavy but legal story bodies are answered within seconds', async (t) => {
    const bodies: Record<string, string> = {
      'one paragraph of 150,000 words': `<p>${'word '.repeat(150_000)}</p>`,
      'one Greek paragraph of 100,000 words': `<p>${'λέξη '.repeat(100_000)}</p>`,
      '200,000 nested <b>': '<b>'.repeat(200_000),
      'a megabyte of <': '<'.repeat(1_000_000),
      '300,000 entities': '&amp;'.repeat(300_000),
      '50,000 nested lists': '<ul><li>'.repeat(50_000),
      '100,000 unclosed scripts': '<script>'.repeat(100_000),
    };
    for (const [label, contentHtml] of Object.entries(bodies)) {
      const started = Date.now();
      const answer = await send({ method: 'POST', url: '/api/stories', payload: JSON.stringify({ title: label, contentHtml }), headers: { 'content-type': 'application/json' } });
      const elapsed = Date.now() - started;
      t.same(judge(answer, [201]), { ok: true }, `${label}: created`);
      t.ok(elapsed < 5000, `${label}: in ${elapsed} ms`);
    }
  });

  await t.test('oversized JSON: a 17 MB body is 413 on every JSON route that takes a body', async (t) => {
    const huge = Buffer.alloc(17 * 1024 * 1024, 0x61);
    huge.write('{"name":"', 0);
    huge.write('"}', huge.length - 2);
    for (const route of mine.filter((one) => one.schema.body !== undefined)) {
      const answer = await send({ method: route.method, url: fillPath(route.url, victims, new Random(1)), payload: huge, headers: { 'content-type': 'application/json' } });
      t.same(judge(answer, [413]), { ok: true }, `${route.method} ${route.url}`);
    }
  });

  t.same(await snapshotCanary(send, canary), before, 'the canary is byte-for-byte unchanged');
  t.equal((await send({ method: 'GET', url: '/healthz' })).status, 200, 'the app still answers');
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype was not polluted');
  t.same(logged, [], 'nothing was logged as an error');
});
}

async function createVictims(send: Send, rng: Random): Promise<Victims> {
  const post = async (url: string, body: unknown) =>
    JSON.parse((await send({ method: 'POST', url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } })).body.toString());
  const word = rng.letters(8);
  const tag = await post('/api/tags', { name: `victim ${word}` });
  const story = await post('/api/stories', { title: `victim ${word}`, authorName: `Victim ${word}`, seriesName: `Victim ${word}`, tagNames: [tag.name] });
  const form = multipart([{ name: 'file', data: img.webp() }]);
  const cover = JSON.parse((await send({ method: 'POST', url: `/api/stories/${story.id}/cover`, payload: form.payload, headers: form.headers })).body.toString());
  return { storyId: story.id, authorId: story.authorId, seriesId: story.seriesId, tagId: tag.id, tagName: tag.name, coverPath: cover.coverPath };
}

/** The id a path parameter takes on a route, for the victims (never the canary). */
function victimFor(url: string, param: string, victims: Victims): string {
  if (param === 'tagId') return victims.tagId;
  if (param === 'authorId') return victims.authorId;
  if (param === 'seriesId') return victims.seriesId;
  if (param === 'tagName') return victims.tagName;
  if (param === '*') return victims.coverPath;
  // A chapter's index (1-based): every story has its first.
  if (param === 'index') return '1';
  if (url.startsWith('/api/authors')) return victims.authorId;
  if (url.startsWith('/api/series')) return victims.seriesId;
  if (url.startsWith('/api/tags')) return victims.tagId;
  return victims.storyId;
}

function params(url: string): string[] {
  return [...url.matchAll(/:([A-Za-z]+)|\*/g)].map((match) => match[1] ?? '*');
}

function fillPath(url: string, victims: Victims, rng: Random, override?: { param: string; value: string; raw: boolean }): string {
  return url.replace(/:([A-Za-z]+)|\*/g, (_match, param: string | undefined) => {
    const name = param ?? '*';
    if (override !== undefined && override.param === name) return override.raw ? override.value : encodeHostile(override.value);
    if (name === '*') return victims.coverPath;
    return rng.chance(0.85) ? encodeURIComponent(victimFor(url, name, victims)) : crypto.randomUUID();
  });
}

function queryString(values: Record<string, unknown>): string {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) pairs.push(`${encodeHostile(name)}=${encodeHostile(asText(item))}`);
  }
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

interface TextField {
  where: 'body' | 'query' | 'path';
  field: string;
  list: boolean;
}

/** Every place a route takes free text: body and query fields, the tag-name and image-path segments. */
function textFields(route: Route): TextField[] {
  const fields: TextField[] = [];
  const body = bodySchemaOf(route.schema.body);
  if (!route.multipart || route.method === 'PUT') {
    for (const [field, schema] of Object.entries(body?.properties ?? {})) {
      const kind = takesText(schema);
      if (kind !== undefined) fields.push({ where: 'body', field, list: kind === 'array' });
    }
  }
  for (const [field, schema] of Object.entries(route.schema.querystring?.properties ?? {})) {
    const kind = takesText(schema);
    if (kind !== undefined) fields.push({ where: 'query', field, list: kind === 'array' });
  }
  for (const param of params(route.url)) if (param === 'tagName' || param === '*') fields.push({ where: 'path', field: param, list: false });
  return fields;
}

/** A valid request for `route` except that one text field holds `text`. */
function textCase(route: Route, target: TextField, text: string, rng: Random, victims: Victims): SentRequest {
  const hints = { ids: { authorId: victims.authorId, seriesId: victims.seriesId, tagId: victims.tagId } };
  const querySchema = route.schema.querystring;
  const bodySchema = bodySchemaOf(route.schema.body);
  const query = (querySchema === undefined ? {} : validValue(querySchema, 'query', rng, hints)) as Record<string, unknown>;
  const body = (bodySchema === undefined ? undefined : validValue(bodySchema, 'body', rng, hints)) as Record<string, unknown> | undefined;
  const value = target.list ? [text, 'plain'] : text;
  let url = fillPath(route.url, victims, new Random(0));
  if (target.where === 'query') query[target.field] = value;
  if (target.where === 'body' && body !== undefined) body[target.field] = value;
  if (target.where === 'path') url = fillPath(route.url, victims, new Random(0), { param: target.field, value: text, raw: false });
  const auth = route.url !== '/api/auth/logout';
  if (route.multipart && route.method === 'PUT' && target.where === 'body') {
    const form = multipart([{ name: target.field, value: text }]);
    return { method: route.method, url: `${url}${queryString(query)}`, payload: form.payload, headers: form.headers, auth };
  }
  return {
    method: route.method,
    url: `${url}${queryString(query)}`,
    ...(body === undefined ? {} : { payload: toJson(body), headers: { 'content-type': 'application/json' } }),
    auth,
  };
}

/**
 * The bad ids that are bad chapter indexes too: an index is an integer from 1 to 5,000
 * (src/schemas/chapter.ts), so "1" names a chapter, not a malformed id.
 */
const BAD_INDEXES = BAD_IDS.filter((id) => id.trim() === '' || !Number.isInteger(Number(id)) || Number(id) < 1 || Number(id) > 5000);

/** One seeded hostile request for `route`, and what the rules say it must get. */
function makeCase(route: Route, rng: Random, victims: Victims): Case {
  const hints = { ids: { authorId: victims.authorId, seriesId: victims.seriesId, tagId: victims.tagId } };
  const querySchema = route.schema.querystring;
  const bodySchema = bodySchemaOf(route.schema.body);
  const query = (querySchema === undefined ? {} : validValue(querySchema, 'query', rng, hints)) as Record<string, unknown>;
  const body = bodySchema === undefined ? undefined : (validValue(bodySchema, 'body', rng, hints) as Record<string, unknown>);
  const pathParams = params(route.url);
  const auth = route.url !== '/api/auth/logout';
  const base = (label: string, request: Partial<SentRequest>, expected?: readonly number[], detailsKey?: string): Case => ({
    label,
    expected,
    detailsKey,
    request: {
      method: route.method,
      url: `${fillPath(route.url, victims, rng)}${queryString(query)}`,
      ...(body === undefined ? {} : { payload: toJson(body), headers: { 'content-type': 'application/json' } }),
      auth,
      ...request,
    },
  });

  const kinds: Array<[number, () => Case]> = [];
  if (pathParams.length > 0) {
    kinds.push([3, () => {
      const param = rng.pick(pathParams);
      const raw = rng.chance(0.3);
      const value = param === '*' || param === 'tagName' ? asText(hostileValue(rng)) : rng.pick(param === 'index' ? BAD_INDEXES : BAD_IDS);
      const url = `${fillPath(route.url, victims, rng, { param, value, raw })}${queryString(query)}`;
      // docs/decisions.md, "Shapes and values": a path id that is not a UUID is 400 naming the
      // parameter. Raw text, a lone surrogate (invalid UTF-8 once encoded) or a segment over the
      // router's limit make the URL itself malformed instead: still 400, with {error} alone.
      const uuidParam = param !== '*' && param !== 'tagName';
      const wellFormed = !raw && value.length <= 500 && encodeHostile(value) === safeEncode(value);
      return base(
        `path ${param}=${JSON.stringify(value.slice(0, 40))}${raw ? ' (raw)' : ''}`,
        { url },
        uuidParam && !raw ? [400] : undefined,
        uuidParam && wellFormed ? param : undefined,
      );
    }]);
  }
  if (querySchema !== undefined && Object.keys(querySchema.properties ?? {}).length > 0) {
    kinds.push([3, () => {
      const names = Object.keys(querySchema.properties ?? {});
      const changed = { ...query };
      const label: string[] = [];
      for (const name of rng.sample(names, rng.between(1, 2))) {
        const mode = rng.int(4);
        if (mode === 0 && (querySchema.required ?? []).includes(name)) {
          delete changed[name];
          label.push(`-${name}`);
        } else if (mode === 1) {
          changed[name] = [hostileValue(rng), hostileValue(rng)];
          label.push(`${name}[]`);
        } else {
          changed[name] = hostileValue(rng);
          label.push(`${name}=${asText(changed[name]).slice(0, 30)}`);
        }
      }
      if (rng.chance(0.3)) changed[rng.pick(['__proto__', 'constructor', 'x', '__proto__[polluted]', 'constructor[prototype][polluted]'])] = 'yes';
      return base(`query ${label.join(' ')}`, { url: `${fillPath(route.url, victims, rng)}${queryString(changed)}` });
    }]);
  }
  if (bodySchema !== undefined && !route.multipart) {
    kinds.push([5, () => {
      const changed: Record<string, unknown> = { ...(body ?? {}) };
      const names = Object.keys(bodySchema.properties ?? {});
      const label: string[] = [];
      for (const name of rng.sample(names, rng.between(1, 3))) {
        if (rng.chance(0.2) && (bodySchema.required ?? []).includes(name)) {
          delete changed[name];
          label.push(`-${name}`);
        } else {
          changed[name] = rng.chance(0.3) ? [hostileValue(rng)] : hostileValue(rng);
          label.push(`${name}=${asText(changed[name]).slice(0, 30)}`);
        }
      }
      if (rng.chance(0.3)) changed[rng.pick(['extra', 'id', 'createdAt', 'storyCount', 'seq', 'prototype'])] = hostileValue(rng);
      return base(`body ${label.join(' ')}`, { payload: toJson(changed) });
    }]);
    kinds.push([2, () => {
      const raw = rng.pick(rawBodies(rng));
      const malformed = raw !== '' && !isJson(raw);
      return base(`raw body ${JSON.stringify(raw.slice(0, 40))}`, { payload: raw }, malformed ? [400] : undefined);
    }]);
    kinds.push([1, () => {
      const type = rng.pick(WRONG_CONTENT_TYPES);
      return base(`content-type ${type}`, { headers: { 'content-type': type }, payload: toJson(body ?? {}) }, [415]);
    }]);
  }
  if (route.multipart) {
    kinds.push([6, () => hostileMultipart(route, rng, base)]);
  } else if (route.method !== 'GET' && rng.chance(0.5)) {
    kinds.push([1, () => {
      const form = multipart([{ name: 'file', data: img.png() }, { name: 'name', value: 'x' }]);
      return base('multipart to a JSON route', { payload: form.payload, headers: form.headers }, [415]);
    }]);
  }
  kinds.push([1, () => base('no body, no content type', { payload: undefined, headers: {} })]);
  kinds.push([1, () => base('hostile headers', { headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), 'x-forwarded-for': "' OR 1=1", 'if-none-match': '*', 'accept': 'text/html', 'accept-encoding': 'gzip, br', authorization: 'Bearer x.y.z' } })]);
  return rng.weighted(kinds)();
}

function safeEncode(text: string): string | undefined {
  try {
    return encodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** JSON as the service reads it: a leading byte-order mark is allowed (RFC 8259, section 8.1). */
function isJson(text: string): boolean {
  try {
    JSON.parse(text.replace(/^\ufeff/, ''));
    return true;
  } catch {
    return false;
  }
}

/** Multipart bodies that are wrong in every way a form can be. */
function hostileMultipart(route: Route, rng: Random, base: (label: string, request: Partial<SentRequest>, expected?: readonly number[]) => Case): Case {
  const fileField = route.method === 'PUT' ? 'avatar' : 'file';
  const bad = rng.weighted<() => { label: string; parts?: Part[]; payload?: Buffer; type?: string; expected?: number[] }>([
    [2, () => ({ label: 'no parts', parts: [] })],
    [2, () => ({ label: 'file under another name', parts: [{ name: 'upload', data: img.png() }] })],
    [3, () => {
      const [label, data] = rng.pick([['gif', img.gif()], ['svg', img.svg()], ['html', img.html()], ['polyglot', img.pngHeaderPolyglot()], ['text', img.text()], ['empty', Buffer.alloc(0)], ['truncated png', img.png().subarray(0, 30)]] as const);
      // The archive route reads any upload as a ZIP and refuses what is not one with a 400 naming `file`.
      const expected = route.method === 'PUT' ? undefined : route.url.endsWith('/import/archive') ? [400] : [415, 404];
      return { label: `a ${label} as the image`, parts: [{ name: fileField, data, filename: 'x.png', contentType: 'image/png' }], expected };
    }],
    // The import route takes files up to 100 MiB, but not as `upload.bin`: its answer is 415; the
    // archive route takes 2 GiB, and a PNG is not a ZIP: 400.
    [1, () => ({ label: 'an image one byte over 5 MiB', parts: [{ name: fileField, data: img.pngOfSize(5 * 1024 * 1024 + 1) }], expected: route.url.endsWith('/import/files') ? [415] : route.url.endsWith('/import/archive') ? [400] : [413, 404] })],
    [1, () => ({ label: 'two images', parts: [{ name: fileField, data: img.png() }, { name: fileField, data: img.jpeg() }] })],
    [1, () => ({ label: '200 fields', parts: Array.from({ length: 200 }, (_, n) => ({ name: `f${n}`, value: 'x' })) })],
    [1, () => ({ label: 'a 100 KB field', parts: [{ name: 'notes', value: 'n'.repeat(100_000) }, { name: fileField, data: img.png() }] })],
    [2, () => ({ label: 'hostile fields', parts: [{ name: rng.pick(['name', 'notes', 'urls', 'authorRating', '__proto__', 'constructor']), value: asText(hostileValue(rng)).slice(0, 60_000) }, { name: 'authorRating', value: asText(hostileValue(rng)).slice(0, 100) }] })],
    [2, () => {
      const whole = multipart([{ name: fileField, data: img.pngOfSize(rng.between(2000, 200_000)) }]).payload;
      return { label: 'cut off mid-body', payload: whole.subarray(0, rng.between(10, whole.length - 10)) };
    }],
    [1, () => ({ label: 'no boundary', payload: Buffer.from('--x\r\n\r\n'), type: 'multipart/form-data' })],
    [1, () => ({ label: 'garbage under a boundary', payload: Buffer.from('\u0000\u0001garbage--b--'), type: 'multipart/form-data; boundary=b' })],
    [1, () => ({ label: 'part headers garbage', payload: Buffer.from('--b\r\nContent-Disposition: \u0000\r\n\r\nx\r\n--b--\r\n'), type: 'multipart/form-data; boundary=b' })],
    [1, () => ({ label: 'JSON to a multipart route', payload: Buffer.from('{"name":"x"}'), type: 'application/json' })],
  ])();
  if (bad.parts !== undefined) {
    const form = multipart(bad.parts);
    return base(bad.label, { payload: form.payload, headers: form.headers }, bad.expected);
  }
  const type = bad.type ?? multipart([]).headers['content-type'];
  // A cut-off body keeps its own boundary: rebuild the header from the body's first line.
  const boundary = bad.payload?.toString('latin1').match(/^--([^\r\n]+)/)?.[1];
  const header = bad.label === 'cut off mid-body' && boundary !== undefined ? `multipart/form-data; boundary=${boundary}` : type;
  return base(bad.label, { payload: bad.payload, headers: { 'content-type': header } }, bad.expected);
}

