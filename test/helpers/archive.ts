/**
 * Library archives in tests (docs/export-format.md): download one, read its entries back, upload
 * one and wait for its restore, and build hostile ones by hand.
 */
import yauzl from 'yauzl';
import yazl from 'yazl';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION } from '../../src/schemas/archive.js';
import type { TestContext } from './app.js';
import { multipart } from './multipart.js';

/** A valid `manifest.json` for a hand-built archive, with these entry counts (the rest 0). */
export function manifestJson(counts: Partial<Record<'authors' | 'series' | 'tags' | 'stories' | 'progress' | 'images', number>>): string {
  return JSON.stringify({
    format: ARCHIVE_FORMAT,
    version: ARCHIVE_VERSION,
    app: { name: 'storyshelf', version: 'test' },
    createdAt: '2026-11-24T00:00:00.000Z',
    counts: { authors: 0, series: 0, tags: 0, stories: 0, progress: 0, images: 0, ...counts },
    missingImages: [],
  });
}

/** Every entry of a ZIP by name: JSON entries parsed, `.jsonl` entries as arrays, others as bytes. */
export async function readArchive(bytes: Buffer): Promise<Map<string, unknown>> {
  const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true });
  const entries = new Map<string, unknown>();
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    const data = Buffer.concat(chunks);
    if (entry.fileName.endsWith('.json')) entries.set(entry.fileName, JSON.parse(data.toString('utf8')));
    else if (entry.fileName.endsWith('.jsonl')) entries.set(entry.fileName, data.toString('utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as unknown));
    else entries.set(entry.fileName, data);
  }
  return entries;
}

export async function exportArchive(ctx: TestContext): Promise<Buffer> {
  const res = await ctx.get('/api/export');
  if (res.statusCode !== 200) throw new Error(`export failed: ${res.statusCode} ${res.body}`);
  return res.rawPayload;
}

/** The job of a restore, as `GET /api/jobs/{id}` shows it. */
export interface JobView {
  status: string;
  total: number;
  done: number;
  failed: number;
  errors: { file: string; error: string }[];
}

/** Uploads an archive; returns the raw answer (202 with a job id, or an error). */
export function uploadArchive(ctx: TestContext, bytes: Buffer) {
  const body = multipart([{ name: 'file', data: bytes, filename: 'library.zip', contentType: 'application/zip' }]);
  return ctx.request({ method: 'POST', url: '/api/import/archive', payload: body.payload, headers: body.headers });
}

/** Uploads an archive and waits (up to 60 s) for its restore to finish. */
export async function restoreArchive(ctx: TestContext, bytes: Buffer): Promise<JobView> {
  const res = await uploadArchive(ctx, bytes);
  if (res.statusCode !== 202) throw new Error(`restore upload failed: ${res.statusCode} ${res.body}`);
  const { jobId } = res.json() as { jobId: string };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const job = (await ctx.get(`/api/jobs/${jobId}`)).json() as JobView;
    if (job.status === 'done' || job.status === 'failed' || job.status === 'cancelled') return job;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the restore did not finish in 60 s');
}

/** A ZIP of these entries; names are written as given (even `../x`), which yazl itself refuses. */
export async function zipOf(entries: Record<string, string | Buffer>, options: { symlink?: string } = {}): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const renames: [Buffer, Buffer][] = [];
  let n = 0;
  for (const [name, data] of Object.entries(entries)) {
    // A placeholder of the same byte length, replaced in the finished bytes.
    const placeholder = `p${String(n++).padStart(Buffer.byteLength(name) - 1, '0')}`;
    const safe = /(^\/)|(^|\/)\.\.(\/|$)/.test(name) ? placeholder : name;
    if (safe !== name) renames.push([Buffer.from(placeholder), Buffer.from(name)]);
    const mode = options.symlink === name ? 0o120777 : 0o100644;
    zip.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data), safe, { mtime: new Date(0), mode });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  for (const [from, to] of renames) {
    for (let at = bytes.indexOf(from); at !== -1; at = bytes.indexOf(from, at + 1)) to.copy(bytes, at);
  }
  return bytes;
}
