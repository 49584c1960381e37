/**
 * Which file to download for a picture of an imported page (docs/decisions.md, "URL import"):
 * pages give a picture by `src`, by `srcset` (candidates with a width `400w` or a density `2x`),
 * by `<picture><source srcset>`, and, when they load pictures lazily, by `data-src` /
 * `data-srcset` with a placeholder or nothing in `src`. Pure: it reads attributes and URLs only.
 */

/** One `srcset` candidate: its URL and its width (`w`) or density (`x`; none written means 1x). */
export interface SrcsetCandidate {
  url: string;
  width?: number;
  density?: number;
}

/**
 * The widest picture worth storing: twice a reading column of 40em is about 1,600 px; wider
 * files (often several MiB) only cost the store's 5 MiB and the import's 50 MiB. A wider
 * candidate is taken only when nothing narrower is offered.
 */
export const MAX_PICTURE_WIDTH = 2048;
/** The highest density worth storing, by the same reasoning. */
export const MAX_PICTURE_DENSITY = 3;
/** Candidates tried per picture, best first; the next is tried when one fails (gone, too large, not an image). */
export const MAX_PICTURE_CANDIDATES = 3;

/** Attributes that hold a candidate list; lazy loaders write them instead of `srcset`. */
const SRCSET_ATTRIBUTES = ['srcset', 'data-srcset', 'data-lazy-srcset'] as const;
/** Attributes that hold one URL instead of `src` while a lazy loader waits. */
const LAZY_SRC_ATTRIBUTES = ['data-src', 'data-lazy-src', 'data-original'] as const;
/** `<source type>` values the store can keep (JPEG, PNG, WebP); a source of another type (AVIF) is passed over. */
const STORABLE_TYPES = new Set(['image/jpeg', 'image/jpg', 'image/png', 'image/webp']);

/** The element surface this module reads (linkedom's elements have it). */
export interface SourceElement {
  readonly tagName: string;
  getAttribute(name: string): string | null;
  readonly parentElement: SourceElement | null;
  readonly children: ArrayLike<SourceElement>;
}

/**
 * Parses a `srcset` value as the HTML standard does in outline: a URL runs to white space (a
 * trailing comma ends it with no descriptors), then descriptors run to a comma outside
 * parentheses, so URLs with commas in them (`/w_400,h_300/x.jpg`) survive. Candidates with a
 * malformed descriptor are skipped.
 */
export function parseSrcset(value: string): SrcsetCandidate[] {
  const candidates: SrcsetCandidate[] = [];
  let at = 0;
  while (at < value.length) {
    while (at < value.length && /[\s,]/.test(value[at] as string)) at += 1;
    if (at >= value.length) break;
    let end = at;
    while (end < value.length && !/\s/.test(value[end] as string)) end += 1;
    let url = value.slice(at, end);
    at = end;
    let descriptors = '';
    if (url.endsWith(',')) url = url.replace(/,+$/, '');
    else {
      let depth = 0;
      while (at < value.length && (value[at] !== ',' || depth > 0)) {
        if (value[at] === '(') depth += 1;
        if (value[at] === ')') depth = Math.max(0, depth - 1);
        descriptors += value[at];
        at += 1;
      }
    }
    const candidate = withDescriptors(url, descriptors.trim().split(/\s+/).filter((part) => part !== ''));
    if (candidate !== undefined) candidates.push(candidate);
  }
  return candidates;
}

function withDescriptors(url: string, descriptors: readonly string[]): SrcsetCandidate | undefined {
  if (url === '') return undefined;
  const candidate: SrcsetCandidate = { url };
  for (const descriptor of descriptors) {
    const match = /^(\d+(?:\.\d+)?)([wxh])$/i.exec(descriptor);
    if (match === null) return undefined;
    const number = Number(match[1]);
    const kind = (match[2] as string).toLowerCase();
    if (kind === 'w') candidate.width = number;
    else if (kind === 'x') candidate.density = number;
  }
  return candidate;
}

/**
 * `candidates` best first: the widest width up to {@link MAX_PICTURE_WIDTH}, then wider ones
 * narrowest first; widths, being explicit, before densities, which go the same way up to
 * {@link MAX_PICTURE_DENSITY} (a candidate without descriptor is 1x).
 */
export function rankCandidates(candidates: readonly SrcsetCandidate[]): SrcsetCandidate[] {
  const key = (candidate: SrcsetCandidate): [number, number] => {
    if (candidate.width !== undefined) return candidate.width <= MAX_PICTURE_WIDTH ? [0, -candidate.width] : [1, candidate.width];
    const density = candidate.density ?? 1;
    return density <= MAX_PICTURE_DENSITY ? [2, -density] : [3, density];
  };
  return [...candidates].sort((a, b) => {
    const [groupA, valueA] = key(a);
    const [groupB, valueB] = key(b);
    return groupA - groupB || valueA - valueB;
  });
}

/**
 * The URLs to try for the picture `image` (an `<img>`), best first, each resolved by `resolve`
 * (undefined for what is not an http(s) URL, such as a `data:` placeholder) and at most
 * {@link MAX_PICTURE_CANDIDATES}: the ranked candidates of its own `srcset`-like attributes and
 * of the storable `<source>`s of its `<picture>`, then a lazy loader's single URL, then `src`,
 * which lazy pages fill with a placeholder. Empty when none resolves.
 */
export function pictureCandidates(image: SourceElement, resolve: (raw: string | null) => string | undefined): string[] {
  const offered: SrcsetCandidate[] = [];
  const readSets = (element: SourceElement) => {
    for (const name of SRCSET_ATTRIBUTES) offered.push(...parseSrcset(element.getAttribute(name) ?? ''));
  };
  readSets(image);
  const picture = image.parentElement?.tagName === 'PICTURE' ? image.parentElement : null;
  if (picture !== null) {
    for (const source of Array.from(picture.children)) {
      if (source.tagName !== 'SOURCE') continue;
      const type = (source.getAttribute('type') ?? '').trim().toLowerCase();
      if (type === '' || STORABLE_TYPES.has(type)) readSets(source);
    }
  }
  const single = [...LAZY_SRC_ATTRIBUTES, 'src'].map((name) => image.getAttribute(name));
  const urls = [...rankCandidates(offered).map((candidate) => candidate.url), ...single]
    .map((raw) => resolve(raw))
    .filter((url): url is string => url !== undefined);
  return [...new Set(urls)].slice(0, MAX_PICTURE_CANDIDATES);
}

/** `raw` resolved against `base` when it is an http(s) URL; undefined for anything else (empty, `data:`, `javascript:`). */
export function absoluteHttpUrl(raw: string | null, base: string): string | undefined {
  if (raw === null || raw.trim() === '') return undefined;
  try {
    const url = new URL(raw.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
