import t from 'tap';
import { MAX_NESTING, nestsDeeperThan, sanitizeStoryHtml } from '../../src/html/sanitize.js';
import { deriveStoryText } from '../../src/html/story-text.js';
import { countWords } from '../../src/html/word-count.js';

/**
 * Found by the hostile sweep's huge bodies: deriving a story's text took time quadratic in the
 * length of one paragraph (Intl.Segmenter) and in the nesting depth (htmlparser2), with the event
 * loop blocked: a 100,000-word paragraph took minutes, 200,000 nested <b> about 25 s.
 */

const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
function segmentedWhole(text: string): number {
  let count = 0;
  for (const line of text.split('\n')) for (const segment of segmenter.segment(line)) if (segment.isWordLike === true) count += 1;
  return count;
}

/**
 * The CPU time `run` takes (user + system, in ms): the bounds below catch quadratic work, which
 * takes minutes, and CPU time does not grow with other processes sharing the cores (in wall
 * time, with four test processes on two cores, work of ~1 s once took 2.3 s against a 2 s bound).
 */
function timed<T>(run: () => T): { value: T; ms: number } {
  const started = process.cpuUsage();
  const value = run();
  const used = process.cpuUsage(started);
  return { value, ms: (used.user + used.system) / 1000 };
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

t.test('a paragraph of 100,000 words is counted exactly and fast, whichever path counts it', async (t) => {
  for (const [label, word] of [['Latin (the fast path)', 'word '], ['Greek (the segmenter)', 'λέξη '], ['with emoji (the segmenter)', 'word 📚 ']] as const) {
    const { value, ms } = timed(() => countWords(word.repeat(100_000)));
    t.equal(value, 100_000, label);
    t.ok(ms < 2000, `${label}: ${Math.round(ms)} ms`);
  }
});

t.test('nesting: real documents pass, absurd depth is caught by a linear scan', async (t) => {
  t.notOk(nestsDeeperThan('<p>a<p>b'.repeat(20_000), MAX_NESTING), 'unclosed paragraphs do not deepen');
  t.notOk(nestsDeeperThan(`<ul>${'<li>x'.repeat(20_000)}</ul>`, MAX_NESTING), 'nor list items');
  t.notOk(nestsDeeperThan('<div><b>x</b><br><img src="a"></div>'.repeat(20_000), MAX_NESTING), 'closed and void elements');
  t.notOk(nestsDeeperThan('<b>'.repeat(MAX_NESTING), MAX_NESTING), 'exactly the limit');
  t.ok(nestsDeeperThan('<b>'.repeat(MAX_NESTING + 1), MAX_NESTING), 'one more');
  t.ok(nestsDeeperThan('<ul><li>'.repeat(MAX_NESTING + 1), MAX_NESTING), 'nested lists');
  t.notOk(nestsDeeperThan(`<a${' href=x'.repeat(100_000)}`, MAX_NESTING), 'an unterminated tag');
  const scan = timed(() => nestsDeeperThan('<a<a'.repeat(500_000), MAX_NESTING));
  t.ok(scan.ms < 1000, `a megabyte of tag starts without '>' scans in ${Math.round(scan.ms)} ms`);
});

t.test('a document nested too deep keeps its text, loses its markup, and costs little', async (t) => {
  const deep = `${'<b><i>'.repeat(100_000)}kept <script>alert(1)</script> text`;
  const { value, ms } = timed(() => deriveStoryText(deep));
  t.ok(ms < 2000, `${Math.round(ms)} ms`);
  t.notMatch(value.contentHtml ?? '', /<|alert/);
  t.equal(value.contentPlain, 'kept text');
  t.equal(sanitizeStoryHtml('<b>'.repeat(MAX_NESTING) + 'x'), '<b>'.repeat(MAX_NESTING) + 'x' + '</b>'.repeat(MAX_NESTING), 'at the limit markup stays');
});

t.test('hostile bodies of a few megabytes derive in bounded time', async (t) => {
  const bodies: Record<string, string> = {
    'one paragraph of 300,000 words': `<p>${'word '.repeat(300_000)}</p>`,
    'a megabyte of <': '<'.repeat(1_000_000),
    'half a million entities': '&amp;'.repeat(500_000),
    '300,000 nested divs': '<div>'.repeat(300_000),
  };
  for (const [label, html] of Object.entries(bodies)) {
    const { ms } = timed(() => deriveStoryText(html));
    t.ok(ms < 5000, `${label}: ${Math.round(ms)} ms`);
  }
});

t.test('past the limit, script and style go with their content, closed or not', async (t) => {
  const deep = '<b>'.repeat(MAX_NESTING + 1);
  t.equal(deriveStoryText(`${deep}a<SCRIPT type="x">evil()</script >b<style>p{}</style>c`).contentPlain, 'abc', 'as sanitize-html drops them: no gap');
  t.equal(deriveStoryText(`${deep}a<script>never closed <b>x</b>`).contentPlain, 'a x', 'an unclosed one ends at the next tag');
  const many = timed(() => deriveStoryText(`${deep}${'<script>'.repeat(200_000)}`));
  t.ok(many.ms < 2000, `200,000 unclosed scripts: ${Math.round(many.ms)} ms`);
});

t.test('unclosed elements that hide their content are closed in linear time', async (t) => {
  for (const [label, html] of [
    ['200,000 unclosed scripts', '<script>x<p>'.repeat(200_000)],
    ['200,000 unclosed noscripts', '<noscript>x<p>'.repeat(200_000)],
    ['unclosed titles', '<title>x<b>y</b>'.repeat(100_000)],
  ] as const) {
    const { value, ms } = timed(() => sanitizeStoryHtml(html));
    t.ok(value.length > 0, label);
    t.ok(ms < 3000, `${label}: ${Math.round(ms)} ms`);
  }
  t.equal(sanitizeStoryHtml(`${'<script>x<p>'.repeat(1000)}</script><p>after</p>`), '<p>after</p>', 'closed at the very end: all of it is script');
  t.equal(deriveStoryText(`${'<script>x<p>'.repeat(200_000)}</script><p>after</p>`).contentPlain, 'after', 'also when too deep');
});
