import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { ServiceUnavailable } from '../../src/errors.js';
import { Semaphore, SemaphoreFull } from '../../src/lib/semaphore.js';

t.test('runs at most `running` tasks at once, queues `waiting` in order, refuses the rest with the given error', async (t) => {
  const limit = new Semaphore(2, 3, () => new ServiceUnavailable('Too many logins at once; try again shortly'));
  let active = 0;
  let peak = 0;
  const order: number[] = [];
  const task = (n: number) => async () => {
    active += 1;
    peak = Math.max(peak, active);
    order.push(n);
    await sleep(20);
    active -= 1;
    return n;
  };
  const results = await Promise.allSettled([1, 2, 3, 4, 5, 6, 7].map((n) => limit.run(task(n))));
  t.equal(peak, 2, 'never more than two at once');
  t.same(order, [1, 2, 3, 4, 5], 'the queued ones ran in arrival order');
  t.same(results.slice(0, 5).map((result) => result.status === 'fulfilled' && result.value), [1, 2, 3, 4, 5]);
  for (const result of results.slice(5)) {
    t.ok(result.status === 'rejected' && result.reason instanceof ServiceUnavailable, 'past the queue: 503');
  }

  // A failing task frees its slot too.
  await t.rejects(limit.run(async () => Promise.reject(new Error('boom'))), /boom/);
  const again = await Promise.all([1, 2, 3, 4, 5].map((n) => limit.run(task(n))));
  t.same(again, [1, 2, 3, 4, 5], 'all slots are free again');
});

t.test('tryAcquire takes a free slot or nothing; a release counts once; the default refusal is SemaphoreFull', async (t) => {
  const slots = new Semaphore(1, 0);
  const release = slots.tryAcquire();
  t.ok(release, 'the free slot');
  t.equal(slots.tryAcquire(), undefined, 'none left: nothing is queued either');
  await t.rejects(slots.acquire(), SemaphoreFull, 'no queue: refused at once');
  release?.();
  release?.();
  t.equal(slots.running, 0, 'a second release does not free a slot it does not hold');
  const again = slots.tryAcquire();
  t.ok(again, 'free again');
  t.equal(slots.tryAcquire(), undefined, 'and only one');
  again?.();
  t.throws(() => new Semaphore(0), RangeError);
});
