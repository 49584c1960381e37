import t from 'tap';
import { countWords } from '../../src/lib/html/word-count.js';

/**
 * Found by the hostile sweep's huge bodies: counting words took time quadratic in the length of
 * one paragraph (Intl.Segmenter), with the event loop blocked: a 100,000-word paragraph took
 * minutes.
 */

const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
function segmentedWhole(text: string): number {
  let count = 0;
  for (const line of text.split('\n')) for (const segment of segmenter.segment(line)) if (segment.isWordLike === true) count += 1;
  return count;
}

function timed<T>(run: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = run();
  return { value, ms: performance.now() - started };
}

t.test('word counts of long lines are the same as one segmenter call over them', async (t) => {
  const texts = [
    "It's a dog's life — isn't it? ".repeat(300),
    '東京は日本の首都です。'.repeat(300),
    '3.14 and 42, e.g. U.S.A. '.repeat(300),
    'Ünïcödé wörds, émigré naïve. '.repeat(300),
    '😀 emoji 👍🏽 text '.repeat(300),
    'short line\n'.repeat(300),
  ];
  for (const text of texts) t.equal(countWords(text), segmentedWhole(text), text.slice(0, 24));
});

t.test('a paragraph of 200,000 words is counted exactly and fast', async (t) => {
  const { value, ms } = timed(() => countWords('word '.repeat(200_000)));
  t.equal(value, 200_000);
  t.ok(ms < 2000, `${Math.round(ms)} ms`);
});
