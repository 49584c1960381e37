/**
 * The derived files of the image store (src/images/store.ts, which alone decides every path and
 * calls this with the folder it resolved): thumbnails at `.thumbs/<width>/<kind>/<name>.webp`,
 * written through a temp file in `.incoming/` and a rename, and the metadata-stripped copy of an
 * upload (docs/decisions.md, "Thumbnails and image metadata"). The sharp work itself is in
 * src/images/thumbnails.ts.
 */
import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { WarnLog } from '../lib/warn-log.js';
import { THUMBNAIL_FORMATS, THUMBNAIL_WIDTHS, type ThumbnailFormat, type ThumbnailWidth } from '../schemas/files.js';
import { exists } from './files.js';
import type { ImageFormat } from './formats.js';
import { IMAGE_KINDS, type ImagePath } from './image-path.js';
import { createRenderQueue, renderThumbnail, stripMetadata, THUMBNAIL_EXTENSIONS, THUMBS_DIR } from './thumbnails.js';

export class ThumbnailFiles {
  /** Every sharp job of this store waits its turn here. */
  readonly #renders = createRenderQueue();

  constructor(
    /** The images folder, symlinks resolved. */
    private readonly root: string,
    /** Where temp files are written: the store's `.incoming/`, swept at startup once stale. */
    private readonly incoming: string,
    private readonly log: WarnLog,
  ) {}

  /** Where the `width` thumbnail of `image` in `format` lives. */
  file(image: ImagePath, width: ThumbnailWidth, format: ThumbnailFormat = 'webp'): string {
    return path.join(this.root, THUMBS_DIR, String(width), image.kind, `${image.name}${THUMBNAIL_EXTENSIONS[format]}`);
  }

  /**
   * Writes one thumbnail of the original at `real` through a temp file and a rename, so a
   * reader never sees half of one. Returns false (and logs) when libvips cannot decode it.
   */
  async write(real: string, image: ImagePath, width: ThumbnailWidth, format: ThumbnailFormat = 'webp'): Promise<boolean> {
    const temp = path.join(this.incoming, `${randomUUID()}.thumb`);
    try {
      await renderThumbnail(this.#renders, real, temp, width, format);
      const target = this.file(image, width, format);
      // Recreated if someone removed the folder while the service runs (it is derived data).
      await fsp.mkdir(path.dirname(target), { recursive: true });
      await fsp.rename(temp, target);
      return true;
    } catch (error) {
      await fsp.rm(temp, { force: true }).catch(() => undefined);
      this.log.warn({ err: error, relPath: image.relPath, width }, 'could not make a thumbnail');
      return false;
    }
  }

  /** Both thumbnails of a just-stored image; failures are logged (first request retries). */
  async writeAll(image: ImagePath): Promise<void> {
    const real = path.join(this.root, image.kind, image.name);
    await Promise.all(THUMBNAIL_WIDTHS.map((width) => this.write(real, image, width)));
  }

  /** Deletes the thumbnails of `image` (derived, so not trashed). Never throws; logs. */
  async remove(image: ImagePath): Promise<void> {
    for (const [width, format] of THUMBNAIL_WIDTHS.flatMap((w) => THUMBNAIL_FORMATS.map((f) => [w, f] as const))) {
      await fsp.rm(this.file(image, width, format), { force: true }).catch((error: unknown) => this.log.warn({ err: error, relPath: image.relPath, width }, 'could not remove a thumbnail'));
    }
  }

  /**
   * Replaces the complete upload at `tempPath` by a copy without EXIF, XMP or IPTC metadata when
   * it has any (src/images/thumbnails.ts, `stripMetadata`), fsynced like the upload itself.
   * False (logged) when libvips cannot read it: the store answers 415.
   */
  async stripUploadMetadata(tempPath: string, format: ImageFormat): Promise<boolean> {
    const stripped = path.join(this.incoming, `${randomUUID()}.strip`);
    try {
      if (!(await stripMetadata(this.#renders, tempPath, stripped, format))) return true;
      const handle = await fsp.open(stripped, 'r+');
      await handle.sync().finally(() => handle.close());
      await fsp.rename(stripped, tempPath);
      return true;
    } catch (error) {
      await fsp.rm(stripped, { force: true }).catch(() => undefined);
      this.log.warn({ err: error }, 'could not read an upload to strip its metadata');
      return false;
    }
  }

  /**
   * Part of the startup sweep: deletes every thumbnail whose original is no longer in
   * `covers/` or `avatars/` (removed by a crash between the two, or trashed by the sweep just
   * now) and every folder of a width no longer made. Thumbnails of kept images stay.
   */
  async sweep(): Promise<void> {
    const widths = new Set<string>(THUMBNAIL_WIDTHS.map(String));
    for (const folder of await fsp.readdir(path.join(this.root, THUMBS_DIR))) {
      const dir = path.join(this.root, THUMBS_DIR, folder);
      try {
        if (!widths.has(folder)) {
          await fsp.rm(dir, { recursive: true, force: true });
          continue;
        }
        for (const kind of IMAGE_KINDS) {
          for (const entry of await fsp.readdir(path.join(dir, kind))) {
            const extension = Object.values(THUMBNAIL_EXTENSIONS).find((ext) => entry.endsWith(ext));
            const original = extension === undefined ? '' : entry.slice(0, -extension.length);
            if (original !== '' && (await exists(path.join(this.root, kind, original), true))) continue;
            await fsp.rm(path.join(dir, kind, entry), { force: true, recursive: true });
          }
        }
      } catch (error) {
        this.log.warn({ err: error, dir }, 'could not sweep thumbnails');
      }
    }
  }
}
