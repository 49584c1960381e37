import t from 'tap';
import { buildSnippet, MAX_HITS } from '../../src/search/embedded/snippet.js';
import { SCAN_CHARS, wordEndAfter, wordStartBefore } from '../../src/search/text/excerpt.js';
import { highlightTags, snippetFromHighlights } from '../../src/search/typesense/snippet.js';

/** The rendered snippet's visible text: tags removed, entities kept as one character each. */
const visible = (snippet: string) => snippet.replace(/<\/?mark>/g, '').replace(/&[a-z#0-9]+;/g, '_');
const body = (contentPlain: string) => ({ title: 'Title', summary: null, description: null, contentPlain });

/** The longest excerpt the rules produce: lead, stretch and a word at either end (both engines). */
const LONGEST_EXCERPT = 300 + 2;

t.test('a match longer than the excerpt is cut, not a crash', async (t) => {
  const long = 'x'.repeat(5000);
  for (const [text, words, prefix] of [
    [long, ['x'.repeat(200)], true],
    [`before ${long} after`, ['xxx'], true],
    // A whole query word is at most 200 code points; with a mark on each letter it is 400 long.
    [`before ${'x\u0301'.repeat(200)} after`, ['x'.repeat(200)], false],
    [`${'y'.repeat(151)} and more`, ['y'.repeat(151)], false],
  ] as const) {
    const snippet = buildSnippet(body(text), { words, prefix });
    t.match(snippet, /<mark>x+|<mark>y+/, `${text.length} characters, query ${words[0]?.length}: marked`);
    t.ok(visible(snippet).length <= LONGEST_EXCERPT, `the excerpt stays short (${visible(snippet).length})`);
  }
});

t.test('a text is searched only within its first SCAN_CHARS characters', async (t) => {
  const filler = 'plain words here '.repeat(Math.ceil(SCAN_CHARS / 17));
  const near = buildSnippet(body(`${filler.slice(0, SCAN_CHARS - 100)} needle ${filler}`), { words: ['needle'], prefix: false });
  t.match(near, '<mark>needle</mark>', 'a match inside the window is found');
  const far = buildSnippet(body(`${filler.slice(0, SCAN_CHARS + 10)} needle ${filler}`), { words: ['needle'], prefix: false });
  t.notMatch(far, '<mark>', 'a match past the window is not looked for: the opening is the snippet');
  t.match(far, /^plain words here/);
  const straddling = buildSnippet(body(`${'a '.repeat(SCAN_CHARS / 2 - 2)}needlework more`), { words: ['needle'], prefix: false });
  t.notMatch(straddling, '<mark>', 'a word cut by the window is not taken for a whole-word match');
});

t.test(`at most MAX_HITS matches are looked at per text`, async (t) => {
  const repeated = 'fox '.repeat(MAX_HITS + 10);
  t.ok(repeated.length < SCAN_CHARS, 'the test text fits the character window');
  const past = buildSnippet(body(`${repeated}tale`), { words: ['fox', 'tale'], prefix: false });
  t.notMatch(past, '<mark>tale</mark>', 'the word after MAX_HITS matches is not reached');
  const within = buildSnippet(body(`${'fox '.repeat(MAX_HITS - 10)}tale`), { words: ['fox', 'tale'], prefix: false });
  t.match(within, '<mark>fox</mark> <mark>tale</mark>', 'within MAX_HITS, the stretch holding both words wins');
});

t.test('word boundaries are looked for only a few characters away', async (t) => {
  const word = 'z'.repeat(1_000_000);
  t.ok(500_000 - wordStartBefore(word, 500_000) <= 50);
  t.ok(wordEndAfter(word, 500_000) - 500_000 <= 50);
  t.equal(wordStartBefore('one two', 6), 4, 'a short word is kept whole');
  t.equal(wordEndAfter('one two', 5), 7);
  const emoji = '😀'.repeat(100);
  t.equal(wordStartBefore(emoji, 101) % 2, 0, 'never between the halves of a surrogate pair');
  t.equal(wordEndAfter(emoji, 1) % 2, 0);
});

t.test('a Typesense highlight with a very long match is cut like the embedded one', async (t) => {
  const tags = highlightTags('token');
  const long = 'x'.repeat(5000);
  const value = `before ${tags.start}${long}${tags.end} after`;
  const snippet = snippetFromHighlights({ title: 'T', summary: `before ${long} after` }, [{ field: 'summary', value, matched_tokens: [long] }], tags);
  t.match(snippet, /^<mark>x+<\/mark>…$|^before <mark>x+<\/mark>…$|^…<mark>x+<\/mark>…$/);
  t.ok(visible(snippet).length <= LONGEST_EXCERPT, `the excerpt stays short (${visible(snippet).length})`);
});
