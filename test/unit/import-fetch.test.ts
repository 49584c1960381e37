import zlib from 'node:zlib';
import t from 'tap';
import { HttpError } from '../../src/errors.js';
import { parseAllowHosts } from '../../src/lib/allow-hosts.js';
import { fetchResource, type FetchOptions } from '../../src/import/url/fetch.js';
import { fixtureSite, serve } from '../helpers/fixture-site.js';

const LIMIT = 64 * 1024;
const allow = parseAllowHosts('127.0.0.1').allow;

function options(signal: AbortSignal = AbortSignal.timeout(10_000)): FetchOptions {
  return {
    allow,
    accept: 'text/html',
    checkType: () => undefined,
    maxBytes: LIMIT,
    tooLarge: () => new HttpError(422, 'too large'),
    signal,
  };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(() => undefined, (error: unknown) => error);
}

t.test('bodies are decompressed (gzip, deflate, br) and counted after decompression', async (t) => {
  const text = 'x'.repeat(1000);
  const bomb = zlib.gzipSync(Buffer.alloc(LIMIT * 20));
  const site = await fixtureSite(t, {
    '/gzip': serve(zlib.gzipSync(text), 'text/html', { 'Content-Encoding': 'gzip' }),
    '/deflate': serve(zlib.deflateSync(text), 'text/html', { 'Content-Encoding': 'deflate' }),
    '/br': serve(zlib.brotliCompressSync(text), 'text/html', { 'Content-Encoding': 'br' }),
    '/bomb': serve(bomb, 'text/html', { 'Content-Encoding': 'gzip' }),
    '/declared': serve(Buffer.alloc(LIMIT + 1), 'text/html'),
    '/exact': serve(Buffer.alloc(LIMIT), 'text/html'),
  });
  for (const encoding of ['gzip', 'deflate', 'br']) {
    const fetched = await fetchResource(new URL(`${site.origin}/${encoding}`), options());
    t.equal(fetched.body.toString(), text, encoding);
  }
  t.ok(bomb.length < LIMIT, `the bomb is small when compressed (${bomb.length} bytes)`);
  t.equal(((await failure(fetchResource(new URL(`${site.origin}/bomb`), options()))) as HttpError).statusCode, 422, 'and stopped at the limit once inflated');
  t.equal(((await failure(fetchResource(new URL(`${site.origin}/declared`), options()))) as HttpError).statusCode, 422, 'a declared length over the limit');
  t.equal((await fetchResource(new URL(`${site.origin}/exact`), options())).body.length, LIMIT, 'exactly the limit is fine');
});

t.test('the signal bounds the whole fetch: a page that never ends is aborted', async (t) => {
  const site = await fixtureSite(t, {
    '/slow': (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html' });
      response.write('<p>');
    },
  });
  const started = Date.now();
  const error = await failure(fetchResource(new URL(`${site.origin}/slow`), options(AbortSignal.timeout(300))));
  t.ok(error instanceof Error && !(error instanceof HttpError), 'the abort error, for the caller to map to 504');
  t.ok(Date.now() - started < 5_000, 'promptly');
});

t.test('headers sent carry no cookie, token or referer, and look like a browser', async (t) => {
  let headers: Record<string, unknown> = {};
  const site = await fixtureSite(t, {
    '/h': (request, response) => {
      headers = request.headers;
      response.writeHead(200, { 'Content-Type': 'text/html' }).end('ok');
    },
  });
  await fetchResource(new URL(`${site.origin}/h`), options());
  t.match(headers['user-agent'], /^Mozilla\/5\.0/);
  t.equal(headers.cookie, undefined);
  t.equal(headers.authorization, undefined);
  t.equal(headers.referer, undefined);
  t.equal(headers['accept-encoding'], 'gzip, deflate, br');
});
