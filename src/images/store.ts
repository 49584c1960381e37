/**
 * The image store: the only code that joins paths under `DATA_DIR/images` (docs/architecture.md,
 * "Ten habits", 9).
 *
 * Layout: `images/covers/<uuid>.<ext>`, `images/avatars/<uuid>.<ext>`, `images/inline/<uuid>.<ext>`
 * (images inside imported story bodies, src/images/inline-images.ts), `images/.incoming/`
 * for uploads in progress and `images/.trash/<covers|avatars>/` for removed images. An upload
 * streams into `.incoming/` (same file system, so the final rename is atomic) while its bytes are
 * counted and structure-checked; only a complete, valid image of at most 5 MiB is fsynced and
 * renamed into place. Any failure removes the temp file, so a failed or aborted upload leaves
 * the folders as they were (docs/decisions.md, "Images").
 *
 * Removing an image that a committed row may have named moves it into `.trash/` (a rename on
 * the same file system) rather than unlinking it: an online backup copies the images its
 * database snapshot references, from `images/` or else from `.trash/` (src/backup/snapshot.ts),
 * so an image removed between the snapshot and the copy is still found. Trash entries are purged
 * after {@link TRASH_RETENTION_MS}. Neither `.incoming/` nor `.trash/` is ever served: the path
 * guard admits only `covers/` and `avatars/`.
 *
 * An image lives in `covers/` or `avatars/` only while a row names it, or while it waits to be
 * attached: an upload through `/api/files/upload/*` is recorded by an empty marker
 * `.unattached/<kind>/<name>` until a `coverPath` / `avatarImagePath` names it. A crash between
 * storing a file and committing the row that names it, or between a commit and moving the
 * replaced file to the trash, leaves a file that is neither; {@link ImageStore.sweepUnreferenced}
 * moves those to the trash at startup.
 *
 * Thumbnails are derived files, `.thumbs/<width>/<kind>/<name>.webp` (src/images/thumbnail-files.ts
 * keeps them, src/images/thumbnails.ts makes them): written after an upload is stored, again on first request when missing, deleted
 * outright (not trashed) with their original, and never backed up (docs/decisions.md,
 * "Thumbnails and image metadata"). An upload carrying EXIF, XMP or IPTC metadata is stored as a
 * copy without it.
 *
 * Every user-supplied path goes through two guards: the text guard (image-path.ts) and, here,
 * the disk guard: the name must resolve (symlinks followed) to a file inside `covers/` or
 * `avatars/` of the real images folder, and is then opened with O_NOFOLLOW.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { invalidField, NotFound } from '../errors.js';
import type { WarnLog } from '../lib/warn-log.js';
import { THUMBNAIL_WIDTHS, type ThumbnailFormat, type ThumbnailWidth } from '../schemas/files.js';
import { FORMATS, type ImageFormat } from './formats.js';
import { IMAGE_KINDS, parseImagePath, parseImagePathOf, type ImageKind, type ImagePath } from './image-path.js';
import { KeyedLock } from '../lib/keyed-lock.js';
import { exists, isMissing, openServable, syncDirectory, type OpenedImage } from './files.js';
import { notAnImage, receiveImage } from './receive.js';

export { imageTooLarge, MAX_IMAGE_BYTES, notAnImage } from './receive.js';
import { ThumbnailFiles } from './thumbnail-files.js';
import { THUMBS_DIR } from './thumbnails.js';


/** The folder for uploads in progress, inside the images folder. */
export const INCOMING_DIR = '.incoming';

/**
 * The folder removed images wait in (`.trash/covers/`, `.trash/avatars/`), inside the images
 * folder, where {@link findStoredImage} looks for an image a backup or an export still needs.
 */
export const TRASH_DIR = '.trash';

/**
 * The folder of markers for uploads waiting to be attached (`.unattached/<kind>/<name>`), and
 * the file that says the markers are complete (written by the first sweep, see
 * {@link ImageStore.sweepUnreferenced}).
 */
