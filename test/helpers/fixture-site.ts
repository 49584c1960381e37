import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

export type FixtureHandler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

export interface FixtureSite {
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Every request path the site received, in order: SSRF tests assert it stays empty. */
  received: string[];
}

/**
 * A local web site for import tests (no internet): serves `routes` by exact path (404 otherwise)
 * on every local address (`::`, so `127.0.0.1`, `127.1`, `[::1]` and `localhost` all reach it),
 * records each request path, and closes when the test ends.
 */
export async function fixtureSite(t: Test, routes: Record<string, FixtureHandler>): Promise<FixtureSite> {
  const received: string[] = [];
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] as string;
    received.push(path);
    const handler = routes[path];
    if (handler === undefined) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not here');
      return;
    }
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.unref();
  const port = (server.address() as AddressInfo).port;
  return { port, origin: `http://127.0.0.1:${port}`, received };
}

/** A handler answering `body` with `contentType` (and any extra headers). */
export function serve(body: string | Buffer, contentType = 'text/html; charset=utf-8', headers: Record<string, string> = {}): FixtureHandler {
  return (_request, response) => {
    response.writeHead(200, { 'Content-Type': contentType, ...headers }).end(body);
  };
}

/** A handler redirecting to `location` with `status`. */
export function redirect(location: string, status = 302): FixtureHandler {
  return (_request, response) => {
    response.writeHead(status, { Location: location }).end();
  };
}

/** Paragraphs enough for Readability to see an article (it wants 500+ characters of prose). */
export function storyParagraphs(words: string[], count = 8): string {
  const paragraphs: string[] = [];
  for (let n = 0; n < count; n += 1) {
    paragraphs.push(`<p>${words.join(' ')}, and then ${words.slice().reverse().join(' ')}, again and again, paragraph ${n + 1}.</p>`);
  }
  return paragraphs.join('\n');
}

/** `text` in windows-1251 (ASCII and the Russian alphabet only: enough for a fixture). */
export function windows1251(text: string): Buffer {
  const bytes: number[] = [];
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (code < 0x80) bytes.push(code);
    else if (code >= 0x410 && code <= 0x44f) bytes.push(code - 0x410 + 0xc0);
    else if (code === 0x401) bytes.push(0xa8);
    else if (code === 0x451) bytes.push(0xb8);
    else throw new Error(`no windows-1251 byte for ${char}`);
  }
  return Buffer.from(bytes);
}
