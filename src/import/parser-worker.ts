/**
 * The parser worker thread's entry (started by src/import/parser-client.ts): answers each request
 * with the outcome of src/import/parse.ts, so parsing and sanitizing never block the event loop.
 */
import { parentPort } from 'node:worker_threads';
import { listArchive, parseArchiveEntries, parseFile } from './parse.js';
import type { ParserRequest, ParserResponse } from './parser-client.js';

async function answer(request: ParserRequest): Promise<unknown> {
  switch (request.op) {
    case 'file':
      return parseFile(request.path, request.file);
    case 'list':
      return listArchive(request.path);
    case 'entries':
      return parseArchiveEntries(request.path, request.file, request.entries);
  }
}

parentPort?.on('message', (request: ParserRequest) => {
  answer(request).then(
    (value) => parentPort?.postMessage({ id: request.id, value } satisfies ParserResponse),
    (error: unknown) => parentPort?.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies ParserResponse),
  );
});
