/**
 * The one place that talks to Typesense (docs/architecture.md, "Ten habits", 9): a small gateway
 * over the official `typesense` client, which brings multi-node support (a comma-separated
 * TYPESENSE_URL becomes its `nodes`, tried in turn, with per-node health tracking and retries).
 * Everything the search module needs from Typesense is a method here, with failures sorted into two
 * kinds:
 *
 * - {@link isUnavailable}: Typesense did not answer usefully (network error, timeout, 5xx, a
 *   rejected API key). Nothing is wrong with the request; try again later, elsewhere.
 * - anything else (a 4xx, a failed import line): Typesense refused this request or document.
 */
import http from 'node:http';
import https from 'node:https';
import type { FastifyBaseLogger } from 'fastify';
import { Client, Errors } from 'typesense';
import type { CollectionCreateSchema, ConfigurationOptions } from 'typesense';
import type { TypesenseConfig } from '../../config.js';

export interface HighlightV1 {
  field: string;
  snippet?: string;
  /** The whole field, tagged, for fields in `highlight_full_fields`. */
  value?: string;
  snippets?: string[];
  indices?: number[];
  matched_tokens?: string[] | string[][];
}

export interface TypesenseHit<T> {
  document: T;
  highlights?: HighlightV1[];
  text_match?: number;
}

/** One field's facet values, most documents first. */
export interface FacetCount {
  field_name: string;
  counts: { count: number; value: string }[];
}

export interface TypesenseSearchResult<T> {
  found: number;
  page: number;
  hits?: TypesenseHit<T>[];
  facet_counts?: FacetCount[];
}

export type SearchParameters = Record<string, string | number | boolean>;

/** One line of an import's answer, in the order of the documents sent. */
export interface ImportLineResult {
  success: boolean;
  error?: string;
}

export interface GatewayOptions {
  /** Budget of a search, a health check or a collection call (the client's own timeout). */
  requestTimeoutMs?: number;
  /** Budget of one import; Typesense applies writes in order, so a long one is fine. */
  importTimeoutMs?: number;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 2000;
const DEFAULT_IMPORT_TIMEOUT_MS = 120_000;

/**
 * A network failure, a timeout or abort, a 5xx, or a key Typesense does not accept. Anything else
 * (a 4xx about the request, or a bug of ours such as a TypeError) is not an outage, so it is
 * never hidden behind one.
 */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof Errors.TypesenseError) {
    const status = error.httpStatus;
    if (status === undefined) return !(error instanceof Errors.ImportError);
    return status >= 500 || status === 401 || status === 403 || status === 408 || status === 429;
  }
  if (typeof error !== 'object' || error === null) return false;
  const { isAxiosError, code, message } = error as { isAxiosError?: unknown; code?: unknown; message?: unknown };
  return isAxiosError === true || (typeof code === 'string' && /^E[A-Z]+$/.test(code)) || message === 'Request aborted by caller.';
}

/** The HTTP status of a Typesense answer, when there was one. */
export function httpStatusOf(error: unknown): number | undefined {
  return error instanceof Errors.TypesenseError ? error.httpStatus : undefined;
}

/** A short, log- and API-safe description of a failure. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message.replace(/\s+/g, ' ').slice(0, 500);
  return String(error).slice(0, 500);
}

/** Routes the client's own chatter (a warning per retried request) to debug level. */
function clientLogger(log: FastifyBaseLogger): ConfigurationOptions['logger'] {
  const forward = (...parts: unknown[]) => log.debug({ typesenseClient: parts.map(String).join(' ') }, 'typesense client');
  const noop = () => undefined;
  return {
    trace: forward,
    debug: forward,
    info: forward,
    warn: forward,
    error: forward,
    log: forward,
    setLevel: noop,
    setDefaultLevel: noop,
    resetLevel: noop,
    enableAll: noop,
    disableAll: noop,
    getLevel: () => 1,
  } as unknown as ConfigurationOptions['logger'];
}

export class TypesenseGateway {
  private readonly client: Client;
  private readonly httpAgent = new http.Agent({ keepAlive: true });
  private readonly httpsAgent = new https.Agent({ keepAlive: true });
  private readonly importTimeoutMs: number;
  private readonly inFlight = new Set<AbortController>();

  constructor(config: TypesenseConfig, log: FastifyBaseLogger, options: GatewayOptions = {}) {
    this.importTimeoutMs = options.importTimeoutMs ?? DEFAULT_IMPORT_TIMEOUT_MS;
    this.client = new Client({
      nodes: config.urls.map((url) => ({ url: url.replace(/\/+$/, '') })),
      apiKey: config.apiKey,
      connectionTimeoutSeconds: (options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) / 1000,
      retryIntervalSeconds: 0.1,
      // A node that failed is skipped for this long while another answers.
      healthcheckIntervalSeconds: 15,
      httpAgent: this.httpAgent,
      httpsAgent: this.httpsAgent,
      logger: clientLogger(log),
    });
  }