export const UNATTACHED_DIR = '.unattached';
const MARKERS_COMPLETE = '.complete';

/** Temp files older than this are leftovers of a crash and are swept at startup. */
const STALE_UPLOAD_MS = 60 * 60 * 1000;

/**
 * How long a removed image stays in the trash: far longer than any online backup takes to copy
 * the images of its snapshot, short enough that removed images do not pile up.
 */
export const TRASH_RETENTION_MS = 60 * 60 * 1000;

/** The images folder inside a data folder, and inside a backup laid out like one. */
const IMAGES_DIR = 'images';

/** The images folder of data folder `dataDir`: what {@link ImageStore.open} is given. */
export function imagesFolderOf(dataDir: string): string {
  return path.join(dataDir, IMAGES_DIR);
}

/**
 * The file of stored image `relPath` under `imagesDir`, or in its trash when it was removed
 * since; undefined when neither holds a regular file or the path fails the guard. For code that
 * copies what a database snapshot names without an open store (the online backup, the archive
 * export): an image removed after the snapshot is still found. lstat, so a link is never followed
 * out of the data folder. Synchronous: one lstat or two per image.
 */
export function findStoredImage(imagesDir: string, relPath: string): string | undefined {
  let checked: string;
  try {
    checked = parseImagePath(relPath).relPath;
  } catch {
    return undefined;
  }
  for (const candidate of [path.join(imagesDir, checked), path.join(imagesDir, TRASH_DIR, checked)]) {
    if (fs.lstatSync(candidate, { throwIfNoEntry: false })?.isFile() === true) return candidate;
  }
  return undefined;
}

/**
 * Lays out the image folders of a copy of the library (a backup's `images/` under `dataDir`) and
 * returns where a stored image goes in it; `relPath` must pass the guard (400 otherwise).
 */
export function imageCopyFolder(dataDir: string): (relPath: string) => string {
  const root = imagesFolderOf(dataDir);
  for (const kind of IMAGE_KINDS) fs.mkdirSync(path.join(root, kind), { recursive: true });
  return (relPath) => path.join(root, parseImagePath(relPath).relPath);
}

/** The part of a multipart file part the store reads: its stream and its field name. */
export interface UploadedPart {
  readonly fieldname: string;
  /** Busboy's stream; `truncated` is set when the parser's own size limit cut it off. */
  readonly file: Readable & { truncated?: boolean };
}


function imageNotFound(relPath: string): NotFound {
  return new NotFound(`Image not found: ${relPath}`);
}

export class ImageStore {
  readonly #locks = new KeyedLock();
  readonly #thumbs: ThumbnailFiles;

  private constructor(
    /** The images folder with symlinks resolved; every path the store touches starts here. */
    readonly root: string,
    private readonly log: WarnLog,
  ) {
    this.#thumbs = new ThumbnailFiles(root, path.join(root, INCOMING_DIR), log);
  }

  /**
   * Creates `covers/`, `avatars/`, `.incoming/`, `.trash/<kind>/`, `.unattached/<kind>/` and
   * `.thumbs/<width>/<kind>/` if needed, refuses to start
   * when any of them is not a real directory (a symlink there would let writes or removals leave
   * the folder), sweeps temp files a crash left behind and purges expired trash.
   */
  static async open(imagesDir: string, log: WarnLog): Promise<ImageStore> {
    await fsp.mkdir(imagesDir, { recursive: true });
    const root = await fsp.realpath(imagesDir);
    const trashFolders = IMAGE_KINDS.map((kind) => path.join(TRASH_DIR, kind));
    const markerFolders = IMAGE_KINDS.map((kind) => path.join(UNATTACHED_DIR, kind));
    const thumbFolders = THUMBNAIL_WIDTHS.flatMap((width) => [path.join(THUMBS_DIR, String(width)), ...IMAGE_KINDS.map((kind) => path.join(THUMBS_DIR, String(width), kind))]);
    for (const folder of [...IMAGE_KINDS, INCOMING_DIR, TRASH_DIR, ...trashFolders, UNATTACHED_DIR, ...markerFolders, THUMBS_DIR, ...thumbFolders]) {
      const dir = path.join(root, folder);
      await fsp.mkdir(dir, { recursive: true });
      const stat = await fsp.lstat(dir);
      if (!stat.isDirectory()) throw new Error(`${dir} must be a directory, not a link or a file`);
    }
    const store = new ImageStore(root, log);
    await store.sweepIncoming(STALE_UPLOAD_MS);
    await store.purgeTrash(TRASH_RETENTION_MS);
    return store;
  }

