/**
 * The import job kinds (docs/decisions.md, "File import"): `import-files` (files uploaded to
 * `DATA_DIR/jobs/<id>/`, removed when the job ends) and `import-folder` (a folder on the server,
 * `npm run import`). Both parse in a worker thread and write one story per step, the story and
 * the job's progress in one transaction, so a resumed job never writes a story twice.
 *
 * First a planning step counts the items (an archive counts as its story entries), then each
 * item is parsed and written in turn. A file that cannot be imported is an entry in the job's
 * errors and the job goes on; so is a story whose source URL is already in the library.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Tx } from '../db/open.js';
import { jobFolder } from '../jobs/folders.js';
import type { ImageStore } from '../images/store.js';
import type { JobContext, JobHandler } from '../jobs/runner.js';
import { insertNewStory } from '../stories/service.js';
import { findStoryIdBySourceUrl } from '../stories/repository.js';
import { storeFileImages } from './file-images.js';
import { formatOf } from './formats.js';
import type { ParsedStory, ParseResult } from './parse.js';
import { ParserPool } from './parser-pool.js';
import { storyInputOf } from './story-input.js';

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

class DuplicateStory extends Error {}

/** The story of one parsed file, written in the step's transaction; a known source URL is refused. */
function writeStory(story: ParsedStory): (tx: Tx) => void {
  const input = storyInputOf(story);
  return (tx) => {
    if (input.sourceUrl !== undefined && input.sourceUrl !== null) {
      const existing = findStoryIdBySourceUrl(tx, input.sourceUrl);
      if (existing !== undefined) throw new DuplicateStory(`skipped: the library already has a story from ${input.sourceUrl} (${existing})`);
    }
    insertNewStory(tx, input, input.title);
  };
}

export function isJobStopped(error: unknown): boolean {
  return error instanceof Error && error.name === 'JobStopped';
}

/**
 * Commits one item's outcome: a story (done) or an error. The file's pictures are stored first
 * (file I/O before the transaction) and removed again when the story is not written.
 */
export async function commitResult<P, S>(context: JobContext<P, S>, images: ImageStore, result: ParseResult, state: S): Promise<void> {
  const fail = (error: string) => context.commit({ state, errors: [{ file: result.file, error }] });
  if ('error' in result) return fail(result.error);
  const { story, stored, refused } = await storeFileImages(images, result.story);
  // A file read with a loss (bytes that were not text in its encoding, NULs, pictures) is imported and says so.
  const losses = [...(story.notes ?? []), ...(refused > 0 ? [`${refused} pictures were not JPEG, PNG or WebP images and were left out`] : [])];
  const notes = losses.map((note) => ({ file: result.file, error: `imported, but ${note}` }));
  try {
    context.commit({ state, done: 1, notes }, writeStory(story));
  } catch (error) {
    for (const relPath of stored) await images.discardUpload(relPath);
    if (isJobStopped(error)) throw error;
    fail(error instanceof Error ? error.message : String(error));
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
  images: ImageStore,
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
      await commitResult(context, images, result, entry < entries.length ? { planned: true, file: state.file, entry } : next);
    }
  }
}

/**
 * The handler of both import kinds; `rootOf` says where a job's paths are relative to (the upload
 * folder, or the imported folder), `cleanUp` what to remove when the job ends; `images` stores
 * the pictures inside the files.
 */
export function importHandler(
  images: ImageStore,
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
            await importArchive(context, images, parser, file, filePath, state);
          } else {
            const result = await parser.parseFile(filePath, file.name, context.signal).catch((error: unknown) => parserFailure(context, file.name, error));
            await commitResult(context, images, result, { planned: true, file: state.file + 1, entry: 0 });
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
export function uploadImportHandler(dataDir: string, images: ImageStore): JobHandler<ImportParams, ImportState> {
  return importHandler(
    images,
    (jobId) => uploadFolder(dataDir, jobId),
    (jobId) => fs.rm(uploadFolder(dataDir, jobId), { recursive: true, force: true }),
  );
}

/** The `import-folder` handler: paths relative to the folder named in the job's params. */
export function folderImportHandler(images: ImageStore): JobHandler<ImportParams, ImportState> {
  return importHandler(images, (_jobId, params) => params.folder as string);
}
