import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { KeyedLock } from '../../src/lib/keyed-lock.js';

t.test('tasks for one key run one at a time, in the order they asked', async (t) => {
  const lock = new KeyedLock();
  const events: string[] = [];
  const task = (name: string, ms: number) => async () => {
    events.push(`${name} start`);
    await sleep(ms);
    events.push(`${name} end`);
    return name;
  };
  const results = await Promise.all([lock.run('a', task('one', 20)), lock.run('a', task('two', 1)), lock.run('a', task('three', 5))]);
  t.same(results, ['one', 'two', 'three']);
  t.same(events, ['one start', 'one end', 'two start', 'two end', 'three start', 'three end']);
  t.equal(lock.size, 0, 'no key is kept once its tasks are done');
});

t.test('different keys do not wait for each other; a failed task does not block the next', async (t) => {
  const lock = new KeyedLock();
  const events: string[] = [];
  const slow = lock.run('a', async () => {
    await sleep(30);
    events.push('a');
  });
  await lock.run('b', async () => events.push('b'));
  await slow;
  t.same(events, ['b', 'a']);

  const failing = lock.run('a', async () => {
    throw new Error('boom');
  });
  const next = lock.run('a', async () => 'ran');
  await t.rejects(failing, /boom/);
  t.equal(await next, 'ran');
  t.equal(lock.size, 0);
});
