/**
 * The import job kinds (docs/decisions.md, "File import"): `import-files` (files uploaded to
 * `DATA_DIR/jobs/<id>/`, removed when the job ends) and `import-folder` (a folder on the server,
 * `npm run import`). Both parse in a worker thread and write one story per step, the story and
 * the job's progress in one transaction, so a resumed job never writes a story twice.
 *
 * First a planning step counts the items (an archive counts as its story entries), then each
 * item is parsed and written in turn. A file that cannot be imported is an entry in the job's
 * errors and the job goes on. A file of a work the library holds updates that story
 * (./file-write.ts), and the job's result says what changed.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../db/open.js';
import { releaseImages } from '../images/image-changes.js';
import type { ImageStore } from '../images/store.js';
import { jobFolder } from '../jobs/folders.js';
import type { JobContext, JobHandler } from '../jobs/runner.js';
import { storeFileImages } from './file-images.js';
import { describeWrite, writeImportedStory, type ImportOrigin, type ImportWrite } from './file-write.js';
import { formatOf } from './formats.js';
import type { ParsedStory, ParseResult } from './parse.js';
import { ParserPool } from './parser-pool.js';

export const IMPORT_FILES_KIND = 'import-files';
export const IMPORT_FOLDER_KIND = 'import-folder';

/** Archive entries parsed per worker request: the archive is opened once for each batch. */
const ENTRY_BATCH = 20;

/** One file to import: `name` is what errors show, `path` where it is, relative to the job's root. */
export interface ImportFile {
  name: string;
  path: string;
}

export interface ImportParams {
  files: ImportFile[];
  /** `import-folder` only: the absolute folder the paths are relative to. */
  folder?: string;
}

/** Where to resume: the file, and inside an archive the entry, to do next. */
export interface ImportState {
  planned: boolean;
  file: number;
  entry: number;
}

/** The folder of an upload job's files. */
export const uploadFolder = jobFolder;

export function isJobStopped(error: unknown): boolean {
  return error instanceof Error && error.name === 'JobStopped';
}

/** What writing a story needs besides the transaction: the database (to release images after it) and the image store. */
export interface ImportDeps {
  db: Db;
  images: ImageStore;
}

/**
 * Writes a parsed story with its pictures: they are stored first (file I/O before the
 * transaction), `write` runs the caller's transaction with the story as stored (and how many
 * pictures the store refused), the pictures are removed again when it throws or when the
 * chapter naming them was left as it was, and after the commit the pictures replaced chapters no
 * longer name are released. Rethrows `write`'s error.
 */
export async function writeWithPictures(deps: ImportDeps, parsed: ParsedStory, write: (story: ParsedStory, refused: number) => ImportWrite): Promise<ImportWrite> {
  const { story, stored, refused } = await storeFileImages(deps.images, parsed);
  let written: ImportWrite;
  try {
    written = write(story, refused);
  } catch (error) {
    for (const relPath of stored) await deps.images.discardUpload(relPath);
    throw error;
  }
  const named = new Set(written.named);
  for (const relPath of stored) if (!named.has(relPath)) await deps.images.discardUpload(relPath);
  await releaseImages(deps.db, deps.images, written.released);
  return written;
}

/**
 * Commits one item's outcome: a story, new or updated (done), or an error, through
 * {@link writeWithPictures}. What an update changed is said in the job's result.
 */
export async function commitResult<P, S>(context: JobContext<P, S>, deps: ImportDeps, result: ParseResult, state: S, origin: ImportOrigin = { engine: 'file' }): Promise<void> {
  const fail = (error: string) => context.commit({ state, errors: [{ file: result.file, error }] });
  if ('error' in result) return fail(result.error);
  try {
    await writeWithPictures(deps, result.story, (story, refused) => {
      // A file read with a loss (bytes that were not text in its encoding, NULs, pictures) is imported and says so.
      const losses = [...(story.notes ?? []), ...(refused > 0 ? [`${refused} pictures were not JPEG, PNG or WebP images and were left out`] : [])];
      const notes = losses.map((note) => ({ file: result.file, error: `imported, but ${note}` }));
      let write: ImportWrite | undefined;
      context.commit({ state, done: 1, notes }, (tx) => {
        write = writeImportedStory(tx, story, origin);
        const said = describeWrite(write);
        return said === '' ? [] : [{ file: result.file, error: said }];
      });
      return write as ImportWrite;
    });
  } catch (error) {
    if (isJobStopped(error)) throw error;
    return fail(error instanceof Error ? error.message : String(error));
  }
}

