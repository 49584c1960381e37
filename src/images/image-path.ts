/**
 * The path guard for user-supplied image paths (docs/decisions.md, "Images"). A relative image
 * path is `covers/<name>.<ext>`, `avatars/<name>.<ext>` or `inline/<name>.<ext>` (the images inside
 * imported stories, src/images/inline-images.ts) and nothing else; this module decides
 * that on the text alone. Whether the named file really sits inside the images folder (symlinks) is
 * the store's second check, on the disk.
 */
import { invalidField } from '../errors.js';
import { IMAGE_PATH_MAX } from '../schemas/files.js';

export const IMAGE_KINDS = ['covers', 'avatars', 'inline'] as const;
/** The image folders: story covers, author avatars, and the images inside imported story bodies. */
export type ImageKind = (typeof IMAGE_KINDS)[number];

/** A relative image path that passed the guard. */
export interface ImagePath {
  readonly kind: ImageKind;
  /** The file name inside the kind's folder, e.g. `3f2b….png`. */
  readonly name: string;
  /** `<kind>/<name>`: the form stored in `coverPath` / `avatarImagePath`. */
  readonly relPath: string;
}

/**
 * The one accepted shape, as a pattern source for the guard here and for finding the images a
 * story body names (./inline-images.ts). Names the store writes are `<uuid>.<ext>`; the guard is a
 * little wider (letters, digits, `_`, `-`) but admits no dot except the extension's, no `%`, no
 * separator. Group 1 is the kind, group 2 the name.
 */
export const IMAGE_PATH_SOURCE = '(covers|avatars|inline)/([A-Za-z0-9][A-Za-z0-9_-]{0,127}\\.(?:jpg|png|webp))';
const IMAGE_PATH = new RegExp(`^${IMAGE_PATH_SOURCE}$`);

/** Where the stored images are served: `<prefix><kind>/<name>` (docs/api.md, "Images — /api/files"). */
export const IMAGE_URL_PREFIX = '/api/files/images/';

/**
 * Validates a user-supplied relative image path and returns it split; anything else is a 400
 * naming `field`. Absolute paths, `..` or `.` segments, backslashes, NULs and empty segments are
 * refused with a specific message, also when they only appear after one or two rounds of
 * percent-decoding (`%2e%2e`, `%252e%252e`); then the strict shape above decides.
 */
export function parseImagePath(raw: unknown, field = 'path'): ImagePath {
  if (typeof raw !== 'string' || raw === '') throw invalidField(field, 'is required');
  if (raw.length > IMAGE_PATH_MAX) throw invalidField(field, `must be at most ${IMAGE_PATH_MAX} characters long`);
  const problem = traversalProblem(raw);
  if (problem !== undefined) throw invalidField(field, problem);
  const match = IMAGE_PATH.exec(raw);
  if (match === null) throw invalidField(field, 'must name an image such as covers/<file>.jpg or avatars/<file>.png');
  return { kind: match[1] as ImageKind, name: match[2] as string, relPath: raw };
}

/** Whether `raw` is a relative image path the guard accepts (for callers that skip, not refuse, the others). */
export function isImagePath(raw: unknown): boolean {
  try {
    parseImagePath(raw);
    return true;
  } catch {
    return false;
  }
}

/**
 * {@link parseImagePath} for a body field that must name an image of one kind (`coverPath`
 * under `covers/`, `avatarImagePath` under `avatars/`; docs/decisions.md, "Images"); 400 on `field`
 * otherwise. Says nothing about the file existing: that is the store's `assertStoredImage`.
 */
export function parseImagePathOf(kind: ImageKind, raw: unknown, field: string): ImagePath {
  const image = parseImagePath(raw, field);
  if (image.kind !== kind) throw invalidField(field, `must name an image under ${kind}/`);
  return image;
}

/** The URL an image is served at (docs/api.md, "Images — /api/files"): `/api/files/images/<kind>/<name>`. */
export function imageUrl(relPath: string): string {
  return `${IMAGE_URL_PREFIX}${relPath}`;
}

const DECODE_ROUNDS = 3;

function traversalProblem(raw: string): string | undefined {
  let text = raw;
  for (let round = 0; round < DECODE_ROUNDS; round += 1) {
    if (text.includes('\0')) return 'must not contain a NUL character';
    if (text.includes('\\')) return 'must not contain a backslash';
    if (text.startsWith('/') || /^[A-Za-z]:/.test(text)) return 'must be a relative path';
    const segments = text.split('/');
    if (segments.some((segment) => segment === '..' || segment === '.')) return 'must not contain . or .. segments';
    if (segments.some((segment) => segment === '')) return 'must not contain empty segments';
    const decoded = percentDecode(text);
    if (decoded === text) return undefined;
    text = decoded;
  }
  return undefined;
}

/** One round of percent-decoding; malformed escapes are left as they are (the shape rejects `%`). */
function percentDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
