import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';
import { StorySearchResult } from '../../src/schemas/search.js';
import { assertMatches } from '../helpers/schema.js';

const LONG_WORD = 'x'.repeat(5000);

/** Queries a hostile or careless client sends; on a library with content, none may be a 500. */
const PATHOLOGICAL: readonly string[] = [
  LONG_WORD,
  'xxx',
  `${LONG_WORD} ${LONG_WORD}`,
  'x'.repeat(151),
  Array.from({ length: 500 }, (_, i) => `w${i}`).join(' '),
  Array.from({ length: 200 }, () => 'fox').join(' '),
  '!!! ??? ... ,,, ;;; ---',
  '""""',
  '"fox" "',
  '"fox tale"',
  '*',
  '**',
  '*fox',
  'fox*',
  'f*',
  '* fox *',
  'fox\u0000tale',
  '\u0000',
  '😀',
  'fox 😀',
  '😀'.repeat(3000),
  'e\u0301\u0301\u0301',
  '\u0301\u0301\u0301',
  `a${'\u0301'.repeat(2000)}`,
  'caf\u00e9 \u0130stanbul',
];

/** Percent-encodings that are not UTF-8 (a lone surrogate, a stray byte): never a 500 either. */
const MALFORMED = ['%ED%A0%80', 'fox%20%ED%BF%BF%20tale', '%FF', '%C3', '%00%00'];

t.test('pathological queries on a library with content are never a 500', async (t) => {
  const ctx = await buildTestApp(t);
  await createStory(ctx, { title: 'Tale of a fox', summary: 'A quick fox.', contentHtml: '<p>The quick brown fox jumps over the lazy dog.</p>' });
  await createStory(ctx, { title: 'Long words', contentHtml: `<p>before ${LONG_WORD} after ${'x'.repeat(151)} ${'y'.repeat(300)}</p>` });
  await createStory(ctx, { title: 'Café in İstanbul', description: 'e\u0301\u0301 with marks', contentHtml: `<p>${'😀'.repeat(3000)} fox 😀 tale</p>` });
  await createStory(ctx, { title: 'Repeated', contentHtml: `<p>${'fox '.repeat(20_000)}</p>` });

  for (const query of PATHOLOGICAL) {
    const label = `${JSON.stringify(query.slice(0, 30))} (${query.length} characters)`;
    const res = await ctx.get(`/api/stories/search?size=100&query=${encodeURIComponent(query)}`);
    t.equal(res.statusCode, 200, label);
    if (res.statusCode !== 200) continue;
    const result = res.json() as { results: { title: string; snippet: string | null }[] };
    assertMatches(t, StorySearchResult, result, `${label}: the body matches its schema`);
    for (const hit of result.results) {
      if (hit.snippet === null) continue;
      t.notMatch(hit.snippet, /<(?!\/?mark>)/, `${label}: no markup but <mark> in "${hit.title}"`);
      t.ok(hit.snippet.replace(/<\/?mark>/g, '').length < 2000, `${label}: a short snippet for "${hit.title}"`);
    }
  }

  for (const raw of MALFORMED) {
    const res = await ctx.get(`/api/stories/search?query=${raw}`);
    t.ok(res.statusCode < 500, `${raw}: ${res.statusCode}`);
  }

  const long = (await ctx.get(`/api/stories/search?query=${LONG_WORD}`)).json() as { results: { title: string; snippet: string }[] };
  t.same(
    long.results.map((hit) => hit.title),
    ['Long words'],
    'the 5,000-character word is found (cut to the query piece limit, the last word is a prefix)',
  );
  t.match(long.results[0]?.snippet, /^before <mark>x+<\/mark>…$/);
});