  /** Resolves when a node answers `/health` with `{ok: true}`. */
  async health(): Promise<void> {
    const answer = (await this.client.health.retrieve()) as { ok?: boolean };
    if (answer.ok !== true) throw new Errors.ServerError('Typesense answered /health with ok: false', undefined, 503);
  }

  /**
   * Typesense is usable: a node answers `/health` with ok, and an authenticated call (the alias
   * lookup) is accepted, so a wrong API key shows as a failure here, not as a healthy node.
   */
  async check(alias: string): Promise<void> {
    await this.health();
    await this.aliasTarget(alias);
  }

  /** The collection an alias points to, or undefined when there is no such alias. */
  async aliasTarget(alias: string): Promise<string | undefined> {
    try {
      return (await this.client.aliases(alias).retrieve()).collection_name;
    } catch (error) {
      if (error instanceof Errors.ObjectNotFound) return undefined;
      throw error;
    }
  }

  async upsertAlias(alias: string, collection: string): Promise<void> {
    await this.client.aliases().upsert(alias, { collection_name: collection });
  }

  async createCollection(schema: CollectionCreateSchema): Promise<void> {
    await this.client.collections().create(schema);
  }

  async collectionNames(): Promise<string[]> {
    return [...(await this.collectionFields()).keys()];
  }

  /** Every collection's name and the names of the fields its schema declares. */
  async collectionFields(): Promise<Map<string, string[]>> {
    const collections = await this.client.collections().retrieve();
    return new Map(collections.map((collection) => [collection.name, (collection.fields ?? []).map((field) => field.name)]));
  }

  /** Drops a collection; one that is already gone is fine. */
  async dropCollection(name: string): Promise<void> {
    try {
      await this.client.collections(name).delete();
    } catch (error) {
      if (!(error instanceof Errors.ObjectNotFound)) throw error;
    }
  }

  /**
   * Upserts documents (JSONL, `action=upsert`) and returns Typesense's verdict on each, in order.
   * The request itself answers 200 even when lines failed, so the lines are what count; a
   * missing or unreadable line counts as a failure.
   */
  async importDocuments(collection: string, documents: readonly object[]): Promise<ImportLineResult[]> {
    if (documents.length === 0) return [];
    const body = documents.map((document) => JSON.stringify(document)).join('\n');
    const abort = new AbortController();
    this.inFlight.add(abort);
    const timer = setTimeout(() => abort.abort(), this.importTimeoutMs);
    timer.unref();
    let answer: unknown;
    try {
      answer = await this.client.apiCall.performRequest<unknown>('post', `/collections/${encodeURIComponent(collection)}/documents/import`, {
        queryParameters: { action: 'upsert' },
        bodyParameters: body,
        additionalHeaders: { 'Content-Type': 'text/plain' },
        abortSignal: abort.signal,
        // Imports are not retried on a client timeout (the official client's choice too): the
        // budget is the abort above.
        skipConnectionTimeout: true,
      });
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(abort);
    }
    return parseImportAnswer(answer, documents.length);
  }

  /** Deletes one document: 'deleted', or 'missing' when Typesense did not have it (also fine). */
  async deleteDocument(collection: string, id: string): Promise<'deleted' | 'missing'> {
    try {
      await this.client.collections(collection).documents(id).delete();
      return 'deleted';
    } catch (error) {
      if (error instanceof Errors.ObjectNotFound) return 'missing';
      throw error;
    }
  }

  async search<T>(collection: string, parameters: SearchParameters, timeoutMs: number): Promise<TypesenseSearchResult<T>> {
    const abort = new AbortController();
    this.inFlight.add(abort);
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    timer.unref();
    try {
      const documents = this.client.collections(collection).documents();
      const search = documents.search.bind(documents) as unknown as (
        parameters: SearchParameters,
        options: { abortSignal: AbortSignal },
      ) => Promise<TypesenseSearchResult<T>>;
      return await search(parameters, { abortSignal: abort.signal });
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(abort);
    }
  }

  /** Aborts whatever is in flight and closes the connections. */
  close(): void {
    for (const abort of this.inFlight) abort.abort();
    this.inFlight.clear();
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

/** Reads an import's JSONL answer into one result per document sent. */
export function parseImportAnswer(answer: unknown, expected: number): ImportLineResult[] {
  let lines: unknown[];
  if (typeof answer === 'string') {
    lines = answer
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        try {
          return JSON.parse(line) as unknown;
        } catch {
          return { success: false, error: `unreadable import result line: ${line.slice(0, 200)}` };
        }
      });
  } else if (Array.isArray(answer)) {
    lines = answer;
  } else {
    // A one-line answer sent as application/json arrives already parsed.
    lines = answer === undefined || answer === null ? [] : [answer];
  }
  const results: ImportLineResult[] = [];
  for (let index = 0; index < expected; index += 1) {
    const line = lines[index] as { success?: unknown; error?: unknown } | undefined;
    if (line === undefined) results.push({ success: false, error: 'Typesense sent no result for this document' });
    else if (line.success === true) results.push({ success: true });
    else results.push({ success: false, error: typeof line.error === 'string' ? line.error : 'import failed' });
  }
  return results;
}
