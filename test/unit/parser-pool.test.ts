/**
 * The file import's parser thread (src/import/parser-pool.ts): one for the process, kept between
 * the jobs that use it for a while after the last one ends, stopped at once when a job leaves a
 * request running, and stopped when it has been idle.
 */
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ParserPool, parserThreadKept, SharedParser } from '../../src/import/parser-pool.js';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'fanficfare', 'grow-v1.epub');

t.test('the thread is kept for the next job after the last one ends, and stops once idle', async (t) => {
  const shared = new SharedParser(150);
  const first = shared.lend();
  t.ok(shared.started);
  await shared.giveBack(first, false);
  t.ok(shared.started, 'kept after its last user ends');
  const second = shared.lend();
  t.equal(second, first, 'the next job is lent the same thread');
  const overlapping = shared.lend();
  await shared.giveBack(second, false);
  await sleep(300);
  t.ok(shared.started, 'not stopped while another job still holds it');
  await shared.giveBack(overlapping, false);
  await sleep(300);
  t.notOk(shared.started, 'stopped once idle past its time');
  const third = shared.lend();
  t.not(third, first, 'a job after that starts a new one');
  await shared.giveBack(third, true);
  t.notOk(shared.started, 'a job that leaves a request running stops it at once');
});

t.test('two jobs in a row parse on the one thread, which outlives them', async (t) => {
  for (const run of [1, 2]) {
    const parser = new ParserPool();
    const result = await parser.parseFile(FIXTURE, 'grow-v1.epub', AbortSignal.timeout(60_000));
    t.ok('story' in result, `job ${run} parsed its book`);
    await parser.close();
    t.ok(parserThreadKept(), `the thread is kept after job ${run}`);
  }
  const closed = new ParserPool();
  await closed.close();
  await t.rejects(closed.parseFile(FIXTURE, 'grow-v1.epub', AbortSignal.timeout(1_000)), /closed/, 'a closed handle asks nothing');
});
