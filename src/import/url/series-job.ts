/**
 * The `import-series` job kind (docs/decisions.md, "Sources"): each work of an otwarchive
 * series imported whole, one step per work, through the site queue like every fetch, filed under
 * the series with its part as the volume. A work already in the library is listed as a remark and
 * left alone; a work that cannot be imported (restricted, too many chapters) is an error and the
 * job goes on with the next. Each new story is committed with the job's progress.
 */
import { HttpError } from '../../errors.js';
import type { JobHandler } from '../../jobs/runner.js';
import { heldWorkOf, type SeriesImportParams, type UrlImportDeps } from './service.js';
import { prepareWorkStory } from './source-import.js';
import { readAddress } from './source.js';

export const IMPORT_SERIES_KIND = 'import-series';

/** At most this many pictures per work, as an ordinary page (docs/decisions.md, "URL import"). */
const MAX_IMAGES = 50;

interface SeriesImportState {
  next: number;
}

function reason(error: unknown): string {
  if (error instanceof HttpError) return error.details?.url === undefined ? error.message : `${error.message}: the address ${error.details.url}`;
  return error instanceof Error ? error.message : String(error);
}

/** The handler, over the app's URL import parts. */
export function seriesImportHandler(deps: UrlImportDeps): JobHandler<SeriesImportParams, SeriesImportState> {
  return {
    async run(context) {
      const { works, seriesUrl } = context.params;
      for (let next = context.state?.next ?? 0; next < works.length; next += 1) {
        if (context.signal.aborted) return;
        const address = works[next] as string;
        const state = { state: { next: next + 1 }, total: works.length };
        let read;
        try {
          read = await readAddress(deps, new URL(address), MAX_IMAGES);
          if (read.kind !== 'work') throw new HttpError(422, 'Not an archive work', { url: 'is listed in the series but is not a work page' });
        } catch (error) {
          context.commit({ ...state, errors: [{ file: address, error: reason(error) }] });
          continue;
        }
        const { work, prepared } = read;
        await deps.locks.run(work.url, async () => {
          const held = heldWorkOf(deps.db, work);
          if (held !== undefined) {
            context.commit({ ...state, done: 1, notes: [{ file: address, error: `already in the library (story ${held}); left as it is` }] });
            return;
          }
          const story = await prepareWorkStory(deps, work, prepared, seriesUrl);
          try {
            context.commit({ ...state, done: 1 }, (tx) => void story.write(tx));
          } catch (error) {
            await story.discard();
            throw error;
          }
        });
      }
    },
  };
}