  /**
   * Runs `task` while no other task holding the same image path runs (in this process). The
   * image changes hold a path from "is it referenced / does it exist" to the removal or commit
   * that depends on the answer, so a release can never remove a file a concurrent request has
   * just attached (src/images/image-changes.ts).
   */
  exclusively<T>(relPath: string, task: () => Promise<T>): Promise<T> {
    return this.#locks.run(relPath, task);
  }

  /**
   * Streams one multipart file part into `<kind>/<uuid>.<ext>` and returns that relative path.
   * The part's stream is always read to its end (what follows a failure is discarded, not
   * kept), so the client gets the error rather than a reset connection. An image carrying
   * metadata is replaced by a copy without it before the rename; the thumbnails are written
   * after it (a failure there is logged: they are made again on first request). Throws 415 (not
   * a complete JPEG, PNG or WebP, or one with metadata that libvips cannot read), 413 (over {@link MAX_IMAGE_BYTES}), or the stream's own error
   * for an aborted request; in every failure case nothing is left on disk.
   */
  async saveUploadedImage(part: UploadedPart, kind: ImageKind): Promise<string> {
    const field = part.fieldname;
    const { tempPath, format } = await receiveImage(part.file, this.#incomingPath(), field, this.log);
    try {
      await this.#stripMetadata(tempPath, format, field);
      const name = `${randomUUID()}.${FORMATS[format].ext}`;
      await fsp.rename(tempPath, path.join(this.root, kind, name));
      await syncDirectory(path.join(this.root, kind));
      await this.#thumbs.writeAll({ kind, name, relPath: `${kind}/${name}` });
      return `${kind}/${name}`;
    } catch (error) {
      await this.#removeTemp(tempPath);
      throw error;
    }
  }

  /**
   * Stores an image under the name it had in another library (a library archive's
   * `images/<kind>/<name>`, docs/decisions.md, "Library archive"): the path guard, then the same
   * checks and metadata stripping as an upload, and the name's extension must match the bytes'
   * format (400 otherwise). An image already stored under that name is kept as it is (stored names
   * are never reused, so it is the same image): `exists`. A stored image waits as unattached
   * until a row names it, so the startup sweep keeps it; an image only story HTML names keeps
   * waiting, as an inline upload does. Nothing is left on disk on failure.
   */
  async restoreImage(rawPath: string, stream: Readable): Promise<'stored' | 'exists'> {
    const image = parseImagePath(rawPath);
    const { tempPath, format } = await receiveImage(stream, this.#incomingPath(), 'file', this.log);
    try {
      await this.#stripMetadata(tempPath, format, 'file');
      if (FORMATS[format].ext !== path.extname(image.name).slice(1)) throw invalidField('file', `holds a ${FORMATS[format].ext} image, not what its name says`);
      const outcome = await this.exclusively(image.relPath, async () => {
        if ((await this.resolve(image, 'path')) !== undefined) return 'exists' as const;
        await fsp.rename(tempPath, path.join(this.root, image.kind, image.name));
        await syncDirectory(path.join(this.root, image.kind));
        await this.markUnattached(image.relPath);
        return 'stored' as const;
      });
      if (outcome === 'exists') await this.#removeTemp(tempPath);
      return outcome;
    } catch (error) {
      await this.#removeTemp(tempPath);
      throw error;
    }
  }

  /** Replaces a received image that carries metadata by a copy without it (415 when libvips cannot read it). */
  async #stripMetadata(tempPath: string, format: ImageFormat, field: string): Promise<void> {
    if (!(await this.#thumbs.stripUploadMetadata(tempPath, format))) throw notAnImage(field);
  }

  /** A new temp file name in `.incoming/` (same file system as the image folders: renames are atomic). */
  #incomingPath(): string {
    return path.join(this.root, INCOMING_DIR, `${randomUUID()}.upload`);
  }

  async #removeTemp(tempPath: string): Promise<void> {
    await fsp.rm(tempPath, { force: true }).catch((cause: unknown) => this.log.warn({ err: cause, tempPath }, 'could not remove a failed upload'));
  }

  /**
   * Opens a stored image for serving: the path guard (400), then 404 when there is no such
   * regular file or its bytes are not an image the store would have written.
   */
  async openImage(rawPath: unknown, field = 'path'): Promise<OpenedImage> {
    const image = parseImagePath(rawPath, field);
    const real = await this.resolve(image, field);
    if (real === undefined) throw imageNotFound(image.relPath);
    const opened = await openServable(real, image.relPath, image.name);
    if (opened === undefined) throw imageNotFound(image.relPath);
    return opened;
  }

  /**
   * Opens the `width` thumbnail of a stored image for serving (docs/api.md, "Images —
   * /api/files"): the same guards as {@link openImage} on the original's path (400), 404 when the
   * original is not there. A missing thumbnail (an image stored before thumbnails existed, or
   * one whose thumbnail was deleted) is made now, holding the original's path so a concurrent
   * removal cannot leave a thumbnail behind. An original libvips cannot decode is 404, never a
   * 500. The ETag names the width, so it never matches the original's.
   */
  async openThumbnail(rawPath: unknown, width: ThumbnailWidth, format: ThumbnailFormat = 'webp', field = 'path'): Promise<OpenedImage> {
    const image = parseImagePath(rawPath, field);
    if ((await this.resolve(image, field)) === undefined) throw imageNotFound(image.relPath);
    const file = this.#thumbs.file(image, width, format);
    const tag = format === 'webp' ? `${image.name}-w${width}` : `${image.name}-w${width}-${format}`;
    const ready = await openServable(file, image.relPath, tag);
    if (ready !== undefined) return ready;
    await this.exclusively(image.relPath, async () => {
      const real = await this.resolve(image, field);
      if (real === undefined) throw imageNotFound(image.relPath);
      if (await exists(file)) return;
      if (!(await this.#thumbs.write(real, image, width, format))) throw new NotFound(`Image not found: ${image.relPath} cannot be decoded`);
    });
    const made = await openServable(file, image.relPath, tag);
    if (made === undefined) throw imageNotFound(image.relPath);
    return made;
  }

  /**
   * For `coverPath` / `avatarImagePath` in request bodies (docs/decisions.md, "Images"): the path must
   * pass the guard, lie under `kind`'s folder and name an existing file; else 400 on `field`.
   * Returns the path as it is to be stored.
   */
  async assertStoredImage(kind: ImageKind, rawPath: unknown, field: string): Promise<string> {
    const image = parseImagePathOf(kind, rawPath, field);
    const real = await this.resolve(image, field);
    const stat = real === undefined ? undefined : await fsp.stat(real).catch(() => undefined);
    if (stat === undefined || !stat.isFile()) throw invalidField(field, 'must name an uploaded image');
    return image.relPath;
  }

  /**
   * Removes the stored file a relative path names from `covers/` or `avatars/` by moving it to
   * `.trash/<kind>/<name>` (the directory entry itself: a link is moved, never its target) and
   * stamping it with the time of removal, from which the trash retention counts. Returns false
   * when there was no such file. 400 for a path the guards refuse, before anything is touched.
   */
  async removeImage(rawPath: unknown, field = 'path'): Promise<boolean> {
    const image = parseImagePath(rawPath, field);
    if ((await this.resolve(image, field)) === undefined) return false;
    const trashed = path.join(this.root, TRASH_DIR, image.kind, image.name);
    try {
      await fsp.rename(path.join(this.root, image.kind, image.name), trashed);
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
    const now = new Date();
    await fsp.lutimes(trashed, now, now).catch((error: unknown) => this.log.warn({ err: error, trashed }, 'could not stamp a trashed image'));
    await this.#thumbs.remove(image);
    await this.clearUnattached(image.relPath);
    return true;
  }

  /**
   * Records that the stored image `relPath` waits to be attached (an upload through
   * `/api/files/upload/*`), so the startup sweep keeps it though no row names it yet.
   */
  async markUnattached(relPath: string): Promise<void> {
    const image = parseImagePath(relPath);
    await fsp.writeFile(this.markerPath(image), '', { flag: 'w' });
  }

  /** Forgets the marker of {@link markUnattached} (attached, or removed). Never throws; logs. */
  async clearUnattached(relPath: string): Promise<void> {
    try {
      await fsp.rm(this.markerPath(parseImagePath(relPath)), { force: true });
    } catch (error) {
      this.log.warn({ err: error, relPath }, 'could not clear an unattached-upload marker');
    }
  }

  /**
   * Run once at startup, before any request: moves to the trash every entry of `covers/` and
   * `avatars/` that no row names (`isReferenced`) and that no marker says waits to be attached:
   * leftovers of a crash between storing an upload and committing its row, or between a commit
   * and the removal of the file it replaced. Markers whose image is gone or named by a row are
   * dropped. The first sweep of a data folder that has no complete set of markers yet (one
   * written before markers existed) adopts every unreferenced image as waiting instead of
   * removing it. Returns the trashed paths.
   */
  async sweepUnreferenced(isReferenced: (relPath: string) => boolean): Promise<string[]> {
    const complete = path.join(this.root, UNATTACHED_DIR, MARKERS_COMPLETE);
    const adopting = !(await exists(complete));
    const trashed: string[] = [];
    for (const kind of IMAGE_KINDS) {
      const waiting = new Set<string>();
      for (const name of await fsp.readdir(path.join(this.root, UNATTACHED_DIR, kind))) {
        const relPath = `${kind}/${name}`;
        if (!(await exists(path.join(this.root, kind, name), true)) || isReferenced(relPath)) await this.clearUnattached(relPath);
        else waiting.add(name);
      }
      for (const entry of await fsp.readdir(path.join(this.root, kind), { withFileTypes: true })) {
        const name = entry.name;
        const relPath = `${kind}/${name}`;
        try {
          // The entry's own type, as lstat would give it (a symlink is not a directory here).
          if (waiting.has(name) || entry.isDirectory() || isReferenced(relPath)) continue;
          if (adopting) {
            await fsp.writeFile(path.join(this.root, UNATTACHED_DIR, kind, name), '');
            continue;
          }
          const target = path.join(this.root, TRASH_DIR, kind, name);
          await fsp.rename(path.join(this.root, kind, name), target);
          const now = new Date();
          await fsp.lutimes(target, now, now).catch(() => undefined);
          trashed.push(relPath);
        } catch (error) {
          this.log.warn({ err: error, relPath }, 'could not sweep an unreferenced image');
        }
      }
    }
    if (adopting) await fsp.writeFile(complete, '');
    await this.#thumbs.sweep();
    return trashed;
  }

  private markerPath(image: ImagePath): string {
    return path.join(this.root, UNATTACHED_DIR, image.kind, image.name);
  }

  /**
   * {@link removeImage} for clean-up after a commit (a replaced cover, a deleted story): `null`
   * and missing files are fine, and a failure is logged rather than thrown, because the
   * database change it follows has already happened.
   */
  async removeImageQuietly(relPath: string | null | undefined): Promise<void> {
    if (relPath === null || relPath === undefined || relPath === '') return;
    try {
      await this.removeImage(relPath);
    } catch (error) {
      this.log.warn({ err: error, relPath }, 'could not remove an image file');
    }
  }

  /**
   * Deletes an image this request stored and no committed row ever named (a failed upload
   * request, a write that rolled back): no backup snapshot can reference it, so it skips the
   * trash. Never throws; a failure is logged.
   */
  async discardUpload(relPath: string | null | undefined): Promise<void> {
    if (relPath === null || relPath === undefined || relPath === '') return;
    try {
      const image = parseImagePath(relPath);
      if ((await this.resolve(image, 'path')) === undefined) return;
      await fsp.rm(path.join(this.root, image.kind, image.name), { force: true });
      await this.#thumbs.remove(image);
    } catch (error) {
      this.log.warn({ err: error, relPath }, 'could not discard an uploaded image');
    }
  }

  /**
   * Applies both guards to a user-supplied path (400 as they decide) and says whether the file
   * exists, touching nothing: for callers that must change the database before the disk.
   */
  async locateImage(rawPath: unknown, field = 'path'): Promise<{ relPath: string; exists: boolean }> {
    const image = parseImagePath(rawPath, field);
    const real = await this.resolve(image, field);
    const stat = real === undefined ? undefined : await fsp.stat(real).catch(() => undefined);
    return { relPath: image.relPath, exists: stat?.isFile() === true };
  }

  /** Removes temp files in `.incoming/` older than `olderThanMs`. */
  async sweepIncoming(olderThanMs: number): Promise<number> {
    return this.removeOlderThan(path.join(this.root, INCOMING_DIR), olderThanMs, 'could not remove a stale upload');
  }

  /**
   * Deletes trashed images removed more than `olderThanMs` ago (by the time {@link removeImage}
   * stamped on them). Runs at startup and on a timer (src/plugins/images.ts). Returns how many.
   */
  async purgeTrash(olderThanMs: number): Promise<number> {
    let purged = 0;
    for (const kind of IMAGE_KINDS) {
      purged += await this.removeOlderThan(path.join(this.root, TRASH_DIR, kind), olderThanMs, 'could not purge a trashed image');
    }
    return purged;
  }

  /** Removes the entries of `dir` (links as links) last modified more than `olderThanMs` ago. */
  private async removeOlderThan(dir: string, olderThanMs: number, problem: string): Promise<number> {
    const cutoff = Date.now() - olderThanMs;
    let removed = 0;
    for (const entry of await fsp.readdir(dir)) {
      const file = path.join(dir, entry);
      try {
        const stat = await fsp.lstat(file);
        if (stat.mtimeMs > cutoff) continue;
        await fsp.rm(file, { force: true, recursive: true });
        removed += 1;
      } catch (error) {
        this.log.warn({ err: error, file }, problem);
      }
    }
    return removed;
  }

  /**
   * The disk guard. Returns the real path of the named file, `undefined` when there is none,
   * and throws 400 when the name resolves (through any symlink, dangling ones included) to
   * anything outside `covers/` or `avatars/` of the real images folder.
   */
  private async resolve(image: ImagePath, field: string): Promise<string | undefined> {
    const entry = path.join(this.root, image.kind, image.name);
    let real: string;
    try {
      real = await fsp.realpath(entry);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw leavesImages(field);
      if (!isMissing(error)) throw error;
      await this.assertDanglingLinkInside(entry, field);
      return undefined;
    }
    if (!this.isInsideImageFolders(real)) throw leavesImages(field);
    return real;
  }

  /** A dangling link that points outside is refused like a live one, not reported as missing. */
  private async assertDanglingLinkInside(entry: string, field: string): Promise<void> {
    const stat = await fsp.lstat(entry).catch(() => undefined);
    if (stat === undefined || !stat.isSymbolicLink()) return;
    const target = path.resolve(path.dirname(entry), await fsp.readlink(entry));
    if (!this.isInsideImageFolders(target)) throw leavesImages(field);
  }

  private isInsideImageFolders(real: string): boolean {
    return IMAGE_KINDS.some((kind) => {
      const relative = path.relative(path.join(this.root, kind), real);
      return relative !== '' && !path.isAbsolute(relative) && relative.split(path.sep)[0] !== '..';
    });
  }
}

function leavesImages(field: string) {
  return invalidField(field, 'must stay inside the images folder');
}
