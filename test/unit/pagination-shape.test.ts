/**
 * `PageOf` (src/lib/pagination.ts) is written by hand at the bottom of the tree, and the contract
 * `Paged(item)` (src/schemas/common.ts) describes the same envelope for validation, serialization
 * and the OpenAPI document. The type check of this file fails when the two drift apart; the test
 * checks that what `toPage` really builds is a valid `Paged` value.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import t from 'tap';
import { toPage, type PageOf } from '../../src/lib/pagination.js';
import { Paged } from '../../src/schemas/common.js';

const Item = Type.Object({ id: Type.String(), words: Type.Integer() });
type Item = Static<typeof Item>;

/** True only when A and B are the same type, each assignable to the other with nothing optional or extra. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

// `tsc --noEmit -p .` (npm run typecheck, and CI) fails on this line when the two disagree.
const sameType: Equal<PageOf<Item>, Static<ReturnType<typeof Paged<typeof Item>>>> = true;

t.test('PageOf is the Static of the Paged contract, and toPage builds a valid Paged value', async (t) => {
  t.equal(sameType, true);
  const schema = Paged(Item);
  for (const [content, total, page] of [[[{ id: 'a', words: 3 }], 41, 2], [[], 0, 0]] as const) {
    const built: PageOf<Item> = toPage([...content], total, { page, size: 20 });
    t.strictSame([...Value.Errors(schema, built)].map((error) => `${error.path}: ${error.message}`), [], `page ${page} of ${total}`);
    t.strictSame(Object.keys(built).sort(), Object.keys(schema.properties).sort(), 'no field beyond the contract');
  }
});
