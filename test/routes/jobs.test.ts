import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { claimNext, insertJob } from '../../src/jobs/repository.js';
import { jobs } from '../../src/db/schema.js';
import { FINISHED_JOBS_KEPT, QUEUED_JOBS_MAX, type JobContext } from '../../src/jobs/runner.js';
import { JobDto, JobList } from '../../src/schemas/job.js';
import { ErrorBody } from '../../src/schemas/common.js';
import { TooManyRequests } from '../../src/errors.js';
import { buildTestApp, tempDataDir, type TestContext } from '../helpers/app.js';
import { MISSING_ID } from '../helpers/factories.js';
import { postImport, waitForJob } from '../helpers/import.js';
import { assertMatches } from '../helpers/schema.js';

interface Steps {
  items: number;
}
interface StepState {
  next: number;
}

/**
 * A job kind for the runner's own tests: item `i` is committed once `release(i)` is called (or at
 * once without gates), and every item run is recorded.
 */
function steppedKind(gated: boolean) {
  const ran: number[] = [];
  const gates = new Map<number, () => void>();
  const opened = new Set<number>();
  const release = (item: number) => {
    opened.add(item);
    gates.get(item)?.();
  };
  const handler = {
    async run(context: JobContext<Steps, StepState>) {
      for (let item = context.state?.next ?? 0; item < context.params.items; item += 1) {
        if (gated && !opened.has(item)) {
          await new Promise<void>((resolve) => {
            gates.set(item, resolve);
            context.signal.addEventListener('abort', () => resolve(), { once: true });
          });
        }
        if (context.signal.aborted) return;
        ran.push(item);
        context.commit({ state: { next: item + 1 }, done: 1, ...(item === 1 ? { errors: [{ file: `item-${item}`, error: 'noted' }] } : {}) });
      }
    },
  };
  return { handler, ran, release };
}

async function jobOf(ctx: TestContext, id: string): Promise<JobDto> {
  const res = await ctx.get(`/api/jobs/${id}`);
  return res.json() as JobDto;
}

