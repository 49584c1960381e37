/**
 * The `import-fanficfare` job (docs/decisions.md, "Sources"): FanFicFare downloads the work at
 * an address into the job's folder as an EPUB, which is then parsed in the file import's parser
 * thread and written exactly as an imported file (src/import/job.ts). A run can take minutes
 * (FanFicFare keeps each site's pace), so it is a job, never a request; the folder goes when the
 * job ends. The story follows the address as FanFicFare was given it (`story_sources`, engine
 * `fanficfare`), written in the import's own transaction: a refresh gives FanFicFare that address
 * again (./refresh.ts).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { commitResult, type ImportDeps } from '../../import/job.js';
import type { ParseResult } from '../../import/parse.js';
import { ParserPool } from '../../import/parser-pool.js';
import { jobFolder } from '../../jobs/folders.js';
import type { JobHandler } from '../../jobs/runner.js';
import type { FanficfareEngine } from './engine.js';

export const IMPORT_FANFICFARE_KIND = 'import-fanficfare';

export interface FanficfareImportParams {
  /** The address as given (an absolute http(s) URL): FanFicFare normalises it its own way per site. */
  url: string;
}

export interface FanficfareImportState {
  done: boolean;
}

/**
 * FanFicFare's download of `address` into `folder`, read by the file import's parser thread, which
 * is taken only once the book is there: a download can run for minutes (FANFICFARE_TIMEOUT_SECONDS),
 * and a thread lent meanwhile could not stop when idle. Throws the download's `FanficfareFailed`;
 * a book that cannot be read is the result's `error`. The import and the refresh both start here.
 */
export async function downloadParsed(engine: FanficfareEngine, address: string, folder: string, signal: AbortSignal): Promise<ParseResult> {
  const book = await engine.download(address, folder, signal);
  const parser = new ParserPool();
  try {
    return await parser.parseFile(book, path.basename(book), signal);
  } finally {
    await parser.close();
  }
}

/** The handler: download, parse, write; a failed download fails the job with FanFicFare's own message. */
export function fanficfareImportHandler(dataDir: string, deps: ImportDeps, engine: FanficfareEngine, checkIntervalHours: number): JobHandler<FanficfareImportParams, FanficfareImportState> {
  return {
    async run(context) {
      if (context.state?.done === true) return;
      const folder = jobFolder(dataDir, context.id);
      // A resumed job starts its download again from an empty folder.
      await fs.rm(folder, { recursive: true, force: true });
      const result = await downloadParsed(engine, context.params.url, folder, context.signal);
      await commitResult(context, deps, result, { done: true }, { engine: 'fanficfare', address: context.params.url, checkIntervalHours });
    },
    async finished(job) {
      await fs.rm(jobFolder(dataDir, job.id), { recursive: true, force: true });
    },
  };
}
