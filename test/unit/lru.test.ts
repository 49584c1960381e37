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
