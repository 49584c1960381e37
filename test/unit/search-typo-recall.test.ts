/**
 * Recall of the embedded engine's typo correction (docs/decisions.md, "Typo tolerance"): in a
 * small generated library, 200 one-edit misspellings of its words (each kind of edit in turn)
 * must find the story holding the word at least 95 % of the time. The words are random letters,
 * so most misspellings have exactly one neighbour; the bound leaves room for the few that sit
 * one edit from two words.
 */
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import type { EmbeddedSearchEngine } from '../../src/search/embedded/engine.js';
import { storySearchRequest } from '../../src/search/service.js';
import { editsOne, withinOneEdit } from '../../src/search/text/typos.js';

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

function misspell(word: string, kind: number, random: () => number): string {
  const letters = [...word];
  const at = Math.floor(random() * (letters.length - 1));
  const other = () => LETTERS[Math.floor(random() * 26)] as string;
  if (kind === 0) letters.splice(at, 1);
  else if (kind === 1) letters.splice(at, 0, other());
  else if (kind === 2) letters[at] = other();
  else [letters[at], letters[at + 1]] = [letters[at + 1] as string, letters[at] as string];
  return letters.join('');
}

t.test('one-edit checks agree with the edit generator', async (t) => {
  const edits = editsOne('lighthouse');
  t.ok(edits.has('lighthuose'), 'transposition');
  t.ok(edits.has('lighthose') && edits.has('lighthousse') && edits.has('lightxouse'), 'deletion, insertion, substitution');
  t.notOk(edits.has('lighthouse'), 'not the word itself');
  t.ok(editsOne('naïve').has('naïv') && editsOne('naïve').has('naïïve'), 'letters of the word join the alphabet');
  for (const edit of [...edits].slice(0, 200)) t.ok(withinOneEdit(edit, 'lighthouse'), `${edit} is within one edit`);
  t.notOk(withinOneEdit('lighthouse', 'lihgthuose'), 'two swaps are two edits');
  t.notOk(withinOneEdit('dollar', 'collars'), 'a change and an addition are two');
  t.ok(withinOneEdit('ab', 'ba'));
});

t.test('at least 95 % of 200 one-edit misspellings find their story', async (t) => {
  const ctx = await buildTestApp(t);
  const random = prng(20261124);
  const vocabulary = new Set<string>();
  while (vocabulary.size < 400) {
    const length = 5 + Math.floor(random() * 5);
    vocabulary.add(Array.from({ length }, () => LETTERS[Math.floor(random() * 26)]).join(''));
  }
  const words = [...vocabulary];
  const stories: { id: string; words: string[] }[] = [];
  for (let i = 0; i < 40; i += 1) {
    const chosen = Array.from({ length: 30 }, () => words[Math.floor(random() * words.length)] as string);
    const created = await createStory(ctx, { title: `Story ${i}`, contentHtml: `<p>${chosen.join(' ')}</p>` });
    stories.push({ id: created.id, words: chosen });
  }
  const engine = ctx.app.searchEngine as EmbeddedSearchEngine;
  await engine.refreshTerms();

  let tried = 0;
  let found = 0;
  const misses: string[] = [];
  while (tried < 200) {
    const story = stories[Math.floor(random() * stories.length)] as (typeof stories)[number];
    const word = story.words[Math.floor(random() * story.words.length)] as string;
    const typo = misspell(word, tried % 4, random);
    if (typo === word || vocabulary.has(typo)) continue;
    tried += 1;
    const page = await engine.searchStories(storySearchRequest({ query: typo, size: 100 }));
    if (page.results.some((hit) => hit.id === story.id)) found += 1;
    else misses.push(`${typo} (${word})`);
  }
  t.ok(found / tried >= 0.95, `recall ${found} of ${tried}; missed: ${misses.join(', ')}`);
});
