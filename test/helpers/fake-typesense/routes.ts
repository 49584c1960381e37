/**
 * The fake's routes: path -> handler, with Typesense's API-key check and error bodies
 * (`{message}` with the status of its API reference). See ./index.ts for the list.
 */
import type { FakeTypesense, RecordedRequest } from './index.js';
import { search } from './search.js';
import { ApiError, summary } from './store.js';

export interface Answer {
  status: number;
  /** JSON, or a string sent as text/plain (an import's JSONL). */
  body: unknown;
}

function json(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(400, 'Bad JSON.');
  }
}

/** JSONL in, one result line per input line out; 200 whatever the lines say. */
function importDocuments(fake: FakeTypesense, name: string, query: URLSearchParams, body: string): Answer {
  const collection = fake.store.require(name);
  const action = query.get('action') ?? 'create';
  if (action !== 'create' && action !== 'upsert') throw new ApiError(400, `fake-typesense: import action \`${action}\` is not implemented`);
  if (body.trim() === '') throw new ApiError(400, 'The request body was empty.');
  const lines = body.split('\n').filter((line) => line.trim() !== '');
  const results = lines.map((line) => {
    let document: unknown;
    try {
      document = JSON.parse(line);
    } catch {
      return { success: false, error: 'Bad JSON.', document: line };
    }
    const injected = typeof document === 'object' && document !== null ? fake.importFault(document as Record<string, unknown>, collection.name) : undefined;
    if (injected !== undefined) return { success: false, error: injected, document: line };
    try {
      fake.store.put(collection, document, action);
      return { success: true };
    } catch (error) {
      return { success: false, error: error instanceof Error ? error.message : String(error), document: line };
    }
  });
  return { status: 200, body: results.map((result) => JSON.stringify(result)).join('\n') };
}

function dispatch(fake: FakeTypesense, { method, path, query, body }: RecordedRequest): Answer {
  const parts = path.split('/').filter((part) => part !== '').map(decodeURIComponent);
  const store = fake.store;
  const [root, name, sub, id] = parts;

  if (root === 'collections' && name === undefined) {
    if (method === 'GET') return { status: 200, body: [...store.collections.values()].map(summary) };
    if (method === 'POST') return { status: 201, body: summary(store.createCollection(json(body))) };
  }
  if (root === 'collections' && name !== undefined && sub === undefined) {
    if (method === 'GET') return { status: 200, body: summary(store.require(name)) };
    if (method === 'DELETE') return { status: 200, body: summary(store.dropCollection(name)) };
  }
  if (root === 'collections' && name !== undefined && sub === 'documents' && parts.length === 4) {
    if (id === 'import' && method === 'POST') return importDocuments(fake, name, query, body);
    if (id === 'search' && method === 'GET') return { status: 200, body: search(store.require(name), query) };
    const collection = store.require(name);
    const document = collection.documents.get(id as string);
    if (method === 'GET' || method === 'DELETE') {
      if (document === undefined) throw new ApiError(404, `Could not find a document with id: ${id as string}`);
      if (method === 'DELETE') collection.documents.delete(id as string);
      return { status: 200, body: document };
    }
  }
  if (root === 'aliases' && name === undefined && method === 'GET') {
    return { status: 200, body: { aliases: [...store.aliases].map(([alias, target]) => ({ name: alias, collection_name: target })) } };
  }
  if (root === 'aliases' && name !== undefined && parts.length === 2) {
    if (method === 'PUT') return { status: 200, body: store.upsertAlias(name, json(body)) };
    const target = store.aliases.get(name);
    if (target === undefined) throw new ApiError(404, 'Not Found');
    if (method === 'DELETE') store.aliases.delete(name);
    if (method === 'GET' || method === 'DELETE') return { status: 200, body: { name, collection_name: target } };
  }
  throw new ApiError(404, 'Not Found');
}

/** Answers one request (the fake is up). */
export function route(fake: FakeTypesense, request: RecordedRequest, apiKey: string | string[] | undefined): Answer {
  if (request.path === '/health' && request.method === 'GET') return { status: 200, body: { ok: true } };
  if (apiKey !== fake.apiKey) return { status: 401, body: { message: 'Forbidden - a valid `x-typesense-api-key` header must be sent.' } };
  try {
    return dispatch(fake, request);
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, body: { message: error.message } };
    return { status: 500, body: { message: error instanceof Error ? error.message : String(error) } };
  }
}
