/**
 * The page envelope around SQLite-rendered content (src/lib/json-bytes.ts) is exactly
 * `toPage`'s, also when the content holds fewer items than the ids asked for.
 */
import t from 'tap';
import { asJsonBytes, jsonPage } from '../../src/lib/json-bytes.js';
import { toPage } from '../../src/lib/pagination.js';

const render = (items: unknown[]) => (before: string, after: string) => ({ json: asJsonBytes(Buffer.from(`${before}${JSON.stringify(items)}${after}`)), count: items.length });

t.test('the envelope is toPage, keys in order, around the rendered content', async (t) => {
  const items = [{ id: 'a', text: 'é "quoted"' }, { id: 'b' }];
  const body = jsonPage(2, 7, { page: 1, size: 2 }, render(items));
  t.equal(body.toString(), JSON.stringify(toPage(items, 7, { page: 1, size: 2 })));
  const empty = jsonPage(0, 7, { page: 9, size: 2 }, render([]));
  t.equal(empty.toString(), JSON.stringify(toPage([], 7, { page: 9, size: 2 })));
});

t.test('content with fewer items than expected gets the envelope of its real count', async (t) => {
  const items = [{ id: 'a' }];
  const body = jsonPage(3, 10, { page: 0, size: 3 }, render(items));
  t.equal(body.toString(), JSON.stringify(toPage(items, 10, { page: 0, size: 3 })));
  t.equal(JSON.parse(body.toString()).numberOfElements, 1);
});
