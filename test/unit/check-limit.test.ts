import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { ConcurrencyLimit } from '../../src/auth/check-limit.js';
import { ServiceUnavailable } from '../../src/errors.js';

t.test('runs at most `running` tasks at once, queues `waiting` in order, refuses the rest with 503', async (t) => {
  const limit = new ConcurrencyLimit(2, 3);
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
