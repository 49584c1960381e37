/**
 * `countWords` must count exactly what `Intl.Segmenter` counts (docs/decisions.md, "Story HTML");
 * its fast path for Latin prose is checked against the segmenter itself on random lines built from
 * every character that path knows, weighted towards the combinations the word-break rules treat
 * specially (letters and digits around `.`, `,`, `;`, `:`, apostrophes).
 */
import t from 'tap';
import { countSimpleLine, countWords } from '../../src/html/word-count.js';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
const bySegmenter = (text: string) => text.split('\n').reduce((sum, line) => sum + [...segmenter.segment(line)].filter((s) => s.isWordLike).length, 0);

/** mulberry32: the same cases on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const latinLetters = Array.from({ length: 0x250 - 0xc0 }, (_, i) => String.fromCharCode(0xc0 + i)).join('');
const GROUPS = [
  'abcxyzABCXYZ',
  'éöüßçñÅØæœĳŁſƒǅȘ',
  latinLetters,
  '0123456789',
  ".,;:'‘’",
  ' \t!?"()[]{}-/*&+=<>@#%|~^`$«»¡¿–—“”…×÷',
];

t.test('the fast path agrees with Intl.Segmenter on random lines of the characters it knows', async (t) => {
  const random = prng(8);
  let checked = 0;
  let mismatches = 0;
  for (let i = 0; i < 200_000; i += 1) {
    const length = 1 + Math.floor(random() * 12);
    let line = '';
    for (let k = 0; k < length; k += 1) {
      const group = GROUPS[Math.floor(random() * GROUPS.length)] as string;
      line += group[Math.floor(random() * group.length)];
    }
    const fast = countSimpleLine(line);
    if (fast < 0) continue;
    checked += 1;
    const expected = bySegmenter(line);
    if (fast !== expected && mismatches++ < 10) t.fail(`${JSON.stringify(line)}: fast ${fast}, Intl.Segmenter ${expected}`);
  }
  t.equal(mismatches, 0, `no mismatch in ${checked} lines`);
  t.ok(checked > 190_000, 'nearly every generated line took the fast path');
});

t.test('countWords matches Intl.Segmenter on prose, mixed scripts and edge cases', async (t) => {
  const texts = [
    'Hello, world!',
    "It's a dog's life — isn't it?",
    'She said: “Don’t.” Then, at 3.14 p.m., 1,000 people left; e.g. the rest… stayed.',
    '東京は日本の首都です',
    'Mixed: English and Ελληνικά and русский, 2024-11-21, naïve café',
    'snake_case and a_1 and _under_',
    'line one\n\nline two\n',
    'emoji 📚 between words 🧵 and ZWJ 👩‍👩‍👧',
    'combining e\u0301 and a\u0308 marks',
    'tabs\tand  double  spaces',
    '',
  ];
  for (const text of texts) t.equal(countWords(text), bySegmenter(text), JSON.stringify(text));
});

t.test('unknown characters fall back to the segmenter', async (t) => {
  t.equal(countSimpleLine('a 東京'), -1);
  t.equal(countSimpleLine('naïve'), 1);
  t.equal(countSimpleLine('Ελληνικά'), -1, 'Greek is left to the segmenter');
});