async function until(ctx: TestContext, id: string, ok: (job: JobDto) => boolean): Promise<JobDto> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const job = await jobOf(ctx, id);
    if (ok(job)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} never got there: ${JSON.stringify(job)}`);
    await sleep(10);
  }
}

t.test('a job runs to done; GET shows its progress and errors, DELETE on a finished job is 409, on an unknown one 404', async (t) => {
  const ctx = await buildTestApp(t);
  const kind = steppedKind(false);
  ctx.app.jobs.register('test-steps', kind.handler);
  const id = ctx.app.jobs.enqueue('test-steps', { items: 3 }, { total: 3 });
  const job = await waitForJob(ctx, id);
  assertMatches(t, JobDto, job);
  t.match(job, { id, kind: 'test-steps', status: 'done', total: 3, done: 3, failed: 1, errors: [{ file: 'item-1', error: 'noted' }] });
  t.same(kind.ran, [0, 1, 2]);
  const again = await ctx.del(`/api/jobs/${id}`);
  t.equal(again.statusCode, 409);
  assertMatches(t, ErrorBody, again.json());
  t.equal((await ctx.del(`/api/jobs/${MISSING_ID}`)).statusCode, 404);
  t.equal((await ctx.get(`/api/jobs/${MISSING_ID}`)).statusCode, 404);
  t.equal((await ctx.get('/api/jobs/not-a-uuid')).statusCode, 400);
});

t.test('DELETE cancels a running job: it stops between items and commits nothing more', async (t) => {
  const ctx = await buildTestApp(t);
  const kind = steppedKind(true);
  ctx.app.jobs.register('test-steps', kind.handler);
  const id = ctx.app.jobs.enqueue('test-steps', { items: 5 });
  await ctx.get('/api/jobs');
  kind.release(0);
  kind.release(1);
  await until(ctx, id, (job) => job.done === 2);
  const res = await ctx.del(`/api/jobs/${id}`);
  t.equal(res.statusCode, 200);
  t.same(res.json(), { message: 'Job cancelled' });
  kind.release(2);
  const job = await until(ctx, id, (current) => current.status === 'cancelled' && current.finishedAt !== null);
  await sleep(50);
  t.match(await jobOf(ctx, id), { status: 'cancelled', done: 2 }, 'no item after the cancel');
  t.same(kind.ran, [0, 1], 'the handler stopped between items');
  t.equal(job.done, 2);
});

t.test('DELETE cancels a queued job before it starts', async (t) => {
  const ctx = await buildTestApp(t);
  const kind = steppedKind(true);
  ctx.app.jobs.register('test-steps', kind.handler);
  const first = ctx.app.jobs.enqueue('test-steps', { items: 1 });
  const second = ctx.app.jobs.enqueue('test-steps', { items: 1 });
  await until(ctx, first, (job) => job.status === 'running');
  t.equal((await ctx.del(`/api/jobs/${second}`)).statusCode, 200);
  kind.release(0);
  await waitForJob(ctx, first);
  t.match(await jobOf(ctx, second), { status: 'cancelled', done: 0, startedAt: null });
});

t.test('a job interrupted by a restart resumes from its last committed step, none run twice', async (t) => {
  const dataDir = tempDataDir(t);
  const before = await buildTestApp(t, { DATA_DIR: dataDir });
  const first = steppedKind(true);
  before.app.jobs.register('test-steps', first.handler);
  const id = before.app.jobs.enqueue('test-steps', { items: 5 }, { total: 5 });
  await before.get('/api/jobs');
  first.release(0);
  first.release(1);
  await until(before, id, (job) => job.done === 2);
  await before.app.close();
  t.same(first.ran, [0, 1]);

  const after = await buildTestApp(t, { DATA_DIR: dataDir });
  const second = steppedKind(false);
  after.app.jobs.register('test-steps', second.handler);
  const job = await waitForJob(after, id);
  t.match(job, { status: 'done', done: 5, total: 5 });
  t.same(second.ran, [2, 3, 4], 'the second run started where the first stopped');
});

t.test('GET /api/jobs lists the newest first, bounded by limit (1 to 100)', async (t) => {
  const ctx = await buildTestApp(t);
  ctx.app.jobs.register('test-steps', steppedKind(false).handler);
  const ids = [];
  for (let index = 0; index < 3; index += 1) {
    const id = ctx.app.jobs.enqueue('test-steps', { items: 1 });
    await waitForJob(ctx, id);
    ids.push(id);
  }
  const res = await ctx.get('/api/jobs?limit=2');
  t.equal(res.statusCode, 200);
  assertMatches(t, JobList, res.json());
  t.same(res.json().jobs.map((job: JobDto) => job.id), [ids[2], ids[1]]);
  t.equal((await ctx.get('/api/jobs')).json().jobs.length, 3, 'default limit 20');
  t.equal((await ctx.get('/api/jobs?limit=101')).statusCode, 400);
  t.equal((await ctx.get('/api/jobs?limit=0')).statusCode, 400);
});

t.test(`only the newest ${FINISHED_JOBS_KEPT} finished jobs are kept; more than ${QUEUED_JOBS_MAX} queued is 429`, async (t) => {
  const ctx = await buildTestApp(t);
  ctx.app.jobs.register('test-steps', steppedKind(false).handler);
  const old = Array.from({ length: FINISHED_JOBS_KEPT + 5 }, (_, index) => ({
    id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    kind: 'test-steps',
    status: 'done' as const,
    createdAt: '2020-01-01T00:00:00.000Z',
    finishedAt: `2020-01-01T00:00:${String(index % 60).padStart(2, '0')}.${String(index).padStart(3, '0')}Z`,
  }));
  ctx.app.db.insert(jobs).values(old).run();
  const id = ctx.app.jobs.enqueue('test-steps', { items: 1 });
  await waitForJob(ctx, id);
  const finished = ctx.app.db.$client.prepare("SELECT count(*) AS n FROM jobs WHERE status = 'done'").get() as { n: number };
  t.equal(finished.n, FINISHED_JOBS_KEPT);
  t.equal((await ctx.get(`/api/jobs/${id}`)).statusCode, 200, 'the newest job is kept');

  // Jobs of a kind no runner here knows stay queued: they fill the queue.
  const parked = Array.from({ length: QUEUED_JOBS_MAX }, (_, index) => ({
    id: `00000000-0000-4000-9000-${String(index).padStart(12, '0')}`,
    kind: 'test-parked',
    status: 'queued' as const,
    createdAt: '2030-01-01T00:00:00.000Z',
  }));
  ctx.app.db.insert(jobs).values(parked).run();
  const res = await postImport(ctx, [{ filename: 'a.txt', data: 'text' }]);
  t.equal(res.statusCode, 429);
  assertMatches(t, ErrorBody, res.json());
  t.throws(() => ctx.app.jobs.enqueue('test-steps', { items: 1 }), new TooManyRequests(`${QUEUED_JOBS_MAX} jobs are already waiting; try again when one has finished`, 60));
});

t.test('at start-up, job folders that no unfinished job owns are removed; a queued job keeps its own', async (t) => {
  const dataDir = tempDataDir(t);
  const first = await buildTestApp(t, { DATA_DIR: dataDir });
  first.app.db.insert(jobs).values({ id: MISSING_ID, kind: 'test-parked', status: 'queued', createdAt: '2030-01-01T00:00:00.000Z' }).run();
  await first.app.close();
  for (const name of [MISSING_ID, 'left-by-a-crash']) {
    fs.mkdirSync(path.join(dataDir, 'jobs', name), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'jobs', name, '1.txt'), 'x');
  }
  const second = await buildTestApp(t, { DATA_DIR: dataDir });
  await second.app.ready();
  t.same(fs.readdirSync(path.join(dataDir, 'jobs')), [MISSING_ID]);
});

t.test('jobs queued in the same millisecond run in the order they were queued, whatever their ids', async (t) => {
  const ctx = await buildTestApp(t);
  const at = '2026-11-24T04:47:43.462Z';
  // The second's id sorts before the first's: a random id must not jump the queue.
  insertJob(ctx.app.db, { id: 'ffffffff-0000-4000-8000-000000000001', kind: 'queue-order', params: '{}', total: 0, createdAt: at });
  insertJob(ctx.app.db, { id: '00000000-0000-4000-8000-000000000002', kind: 'queue-order', params: '{}', total: 0, createdAt: at });
  t.equal(claimNext(ctx.app.db, ['queue-order'], at)?.id, 'ffffffff-0000-4000-8000-000000000001', 'the first queued runs first');
  t.equal(claimNext(ctx.app.db, ['queue-order'], at)?.id, '00000000-0000-4000-8000-000000000002', 'then the second');
  t.equal(claimNext(ctx.app.db, ['queue-order'], at), undefined, 'then none');
});
