import t from 'tap';
import { planMerge, type FreshChapter, type HeldChapter } from '../../src/import/url/source-merge.js';

const held = (position: number, sourceKey: string | null, contentPlain: string, title = `Chapter ${position}`, sourceGoneAt: string | null = null): HeldChapter => ({ position, title, sourceKey, contentPlain, sourceGoneAt });
const fresh = (sourceKey: string, plainText: string, title = ''): FreshChapter => ({ sourceKey, plainText, title });
const LONG = 'The tide came in over the causeway and the lamp was lit again. '.repeat(20);

t.test('new chapters appended, changed replaced, unchanged left alone', async (t) => {
  const plan = planMerge(
    [held(1, '1', LONG, 'One'), held(2, '2', LONG, 'Two')],
    [fresh('1', LONG, 'One'), fresh('2', `${LONG} Revised.`, 'Two'), fresh('3', LONG, 'Three')],
  );
  t.same(plan, { added: [2], updated: [{ position: 2, index: 1 }], kept: [], gone: [], returned: [] });
});

t.test('a retitled chapter is an update', async (t) => {
  t.same(planMerge([held(1, '1', LONG, 'One')], [fresh('1', LONG, 'One, revised')]).updated, [{ position: 1, index: 0 }]);
});

t.test('a new text that is empty or under a tenth of the old is refused and the old kept', async (t) => {
  const plan = planMerge([held(1, '1', LONG), held(2, '2', LONG), held(3, '3', LONG)], [fresh('1', '', 'Chapter 1'), fresh('2', 'Removed by the author.', 'Chapter 2'), fresh('3', LONG.slice(0, LONG.length / 5), 'Chapter 3')]);
  t.same(plan.kept, [{ position: 1, index: 0 }, { position: 2, index: 1 }], 'empty, and a one-line stub');
  t.same(plan.updated, [{ position: 3, index: 2 }], 'a fifth of the old is a real revision');
});

t.test('a chapter gone from the source is marked once and comes back unmarked', async (t) => {
  const first = planMerge([held(1, '1', LONG), held(2, '2', LONG)], [fresh('1', LONG, 'Chapter 1')]);
  t.same(first.gone, [2]);
  const again = planMerge([held(1, '1', LONG), held(2, '2', LONG, 'Chapter 2', '2024-01-01T00:00:00.000Z')], [fresh('1', LONG, 'Chapter 1')]);
  t.same(again.gone, [], 'already marked: not counted again');
  const back = planMerge([held(1, '1', LONG), held(2, '2', LONG, 'Chapter 2', '2024-01-01T00:00:00.000Z')], [fresh('1', LONG, 'Chapter 1'), fresh('2', LONG, 'Chapter 2')]);
  t.same(back.returned, [{ position: 2, index: 1 }]);
});

t.test('a held chapter without a source key is never matched, so never overwritten', async (t) => {
  const plan = planMerge([held(1, null, LONG)], [fresh('9', LONG, 'Chapter 1')]);
  t.same(plan, { added: [0], updated: [], kept: [], gone: [1], returned: [] });
});
