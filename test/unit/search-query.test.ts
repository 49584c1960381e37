import Database from 'better-sqlite3';
import t from 'tap';
import { MAX_QUERY_PIECES, parseQuery } from '../../src/search/text/query.js';
import { buildSnippet } from '../../src/search/embedded/snippet.js';
import { escapeHtml } from '../../src/search/text/excerpt.js';
import { foldSuggestion, suggestionKeys, SUGGESTION_KEY_MAX } from '../../src/search/embedded/suggestions.js';
import { foldedWords, foldWord } from '../../src/search/text/words.js';
import { HOSTILE_QUERIES } from '../fixtures/hostile-queries.js';

t.test('fold words like unicode61 remove_diacritics 2', async (t) => {
  t.equal(foldWord('Café'), 'cafe');
  t.equal(foldWord('CAFÉ'), 'cafe');
  t.equal(foldWord('Cafe\u0301'), 'cafe', 'decomposed accents too');
  t.equal(foldWord('İstanbul'), 'istanbul');
  t.equal(foldWord('Ærø'), 'ærø', 'letters that are not base + accent stay');
  t.equal(foldWord('Йод'), 'йод', 'Cyrillic letters keep their marks, like FTS5');
  t.same(foldedWords('Hello, wörld! e-mail_x'), ['hello', 'world', 'e', 'mail', 'x']);
});

t.test('queries become AND-ed FTS5 strings; the last word is a prefix from 3 characters', async (t) => {
  t.same(parseQuery('*'), { matchAll: true, match: null, words: [], prefix: false, pieces: [] });
  t.same(parseQuery('   '), { matchAll: true, match: null, words: [], prefix: false, pieces: [] });
  t.same(parseQuery(' * '), { matchAll: true, match: null, words: [], prefix: false, pieces: [] });
  t.equal(parseQuery('dragon').match, '"dragon"*');
  t.equal(parseQuery('Red DRAGON').match, '"Red" AND "DRAGON"*');
  t.same(parseQuery('Red DRAGON').words, ['red', 'dragon']);
  t.equal(parseQuery('dragon ox').match, '"dragon" AND "ox"', 'a short last word is not a prefix');
  t.equal(parseQuery('"dragon" OR (cafe)').match, '"""dragon""" AND "OR" AND "(cafe)"*', 'operators stay inside strings');
  t.equal(parseQuery('e-mail').match, '"e-mail"*', 'a piece stays one phrase');
  t.same(parseQuery('e-mail').words, ['e', 'mail']);
  t.same(parseQuery('"(*)" - :'), { matchAll: false, match: null, words: [], prefix: false, pieces: [] }, 'no searchable word: nothing matches');
  t.equal(parseQuery('a\u0000b').match, '"a" AND "b"', 'NUL separates');
  const long = parseQuery(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '));
  t.equal(long.words.length, MAX_QUERY_PIECES);
});

t.test('every hostile query is valid FTS5 (or no query at all)', async (t) => {
  const db = new Database(':memory:');
  t.teardown(() => db.close());
  db.exec(`CREATE VIRTUAL TABLE f USING fts5(title, body, content='', contentless_delete=1, prefix='3',
    tokenize='unicode61 remove_diacritics 2')`);
  db.prepare('INSERT INTO f (rowid, title, body) VALUES (1, ?, ?)').run('The Dragon', 'e-mail from the café');
  const search = db.prepare('SELECT rowid FROM f WHERE f MATCH ?').pluck();
  for (const text of HOSTILE_QUERIES) {
    const { match } = parseQuery(text);
    if (match === null) continue;
    t.doesNotThrow(() => search.all(match), JSON.stringify(text.slice(0, 40)));
  }
  t.same(search.all(parseQuery('cafe').match), [1]);
  t.same(search.all(parseQuery('E-MAIL').match), [1]);
  t.same(search.all(parseQuery('drag').match), [1]);
  t.same(search.all(parseQuery('mail from').match), [1]);
  t.same(search.all(parseQuery('from mail').match), [1], 'pieces are AND-ed, in any order');
  t.same(search.all(parseQuery('from-mail').match), [], 'a piece is a phrase');
  t.same(search.all(parseQuery('dragon -cafe').match), [1], '"-" is not negation');
});

t.test('snippets escape everything and mark the matched words', async (t) => {
  const terms = parseQuery('script cafe');
  const snippet = buildSnippet(
    { title: 'T', summary: null, description: null, contentPlain: 'Before. A <script>alert("x")</script> in the Café & more.' },
    terms,
  );
  t.equal(snippet, 'Before. A &lt;<mark>script</mark>&gt;alert(&quot;x&quot;)&lt;/<mark>script</mark>&gt; in the <mark>Café</mark> &amp; more.');
  t.notMatch(snippet, /<(?!\/?mark>)/, 'no tag but <mark>');

  const prefix = buildSnippet({ title: 'T', summary: null, description: null, contentPlain: 'dragons and drakes' }, parseQuery('drag'));
  t.equal(prefix, '<mark>dragons</mark> and drakes', 'the last word matches as a prefix');

  const words = Array.from({ length: 200 }, (_, i) => `w${i}`);
  words[120] = 'needle';
  const long = buildSnippet({ title: 'T', summary: null, description: null, contentPlain: words.join(' ') }, parseQuery('needle'));
  t.match(long, /^…w11\d( w1\d\d)* <mark>needle<\/mark> w121( w1\d\d)* w1\d\d…$/, 'a stretch around the match, cut at words, with ellipses');
  t.ok(long.length <= 220, 'short');

  const folded = buildSnippet(
    { title: 'T', summary: 'Cafe\u0301 CAFÉS café-au-lait İstanbul scripts', description: null, contentPlain: null },
    parseQuery('script istanbul cafe'),
  );
  t.equal(
    folded,
    '<mark>Cafe\u0301</mark> <mark>CAFÉS</mark> <mark>café</mark>-au-lait <mark>İstanbul</mark> scripts',
    'decomposed, upper-case and accented forms; only the last word is a prefix',
  );

  const best = buildSnippet(
    { title: 'T', summary: null, description: null, contentPlain: `alpha ${'filler '.repeat(80)}alpha beta ${'filler '.repeat(80)}` },
    parseQuery('alpha beta'),
  );
  t.match(best, /<mark>alpha<\/mark> <mark>beta<\/mark>/, 'the window holding the most query words wins');

  const onlyTitle = buildSnippet({ title: 'The Dragon', summary: 'A tale', description: null, contentPlain: 'Nothing here' }, parseQuery('dragon'));
  t.equal(onlyTitle, 'The <mark>Dragon</mark>');

  const namesOnly = buildSnippet({ title: 'T', summary: 'A <tale>', description: null, contentPlain: null }, parseQuery('tolkien'));
  t.equal(namesOnly, 'A &lt;tale&gt;', 'matched on a name: the opening of the summary, escaped');

  t.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
});

t.test('suggestion keys: every prefix of every word, first word ranked first', async (t) => {
  const folded = foldSuggestion('The Café Dragon');
  t.equal(folded, 'the cafe dragon');
  const keys = suggestionKeys(folded);
  t.same([...keys.keys()], ['t', 'th', 'the', 'c', 'ca', 'caf', 'cafe', 'd', 'dr', 'dra', 'drag', 'drago', 'dragon']);
  t.ok((keys.get('the') as number) < (keys.get('cafe') as number), 'first-word keys rank before later words');
  const long = suggestionKeys('supercalifragilistic');
  t.equal(Math.max(...[...long.keys()].map((key) => key.length)), SUGGESTION_KEY_MAX);
  t.equal(suggestionKeys('').size, 0);
});
