/**
 * KOReader xpointers <-> story blocks (docs/decisions.md, "KOReader sync"): the parser takes
 * what crengine writes and nothing else, ranks count same-name siblings, and the pointers made
 * for KOReader read back to the same block.
 */
import t from 'tap';
import { storyBody } from '../../src/epub/xhtml.js';
import { fragmentStart, parseXPointer, webIndexOf, xpointerOf } from '../../src/kosync/xpointer.js';

t.test('parses the spine item and the first body step', async (t) => {
  t.same(parseXPointer('/body/DocFragment[20]/body/p[22]/img.0'), { fragment: 20, step: { name: 'p', rank: 22 } });
  t.same(parseXPointer('/body/DocFragment[3]/body/blockquote/p[2]/text()[2].17'), { fragment: 3, step: { name: 'blockquote', rank: 1 } });
  t.same(parseXPointer('/body/DocFragment[2].0'), { fragment: 2 });
  t.same(parseXPointer('/body[1]/DocFragment[5]/body[1]/div[1]/p[3]/text()[1].4'), { fragment: 5, step: { name: 'div', rank: 1 } }, 'every index written');
  t.same(parseXPointer('/body/DocFragment/body/h2'), { fragment: 1, step: { name: 'h2', rank: 1 } }, 'no index: the only fragment');
  for (const text of ['12', '', '/body/p[3]', '/body/DocFragment[0]/body/p', 'DocFragment[2]', '/body/DocFragment[2]x', '/body/DocFragment[99999999]']) {
    t.equal(parseXPointer(text), undefined, `not a pointer: ${JSON.stringify(text)}`);
  }
});

t.test('blocks and pointers agree both ways', async (t) => {
  const { blocks } = storyBody('T', '<h2>a</h2><p>1</p><p>2</p><hr><blockquote><p>q</p></blockquote>loose<p>3</p><em>inline</em>', () => undefined);
  t.same(
    blocks.map((b) => [b.name, b.webIndex]),
    [['h1', null], ['h2', 0], ['p', 1], ['p', 2], ['hr', 3], ['blockquote', 4], ['div', null], ['p', 5], ['div', 6]],
  );
  t.equal(xpointerOf(2, blocks, 0), '/body/DocFragment[2]/body/h2.0', 'the only h2 has no rank');
  t.equal(xpointerOf(2, blocks, 2), '/body/DocFragment[2]/body/p[2].0');
  t.equal(xpointerOf(2, blocks, 3), '/body/DocFragment[2]/body/hr', 'no point inside an empty element');
  t.equal(xpointerOf(2, blocks, 6), '/body/DocFragment[2]/body/div[2].0', 'the loose-text div counts among the divs');
  t.equal(xpointerOf(2, blocks, 7), undefined, 'no such block');
  for (let index = 0; index <= 6; index++) {
    const step = parseXPointer(xpointerOf(4, blocks, index)!)!.step!;
    t.equal(webIndexOf(blocks, step), index, `block ${index} reads back`);
  }
  t.equal(webIndexOf(blocks, { name: 'h1', rank: 1 }), 0, 'the title heading means the first block');
  t.equal(webIndexOf(blocks, { name: 'div', rank: 1 }), 5, 'loose text means the next block');
  t.equal(webIndexOf(blocks, { name: 'p', rank: 9 }), undefined);
  t.equal(webIndexOf(blocks, { name: 'autoBoxing', rank: 1 }), undefined);
  t.equal(fragmentStart(3), '/body/DocFragment[3].0');
});
