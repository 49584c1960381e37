/**
 * Where each link of a feed points (docs/api.md, "OPDS catalog"). A feed asked for in the path form,
 * `/opds/k/<token>/…`, links only to the path form, covers and EPUBs included: the clients that
 * need it drop Basic credentials on downloads and images (docs/decisions.md, "OPDS catalog").
 * Links are root-relative; Atom resolves them against the feed's own address.
 */
import { imageUrl } from '../images/image-path.js';
import { thumbnailUrl } from '../images/thumbnails.js';

/** The root of the catalog; everything OPDS lives under it. */
export const OPDS_ROOT = '/opds';

/** The width of the cover thumbnails the feeds link to (one of the store's widths). */
export const OPDS_THUMBNAIL_WIDTH = 320;

export type QueryValues = Readonly<Record<string, string | number | undefined>>;

/** How one request reached the catalog, and so how its feed links. */
export class OpdsLinks {
  /** `/opds`, or `/opds/k/<token>` for the path form. */
  readonly base: string;

  constructor(readonly pathToken: string | undefined) {
    this.base = pathToken === undefined ? OPDS_ROOT : `${OPDS_ROOT}/k/${encodeURIComponent(pathToken)}`;
  }

  /** A feed of the catalog: `path` below the base (`''` for the root), with the query's defined values. */
  feed(path: string, query: QueryValues = {}): string {
    const pairs = Object.entries(query)
      .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
      .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
    return `${this.base}${path}${pairs.length > 0 ? `?${pairs.join('&')}` : ''}`;
  }

  /** The cover image: the files API, or its copy under the path form. */
  image(relPath: string): string {
    return this.pathToken === undefined ? imageUrl(relPath) : `${this.base}/images/${relPath}`;
  }

  /**
   * The cover's JPEG thumbnail, as {@link image}: JPEG, not the pages' WebP, which older
   * KOReader builds and other e-reader apps do not show.
   */
  thumbnail(relPath: string): string {
    return this.pathToken === undefined
      ? `${thumbnailUrl(relPath, OPDS_THUMBNAIL_WIDTH)}&format=jpeg`
      : `${this.base}/images/${relPath}?w=${OPDS_THUMBNAIL_WIDTH}&format=jpeg`;
  }

  /** The story as an EPUB, under the catalog (the same book as the API's). */
  epub(storyId: string): string {
    return `${this.base}/stories/${storyId}.epub`;
  }

  /**
   * The story's web page, for the header forms only: a page needs the web login, so a path-form
   * feed leaves the link out rather than point outside its form.
   */
  webPage(storyId: string): string | undefined {
    return this.pathToken === undefined ? `/stories/${storyId}` : undefined;
  }
}
