import t from 'tap';
import { LruCache } from '../../src/lib/lru.js';

t.test('more distinct keys than the bound keep the cache at the bound, dropping the least recently used', async (t) => {
  const cache = new LruCache<string, number>(3);
  for (let i = 0; i < 10; i += 1) {
    cache.set(`k${i}`, i);
    t.ok(cache.size <= 3, `size ${cache.size} after ${i + 1} keys`);
  }
  t.equal(cache.size, 3);
  t.same([...cache.keys()], ['k7', 'k8', 'k9']);
  t.equal(cache.get('k0'), undefined, 'the oldest keys are gone');

  t.equal(cache.get('k7'), 7, 'a read makes a key the most recently used');
  cache.set('k10', 10);
  t.same([...cache.keys()], ['k9', 'k7', 'k10'], 'so the next eviction takes k8');
  cache.set('k9', 99);
  t.same([...cache.keys()], ['k7', 'k10', 'k9'], 'writing a key again refreshes it, without growing');
  t.equal(cache.get('k9'), 99);
});

t.test('getOrCreate builds once per key while it is cached, and again after eviction', async (t) => {
  const cache = new LruCache<string, object>(2);
  let built = 0;
  const build = () => {
    built += 1;
    return {};
  };
  const a = cache.getOrCreate('a', build);
  t.equal(cache.getOrCreate('a', build), a);
  t.equal(built, 1);
  cache.getOrCreate('b', build);
  cache.getOrCreate('c', build);
  t.equal(cache.size, 2);
  t.not(cache.getOrCreate('a', build), a, 'an evicted key is built again');
  t.equal(built, 4);
});

t.test('the bound must be a positive integer', async (t) => {
  for (const bad of [0, -1, 1.5, Number.NaN]) t.throws(() => new LruCache(bad), RangeError, String(bad));
});

t.test('with weights, the total weight stays under its bound, the least recently used going first', async (t) => {
  const cache = new LruCache<string, number>(100, { maxWeight: 10, weigh: (value) => value });
  cache.set('a', 4);
  cache.set('b', 4);
  t.equal(cache.weight, 8);
  t.equal(cache.get('a'), 4, 'a is now the most recently used');
  cache.set('c', 4);
  t.same([...cache.keys()], ['a', 'c'], 'b, the least recently used, made room');
  t.equal(cache.weight, 8);
  cache.set('a', 1);
  t.equal(cache.weight, 5, 'storing a key again replaces its weight');
  cache.set('big', 25);
  t.same([...cache.keys()], ['big'], 'an entry heavier than the bound is kept alone, never dropped before its first use');
  t.equal(cache.weight, 25);
  cache.set('d', 2);
  t.same([...cache.keys()], ['d'], 'and it goes as soon as anything else arrives');
  t.throws(() => new LruCache(1, { maxWeight: 0, weigh: () => 1 }), RangeError);
});
