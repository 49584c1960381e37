/**
 * The embedded engine's read operations, as one table of plain functions over a connection:
 * the unit of work both ways of running a search execute (docs/decisions.md, "Search worker
 * pool"). In process, the engine calls them on the main connection; with the pool, a worker
 * thread calls the same functions on its own read-only connection (./search-worker.ts), and the
 * result comes back by structured clone. So a change inside the engine (its plans, its result
 * fields) works both ways unchanged, as long as requests and results stay plain data; a new read
 * operation is one more entry here.
 */
import type { Db } from '../../db/open.js';
import { sqliteClient } from '../../db/statements.js';
import type { AuthorSearchRequest, StorySearchRequest } from '../engine.js';
import { findAuthors } from './authors.js';
import { findStories } from './stories.js';
import { suggest } from './suggestions.js';
import { readVocabChunk } from './terms.js';

export function embeddedReads(db: Db) {
  return {
    searchStories: (request: StorySearchRequest) => findStories(db, request),
    searchAuthors: (request: AuthorSearchRequest) => findAuthors(db, request),
    suggest: (text: string, limit: number) => suggest(sqliteClient(db), text, limit),
    vocabChunk: (after: string, size: number) => readVocabChunk(db, after, size),
  };
}

export type EmbeddedReads = ReturnType<typeof embeddedReads>;
