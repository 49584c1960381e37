/**
 * Typo tolerance on the embedded engine (docs/decisions.md, "Typo tolerance"). Only when the exact
 * query found nothing: each unquoted single-word piece of at least four letters whose word matches
 * nothing on its own is widened to `("word" OR "c1" OR ... "c5")`, the candidates being the words
 * of `search_terms` one edit away, the most used first. Every one-edit variant of the word (~460
 * for eight letters) is looked up by primary key in one statement: 1.6 ms median per word on a
 * 1 M-term vocabulary, where scanning the FTS vocabulary per word cost up to 145 ms.
 */
import type Database from 'better-sqlite3';
import { defineStatements } from '../../db/statements.js';
import { matchWithAlternatives, type ParsedQuery, type QueryPiece } from '../text/query.js';
import { correctable, editsOne } from '../text/typos.js';

/** Candidates kept per word: each one more doclist for FTS5 to merge. */
export const MAX_CANDIDATES = 5;

const statementsFor = defineStatements((client: Database.Database) => ({
  candidates: client.prepare<[string, number], { term: string; docs: number }>(
    `SELECT term, docs FROM search_terms WHERE term IN (SELECT value FROM json_each(?)) ORDER BY docs DESC, term LIMIT ?`,
  ),
  anyMatch: client.prepare<[string]>('SELECT 1 FROM stories_fts WHERE stories_fts MATCH ? LIMIT 1').pluck(),
}));

/**
 * The words of the library one edit away from `word`, most documents first (then A to Z), at
 * most `limit`. The letters of the whole query join a–z as edit letters.
 */
export function correctionCandidates(client: Database.Database, word: string, queryLetters = '', limit = MAX_CANDIDATES): string[] {
  const edits = editsOne(word, queryLetters);
  return statementsFor(client)
    .candidates.all(JSON.stringify([...edits]), limit)
    .map((row) => row.term);
}

/** A query widened by typo corrections: the MATCH expression, the words to highlight and the text shown. */
export interface CorrectedQuery {
  parsed: ParsedQuery;
  /** The text with each corrected word replaced by its best candidate. */
  correctedQuery: string;
}

/** A piece the corrector may widen: one word, unquoted, long enough. */
function correctablePiece(piece: QueryPiece): string | undefined {
  if (piece.quoted || piece.words.length !== 1) return undefined;
  const word = piece.words[0] as string;
  return correctable(word) ? word : undefined;
}

/**
 * The query with its unmatched words widened to their candidates (see the file comment), or
 * undefined when no word could be corrected (then the empty answer stands).
 */
export function correctQuery(client: Database.Database, parsed: ParsedQuery): CorrectedQuery | undefined {
  if (parsed.match === null) return undefined;
  const s = statementsFor(client);
  const queryLetters = parsed.words.join('');
  const alternatives: (string[] | undefined)[] = [];
  let corrected = false;
  for (const piece of parsed.pieces) {
    const word = correctablePiece(piece);
    // A word that matches on its own is not the problem (the combination is): it stays as it is.
    const matchesAlone = word === undefined || s.anyMatch.get(`"${word}"${piece.prefix ? '*' : ''}`) !== undefined;
    const candidates = matchesAlone ? [] : correctionCandidates(client, word, queryLetters);
    alternatives.push(candidates.length > 0 ? candidates : undefined);
    corrected ||= candidates.length > 0;
  }
  if (!corrected) return undefined;
  const extra = alternatives.flatMap((words) => words ?? []);
  return {
    parsed: {
      ...parsed,
      match: matchWithAlternatives(parsed.pieces, alternatives),
      // The original words stay last, so the last word is still the prefix one for snippets.
      words: [...extra, ...parsed.words],
    },
    correctedQuery: parsed.pieces.map((piece, index) => alternatives[index]?.[0] ?? piece.text).join(' '),
  };
}
