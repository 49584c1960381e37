import t from 'tap';
import { HttpError } from '../../src/errors.js';
import { ExtractPool } from '../../src/import/url/extract-pool.js';
import { storyParagraphs } from '../helpers/fixture-site.js';

const PAGE = Buffer.from(`<html><head><title>Pool</title></head><body><article>${storyParagraphs(['workers', 'keep', 'the', 'loop', 'free'])}</article></body></html>`);

function statusOf(error: unknown): number | undefined {
  return error instanceof HttpError ? error.statusCode : undefined;
}

t.test('a worker extracts; with every worker busy and the queue full, the next job is 503 at once', async (t) => {
  const pool = new ExtractPool({ threads: 1, queueMax: 1, taskTimeoutMs: 60_000 });
  t.teardown(() => pool.close());
  const running = pool.extract(PAGE, undefined, 'https://pool.example/a', 5);
  const waiting = pool.extract(PAGE, undefined, 'https://pool.example/b', 5);
  const refused = await pool.extract(PAGE, undefined, 'https://pool.example/c', 5).then(() => undefined, statusOf);
  t.equal(refused, 503, 'one running and one waiting is the bound');
  t.equal((await running)?.title, 'Pool');
  t.equal((await waiting)?.title, 'Pool', 'the waiting job runs once the worker is free');
  t.equal((await pool.extract(PAGE, undefined, 'https://pool.example/d', 5))?.title, 'Pool', 'room again afterwards');
});

t.test('a job over its time ends the worker and is 422; the next job gets a fresh worker', async (t) => {
  const slow = new ExtractPool({ threads: 1, queueMax: 1, taskTimeoutMs: 1 });
  t.teardown(() => slow.close());
  const status = await slow.extract(PAGE, undefined, 'https://pool.example/a', 5).then(() => undefined, statusOf);
  t.equal(status, 422);
  const again = await slow.extract(PAGE, undefined, 'https://pool.example/b', 5).then(() => 'done', statusOf);
  t.equal(again, 422, 'a new worker was started for it (and it, too, ran out of time)');
});

t.test('closing fails waiting jobs with 503 and refuses new ones', async (t) => {
  const pool = new ExtractPool({ threads: 1, queueMax: 2, taskTimeoutMs: 60_000 });
  const running = pool.extract(PAGE, undefined, 'https://pool.example/a', 5).then(() => 'done', statusOf);
  const waiting = pool.extract(PAGE, undefined, 'https://pool.example/b', 5).then(() => 'done', statusOf);
  await pool.close();
  t.equal(await waiting, 503);
  t.equal(await running, 503);
  t.equal(await pool.extract(PAGE, undefined, 'https://pool.example/c', 5).then(() => 'done', statusOf), 503);
});