/** A parser that crashed or timed out fails the item it was on; a stopped job stops. */
function parserFailure(context: JobContext<ImportParams, ImportState>, file: string, error: unknown): ParseResult {
  if (isJobStopped(error) || context.signal.aborted) throw error;
  return { file, error: error instanceof Error ? error.message : String(error) };
}

async function countItems(parser: ParserPool, files: readonly ImportFile[], root: string, signal: AbortSignal): Promise<number> {
  let total = 0;
  for (const file of files) {
    if (signal.aborted) throw signal.reason;
    if (formatOf(file.name) !== 'zip') total += 1;
    else total += Math.max(1, (await parser.listArchive(path.join(root, file.path), signal).catch(() => [])).length);
  }
  return total;
}

/** One archive's entries from `state.entry` on; the archive's own failure is one error. */
async function importArchive(
  context: JobContext<ImportParams, ImportState>,
  deps: ImportDeps,
  parser: ParserPool,
  file: ImportFile,
  filePath: string,
  state: ImportState,
): Promise<void> {
  const next: ImportState = { planned: true, file: state.file + 1, entry: 0 };
  let entries: string[];
  try {
    entries = await parser.listArchive(filePath, context.signal);
  } catch (error) {
    if (isJobStopped(error) || context.signal.aborted) throw error;
    return context.commit({ state: next, errors: [{ file: file.name, error: (error as Error).message }] });
  }
  if (entries.length === 0) return context.commit({ state: next, errors: [{ file: file.name, error: 'the archive holds no story files' }] });
  for (let start = state.entry; start < entries.length; start += ENTRY_BATCH) {
    const batch = entries.slice(start, start + ENTRY_BATCH);
    const results = await parser
      .parseEntries(filePath, file.name, batch, context.signal)
      .catch((error: unknown) => batch.map((name) => parserFailure(context, `${file.name}/${name}`, error)));
    for (const [index, result] of results.entries()) {
      const entry = start + index + 1;
      await commitResult(context, deps, result, entry < entries.length ? { planned: true, file: state.file, entry } : next);
    }
  }
}

/**
 * The handler of both import kinds; `rootOf` says where a job's paths are relative to (the upload
 * folder, or the imported folder), `cleanUp` what to remove when the job ends; `deps` store
 * the pictures inside the files.
 */
export function importHandler(
  deps: ImportDeps,
  rootOf: (jobId: string, params: ImportParams) => string,
  cleanUp: (jobId: string) => Promise<void> = async () => {},
): JobHandler<ImportParams, ImportState> {
  return {
    async run(context) {
      const parser = new ParserPool();
      const root = rootOf(context.id, context.params);
      const { files } = context.params;
      try {
        let state = context.state ?? { planned: false, file: 0, entry: 0 };
        if (!state.planned) {
          state = { planned: true, file: 0, entry: 0 };
          context.commit({ state, total: await countItems(parser, files, root, context.signal) });
        }
        while (state.file < files.length) {
          if (context.signal.aborted) return;
          const file = files[state.file] as ImportFile;
          const filePath = path.join(root, file.path);
          if (formatOf(file.name) === 'zip') {
            await importArchive(context, deps, parser, file, filePath, state);
          } else {
            const result = await parser.parseFile(filePath, file.name, context.signal).catch((error: unknown) => parserFailure(context, file.name, error));
            await commitResult(context, deps, result, { planned: true, file: state.file + 1, entry: 0 });
          }
          state = context.state as ImportState;
        }
      } finally {
        await parser.close();
      }
    },
    async finished(job) {
      await cleanUp(job.id);
    },
  };
}

/** The `import-files` handler: files under `DATA_DIR/jobs/<id>/`, the folder removed when the job ends. */
export function uploadImportHandler(dataDir: string, deps: ImportDeps): JobHandler<ImportParams, ImportState> {
  return importHandler(
    deps,
    (jobId) => uploadFolder(dataDir, jobId),
    (jobId) => fs.rm(uploadFolder(dataDir, jobId), { recursive: true, force: true }),
  );
}

/** The `import-folder` handler: paths relative to the folder named in the job's params. */
export function folderImportHandler(deps: ImportDeps): JobHandler<ImportParams, ImportState> {
  return importHandler(deps, (_jobId, params) => params.folder as string);
}
