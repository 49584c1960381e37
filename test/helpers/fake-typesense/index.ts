/**
 * A Typesense test server: a node:http server speaking the subset of Typesense's HTTP API that
 * Storyshelf uses, following the Typesense v28.0 API reference (typesense.org/docs/28.0/api:
 * collections, collection-alias, documents, search, and the API error table: 400 bad request,
 * 401 wrong key, 404 not found, 409 already exists, 422 unprocessable, 503 not ready). No real
 * Typesense can be installed here, so this is what the tests run against.
 *
 * Implemented:
 * - `X-TYPESENSE-API-KEY` on every call but `/health` (401 `{message}` when wrong or missing);
 * - `GET /health` (`{ok: true}`, or 503 `{ok: false}` while "unavailable");
 * - collections: `POST /collections` (schema validation, 201; 409 when the name exists),
 *   `GET /collections`, `GET` and `DELETE /collections/:name`;
 * - aliases: `PUT`, `GET`, `DELETE /aliases/:name`, `GET /aliases`; an alias name works
 *   wherever a collection name does;
 * - `POST /collections/:c/documents/import?action=create|upsert`: JSONL in, one JSON line out per
 *   input line (`{"success":true}` or `{"success":false,"error":...,"document":...}`), 200 even
 *   when lines failed, documents checked against the schema (required fields, types);
 * - `GET` and `DELETE /collections/:c/documents/:id` (404 when missing);
 * - `GET /collections/:c/documents/search` as described in ./search.ts and ./filter.ts.
 *
 * Left out: multi_search, facet counts and facet_query, group_by, typo tolerance and token
 * dropping (the fake always behaves as `num_typos=0`, `drop_tokens_threshold=0`), stemming,
 * synonyms, overrides, infix, vector and geo search, nested fields, `||` and parentheses in
 * `filter_by`, the v2 `highlight` object (sent empty), real ranking (`text_match` is a simple
 * score), `update`/`emplace` imports, export, update-by-filter, API keys management, and
 * clustering (run one fake per node to test several URLs).
 *
 * Faults for the tests: {@link FakeTypesense.down} (connection refused, or 503 for everything),
 * {@link FakeTypesense.slow} (delay answers), {@link FakeTypesense.failImports} (fail chosen
 * import lines).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { route } from './routes.js';
import { Store, type Document } from './store.js';

export type DownMode = 'refused' | 'unavailable';

export interface ImportFault {
  /** Which documents fail (all when absent). */
  when?: (document: Record<string, unknown>, collection: string) => boolean;
  /** How many lines fail before the fault is used up (forever when absent). */
  times?: number;
  error?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
}

export class FakeTypesense {
  readonly apiKey: string;
  readonly store = new Store();
  readonly requests: RecordedRequest[] = [];
  private readonly server: http.Server;
  private readonly sockets = new Set<Socket>();
  private port = 0;
  private mode: 'up' | DownMode = 'up';
  private delay: { ms: number; when: (request: RecordedRequest) => boolean } | undefined;
  private faults: ImportFault[] = [];

  constructor(apiKey = randomBytes(12).toString('hex')) {
    this.apiKey = apiKey;
    this.server = http.createServer((request, response) => void this.handle(request, response));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** Listens on 127.0.0.1 (a free port unless one is given). */
  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Stops for good. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /**
   * Goes away: 'refused' closes the port (and every open connection), 'unavailable' answers
   * every call with 503 as a node that is not ready does.
   */
  async down(mode: DownMode = 'refused'): Promise<void> {
    this.mode = mode;
    if (mode === 'refused') {
      for (const socket of this.sockets) socket.destroy();
      if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
    }
  }

  /** Comes back, on the same port, with its data. */
  async up(): Promise<void> {
    if (this.mode === 'refused') await this.start(this.port);
    this.mode = 'up';
  }

  /** Delays the answers to matching requests (all when `when` is absent); 0 turns it off. */
  slow(ms: number, when: (request: RecordedRequest) => boolean = () => true): void {
    this.delay = ms > 0 ? { ms, when } : undefined;
  }

  /** Fails import lines as described; faults are checked in order. */
  failImports(fault: ImportFault): void {
    this.faults.push({ ...fault });
  }

  clearFaults(): void {
    this.faults = [];
  }

  /** The error for this import line, when a fault applies (and is then used up by one). */
  importFault(document: Record<string, unknown>, collection: string): string | undefined {
    for (const fault of this.faults) {
      if (fault.times !== undefined && fault.times <= 0) continue;
      if (fault.when !== undefined && !fault.when(document, collection)) continue;
      if (fault.times !== undefined) fault.times -= 1;
      return fault.error ?? 'Injected failure';
    }
    return undefined;
  }

  /** The documents of a collection (by name or alias), in insertion order; [] when it is missing. */
  documents(name: string): Document[] {
    return [...(this.store.resolve(name)?.documents.values() ?? [])];
  }

  document(name: string, id: string): Document | undefined {
    return this.store.resolve(name)?.documents.get(id);
  }

  aliasTarget(name: string): string | undefined {
    return this.store.aliases.get(name);
  }

  collectionNames(): string[] {
    return [...this.store.collections.keys()].sort();
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const recorded: RecordedRequest = { method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, body: Buffer.concat(chunks).toString('utf8') };
    this.requests.push(recorded);
    if (this.delay !== undefined && this.delay.when(recorded)) await new Promise((resolve) => setTimeout(resolve, this.delay?.ms ?? 0));
    const answer = this.mode === 'unavailable'
      ? url.pathname === '/health'
        ? { status: 503, body: { ok: false } }
        : { status: 503, body: { message: 'Not Ready or Lagging' } }
      : route(this, recorded, request.headers['x-typesense-api-key']);
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    response.writeHead(answer.status, { 'Content-Type': typeof answer.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8' });
    response.end(text);
  }
}

/** Starts a fake for one test and stops it when the test ends. */
export async function startFakeTypesense(t: { teardown: (fn: () => unknown) => void }): Promise<FakeTypesense> {
  const fake = await new FakeTypesense().start();
  t.teardown(() => fake.stop());
  return fake;
}
