/**
 * Fetching a page or an image for an import (docs/decisions.md, "URL import"), over node:http and
 * node:https because the SSRF agent (destination.ts) is an `http.Agent`, which Node's `fetch`
 * cannot use. Redirects are followed by hand, at most {@link MAX_REDIRECTS}, each hop through a
 * new agent so each destination is checked. The body is streamed, decompressed (gzip, deflate,
 * br) and cut off at the caller's byte limit, counted both as sent and as decompressed, so a
 * small compressed bomb cannot grow past it. One signal bounds the whole fetch, redirects and
 * body included. Requests carry a browser-like User-Agent and nothing of ours: no cookie, no
 * token, no Referer.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { HttpError } from '../../errors.js';
import type { ImportAllowList } from '../../lib/allow-hosts.js';
import { agentFor, asBlocked } from './destination.js';
import { tooManyRedirects, upstreamFailed, UpstreamStatus } from './errors.js';

export const MAX_REDIRECTS = 5;

/** A current desktop browser's: some sites answer 403 to anything that looks like a bot. */
export const BROWSER_USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

/** A longer `Retry-After` than this is taken as this: the politeness caps every pause it keeps. */
const RETRY_AFTER_MAX_MS = 24 * 60 * 60 * 1000;

export interface FetchOptions {
  allow: ImportAllowList;
  /** What the `Accept` header asks for. */
  accept: string;
  /** Called with the lower-case media type (no parameters); throws to refuse the body unread. */
  checkType: (mediaType: string) => void;
  /** The body's limit in bytes, compressed and decompressed alike. */
  maxBytes: number;
  /** The error for a body over `maxBytes`. */
  tooLarge: () => Error;
  /** Aborts the whole fetch (the caller's deadline). */
  signal: AbortSignal;
  /** The `User-Agent`; a browser's unless given (sources are fetched naming Storyshelf). */
  userAgent?: string;
}

export interface Fetched {
  /** The URL of the last hop, the one that answered. */
  url: URL;
  body: Buffer;
  /** Lower-case media type, e.g. `text/html`. */
  mediaType: string;
  /** The `charset` parameter of the Content-Type, if any. */
  charset: string | undefined;
}

/** Only http and https are ever fetched. */
export function isHttpUrl(url: URL): boolean {
  return url.protocol === 'http:' || url.protocol === 'https:';
}

function requestOnce(url: URL, options: FetchOptions): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'GET',
      agent: agentFor(url, options.allow),
      signal: options.signal,
      headers: {
        'User-Agent': options.userAgent ?? BROWSER_USER_AGENT,
        Accept: options.accept,
        'Accept-Language': 'en-US,en;q=0.8,*;q=0.5',
        'Accept-Encoding': 'gzip, deflate, br',
      },
    });
    request.once('response', resolve);
    request.once('error', (error) => reject(asBlocked(error, url)));
    request.end();
  });
}

function parseContentType(header: string | undefined): { mediaType: string; charset: string | undefined } {
  const [type = '', ...parameters] = (header ?? '').split(';');
  let charset: string | undefined;
  for (const parameter of parameters) {
    const [name, value] = parameter.split('=');
    if (name?.trim().toLowerCase() === 'charset' && value !== undefined) charset = value.trim().replace(/^"|"$/g, '');
  }
  return { mediaType: type.trim().toLowerCase(), charset };
}

function decoderFor(encoding: string | undefined): Transform | undefined {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}

/** Passes chunks on until more than `maxBytes` went through, then fails with `tooLarge()`. */
function byteLimit(maxBytes: number, tooLarge: () => Error): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > maxBytes) done(tooLarge());
      else done(null, chunk);
    },
  });
}

async function readBody(response: IncomingMessage, options: FetchOptions): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    response.destroy();
    throw options.tooLarge();
  }
  const chunks: Buffer[] = [];
  const stages: Array<Readable | Transform> = [response, byteLimit(options.maxBytes, options.tooLarge)];
  const decoder = decoderFor(response.headers['content-encoding']);
  if (decoder !== undefined) stages.push(decoder, byteLimit(options.maxBytes, options.tooLarge));
  const collect = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  try {
    await pipeline([...stages, collect]);
  } catch (error) {
    if (error instanceof HttpError || options.signal.aborted) throw error;
    throw upstreamFailed(`sent a body that could not be read (${(error as Error).message})`);
  }
  return Buffer.concat(chunks);
}

/** `Retry-After` (seconds, or an HTTP date) in milliseconds from now; undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d{1,10}$/.test(value)) return Math.min(Number(value) * 1000, RETRY_AFTER_MAX_MS);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - now), RETRY_AFTER_MAX_MS);
}

/**
 * GETs `start`, following redirects, and returns the final URL, the body and its type. Throws
 * the import's errors: 403 (a hop to a refused address, before connecting), 502 (an error
 * status, as {@link UpstreamStatus}; too many redirects, a redirect to another scheme, a connection failure), what
 * `checkType` and `tooLarge` throw, and the signal's abort error.
 */
export async function fetchResource(start: URL, options: FetchOptions): Promise<Fetched> {
  let url = start;
  for (let hop = 0; ; hop += 1) {
    let response: IncomingMessage;
    try {
      response = await requestOnce(url, options);
    } catch (error) {
      if (error instanceof HttpError || options.signal.aborted) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      throw upstreamFailed(`could not be reached (${code ?? (error as Error).message})`);
    }
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location !== undefined) {
      response.destroy();
      if (hop >= MAX_REDIRECTS) throw tooManyRedirects(MAX_REDIRECTS);
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw upstreamFailed('redirected to an invalid address');
      }
      if (!isHttpUrl(next)) throw upstreamFailed('redirected to an address that is not http or https');
      url = next;
      continue;
    }
    if (status < 200 || status >= 300) {
      response.destroy();
      throw new UpstreamStatus(status, retryAfterMs(response.headers['retry-after']));
    }
    const { mediaType, charset } = parseContentType(response.headers['content-type']);
    try {
      options.checkType(mediaType);
    } catch (error) {
      response.destroy();
      throw error;
    }
    const body = await readBody(response, options);
    return { url, body, mediaType, charset };
  }
}
