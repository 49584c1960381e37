/**
 * The EPUB import timing of `npm run bench` (docs/performance.md, "Chapters"): the book the
 * service makes of the 100-chapter work (long-works.ts) is sent back through
 * `POST /api/import/files`, one at a time, and timed from the upload to the job's end, as a
 * person waits for it. Each imported copy is deleted again through the API, so a kept library
 * stays the size it was seeded.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export interface EpubImportResult {
  chapters: number;
  bytes: number;
  /** Upload to the job's end, per run, in ms. */
  totalMs: number[];
  /** The job's own `finishedAt - startedAt`, per run, in ms (the store's clock: whole ms). */
  jobMs: number[];
}

interface JobAnswer {
  status: string;
  done: number;
  failed: number;
  errors: Array<{ file: string; error: string }>;
  startedAt: string | null;
  finishedAt: string | null;
}

const FINISHED = new Set(['done', 'failed', 'cancelled']);
/** One import may take this long before the run is given up (the target is 2 s). */
const JOB_DEADLINE_MS = 120_000;

async function answer<T>(response: Response, what: string, status: number): Promise<T> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`${what}: expected ${status}, got ${response.status}: ${text.slice(0, 500)}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

export async function timeEpubImport(origin: string, token: string, storyId: string, runs: number): Promise<EpubImportResult> {
  const headers = { cookie: `token=${token}` };
  const book = Buffer.from(await (await fetch(`${origin}/api/stories/${storyId}/epub`, { headers })).arrayBuffer());
  const chapters = (await answer<unknown[]>(await fetch(`${origin}/api/stories/${storyId}/chapters`, { headers }), 'chapters', 200)).length;
  const totalMs: number[] = [];
  const jobMs: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const form = new FormData();
    form.append('file', new Blob([book], { type: 'application/epub+zip' }), 'hundred-chapters.epub');
    const started = performance.now();
    const { jobId } = await answer<{ jobId: string }>(await fetch(`${origin}/api/import/files`, { method: 'POST', headers, body: form }), 'import', 202);
    let job: JobAnswer;
    for (;;) {
      job = await answer<JobAnswer>(await fetch(`${origin}/api/jobs/${jobId}`, { headers }), 'job', 200);
      if (FINISHED.has(job.status)) break;
      if (performance.now() - started > JOB_DEADLINE_MS) throw new Error(`the import job ${jobId} was still ${job.status} after ${JOB_DEADLINE_MS / 1000} s`);
      await sleep(5);
    }
    totalMs.push(performance.now() - started);
    if (job.status !== 'done' || job.done !== 1 || job.failed !== 0) throw new Error(`the import job ended ${job.status}: ${JSON.stringify(job.errors).slice(0, 500)}`);
    jobMs.push(Date.parse(job.finishedAt!) - Date.parse(job.startedAt!));
    // The copy is the newest story: delete it (never the work it was made from).
    const newest = await answer<{ content: Array<{ id: string }> }>(
      await fetch(`${origin}/api/stories?page=0&size=1&sortBy=createdAt&sortDir=desc`, { headers }),
      'newest story',
      200,
    );
    const copy = newest.content[0]?.id;
    if (copy === undefined || copy === storyId) throw new Error('the import made no new story');
    await answer<unknown>(await fetch(`${origin}/api/stories/${copy}`, { method: 'DELETE', headers }), 'delete the copy', 200);
  }
  return { chapters, bytes: book.length, totalMs, jobMs };
}
