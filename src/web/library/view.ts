/**
 * The view models of the browse pages (docs/decisions.md, "Browse pages"): story cards, the
 * library's controls and the paging links. Every URL a template prints is built here, with each
 * filter kept in it and names percent-encoded.
 */
import type { AuthorDto } from '../../schemas/author.js';
import type { SeriesDto } from '../../schemas/series.js';
import { STORY_SORT_KEYS, type StorySortKey } from '../../schemas/story.js';
import type { StoryCard } from '../../stories/present.js';
import { thumbnailUrl } from '../../images/thumbnails.js';
import { chapterReadHref, outsideLink, tagHref, type OutsideLink } from '../layout/links.js';
import type { PageModel } from '../render.js';
import { READING_STATUS_CHOICES, readingStatusLabel } from '../reading-status.js';
import type { ReadingStatus } from '../../schemas/reading-status.js';
import { TAG_KINDS, TAG_KIND_FIELDS, type TagKind, type TagKindOneField } from '../../schemas/tag.js';
import { TAG_KIND_LABELS } from '../tag-kinds.js';

/** Links per kind in the library's "Browse by kind" lists (each kind's most used tags). */
export const LIBRARY_KIND_LINKS = 10;

export interface Link {
  href: string;
  text: string;
}

export interface Cover {
  src: string;
  srcset: string;
}

export interface CardView {
  /** The story's id (the select mode's checkbox value). */
  id: string;
  href: string;
  title: string;
  author: Link | undefined;
  series: Link | undefined;
  tags: Link[];
  cover: Cover | undefined;
  /** "4/5", or '' when unrated. */
  rating: string;
  /** "12,345 words". */
  words: string;
  /** The reading progress in whole percent (continue reading only). */
  percent: number | undefined;
  /** "Reading", "Finished", …, or '' without a status. */
  status: string;
  favourite: boolean;
  /** "Continue at chapter 12", linking to it (continue reading, in a story of several chapters). */
  continueAt: Link | undefined;
  /** "3 new chapters", linking to the first of them (the home page's "Updated since you last read"). */
  newChapters?: Link;
}

function coverOf(path: string | null): Cover | undefined {
  if (path === null) return undefined;
  return { src: thumbnailUrl(path, 160), srcset: `${thumbnailUrl(path, 160)} 1x, ${thumbnailUrl(path, 320)} 2x` };
}

const NUMBER = new Intl.NumberFormat('en');

export function cardView(card: StoryCard, progress?: number, chapter: number | null = null): CardView {
  const volume = card.volume === null ? '' : ` #${card.volume}`;
  const continueAt = chapter === null || card.chapterCount <= 1 ? undefined : Math.min(chapter, card.chapterCount);
  return {
    id: card.id,
    href: `/stories/${card.id}`,
    title: card.title,
    author: card.authorId === null ? undefined : { href: `/authors/${card.authorId}`, text: card.authorName ?? '' },
    series: card.seriesId === null ? undefined : { href: `/series/${card.seriesId}`, text: `${card.seriesName ?? ''}${volume}` },
    tags: card.tags.map((name) => ({ href: tagHref(name), text: name })),
    cover: coverOf(card.coverPath),
    rating: card.rating === null ? '' : `${card.rating}/5`,
    words: `${NUMBER.format(card.wordCount)} ${card.wordCount === 1 ? 'word' : 'words'}`,
    percent: progress === undefined ? undefined : Math.round(progress * 100),
    status: readingStatusLabel(card.readingStatus),
    favourite: card.favourite,
    continueAt: continueAt === undefined ? undefined : { href: chapterReadHref(card.id, continueAt), text: `Continue at chapter ${continueAt}` },
  };
}

/** A page of results: where it starts and ends, and links to the pages around it. */
export interface PagerView {
  /** "21–40 of 345", or '' when there is nothing. */
  summary: string;
  prev: string | undefined;
  next: string | undefined;
  /** Page links, `href` undefined for the current page; `gap` marks an ellipsis before it. */
  pages: Array<{ label: string; href: string | undefined; gap: boolean }>;
}

/** How many page numbers either side of the current one are linked. */
const PAGE_SPAN = 2;

/** Paging links for 0-based `page` of `size` over `total`; `hrefOf(n)` builds page n's URL (with every filter). */
export function pagerView(page: number, size: number, total: number, hrefOf: (page: number) => string): PagerView {
  const last = Math.max(0, Math.ceil(total / size) - 1);
  const shown = new Set([0, last]);
  for (let n = page - PAGE_SPAN; n <= page + PAGE_SPAN; n += 1) if (n >= 0 && n <= last) shown.add(n);
  const numbers = [...shown].sort((a, b) => a - b);
  const first = page * size + 1;
  return {
    summary: total === 0 || first > total ? '' : `${NUMBER.format(first)}–${NUMBER.format(Math.min(total, first + size - 1))} of ${NUMBER.format(total)}`,
    prev: page > 0 ? hrefOf(Math.min(page - 1, last)) : undefined,
    next: page < last ? hrefOf(page + 1) : undefined,
    pages:
      last === 0
        ? []
        : numbers.map((n, index) => ({ label: String(n + 1), href: n === page ? undefined : hrefOf(n), gap: index > 0 && n - (numbers[index - 1] ?? n) > 1 })),
  };
}

/** A URL of `path` with these query values, empty and undefined ones left out. */
export function urlWith(path: string, params: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') query.set(name, String(value));
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}

export const SORT_LABELS: Record<StorySortKey, string> = {
  createdAt: 'Date added',
  updatedAt: 'Last updated',
  title: 'Title',
  rating: 'Rating',
  wordCount: 'Length',
  authorName: 'Author',
  seriesName: 'Series',
  volume: 'Volume',
};

export type LibraryLayout = 'grid' | 'list';

/** The library's query after validation (the API's list query plus the page's own fields, one tag name per kind among them). */
export interface LibraryQuery extends Partial<Record<TagKindOneField, string>> {
  page: number;
  size: number;
  sortBy?: StorySortKey;
  sortDir?: string;
  view?: LibraryLayout;
  author?: string;
  series?: string;
  tag?: string;
  minRating?: number;
  readingStatus?: ReadingStatus;
  favourite?: boolean;
  /** `1`: the select mode, checkboxes on the cards and the bulk edit's form. */
  select?: '1';
}

/** The select mode's form (docs/decisions.md, "Bulk edit"): where it posts, where it comes back, the shelves it offers. */
export interface BulkFormView {
  /** This page's URL, to come back to after the change. */
  back: string;
  shelves: Array<{ id: string; name: string }>;
  ratings: string[];
  readingStatuses: string[];
}

export interface Option {
  value: string;
  label: string;
  selected: boolean;
}

export interface LibraryView extends PageModel {
  cards: CardView[];
  display: LibraryLayout;
  sortOptions: Option[];
  dirOptions: Option[];
  ratingOptions: Option[];
  /** Any status, then each one (docs/decisions.md, "Reading status"). */
  statusOptions: Option[];
  /** The "Favourites only" box is ticked. */
  favouritesOnly: boolean;
  /** The tag filter's text. */
  tag: string;
  /** Filters set by id (author, series) or by kind (fandom, …): shown with a link that drops them, kept in the form as hidden fields. */
  chips: Array<{ label: string; name: string; value: string; removeHref: string }>;
  /**
   * The library's most used tags of each kind (docs/decisions.md, "Tag kinds"), each a link that
   * sets that kind's filter with every other filter kept; the kind already filtered by is not offered.
   */
  kindLists: Array<{ title: string; id: string; links: Array<{ label: string; count: number; href: string }> }>;
  /** The same list in the other layout. */
  gridHref: string;
  listHref: string;
  pager: PagerView;
  /** Whether any filter is set (the empty state differs). */
  filtered: boolean;
  /** Whether the library has no story at all. */
  emptyLibrary: boolean;
  /** The select mode's form, when it is on. */
  bulk: BulkFormView | undefined;
  /** The same page with the select mode switched over. */
  selectHref: string;
}

export function libraryView(
  query: LibraryQuery,
  cards: StoryCard[],
  total: number,
  names: { authorName?: string; seriesName?: string; kindNames?: Partial<Record<TagKind, string>> },
  emptyLibrary: boolean,
  bulk?: Omit<BulkFormView, 'back'>,
  kindTags: ReadonlyArray<{ kind: TagKind; name: string; storyCount: number }> = [],
): LibraryView {
  const sortBy = query.sortBy ?? 'createdAt';
  const sortDir = (query.sortDir ?? 'desc').toLowerCase() === 'asc' ? 'asc' : 'desc';
  const display = query.view ?? 'grid';
  const kept = {
    view: query.view,
    sortBy: query.sortBy,
    sortDir: query.sortDir === undefined ? undefined : sortDir,
    tag: query.tag,
    ...Object.fromEntries(TAG_KINDS.map((kind) => [TAG_KIND_FIELDS[kind].one, query[TAG_KIND_FIELDS[kind].one]])),
    author: query.author,
    series: query.series,
    minRating: query.minRating,
    readingStatus: query.readingStatus,
    favourite: query.favourite === undefined ? undefined : String(query.favourite),
    size: query.size === 20 ? undefined : query.size,
    select: query.select,
  };
  const chips: LibraryView['chips'] = [];
  if (query.author !== undefined) chips.push({ label: `Author: ${names.authorName ?? ''}`, name: 'author', value: query.author, removeHref: urlWith('/library', { ...kept, author: undefined }) });
  if (query.series !== undefined) chips.push({ label: `Series: ${names.seriesName ?? ''}`, name: 'series', value: query.series, removeHref: urlWith('/library', { ...kept, series: undefined }) });
  for (const kind of TAG_KINDS) {
    const field = TAG_KIND_FIELDS[kind].one;
    const value = query[field];
    if (value !== undefined) chips.push({ label: `${TAG_KIND_LABELS[kind]}: ${names.kindNames?.[kind] ?? value}`, name: field, value, removeHref: urlWith('/library', { ...kept, [field]: undefined }) });
  }
  const kindLists: LibraryView['kindLists'] = [];
  for (const kind of TAG_KINDS) {
    const field = TAG_KIND_FIELDS[kind].one;
    if (query[field] !== undefined) continue;
    const links = kindTags
      .filter((tag) => tag.kind === kind)
      .map((tag) => ({ label: tag.name, count: tag.storyCount, href: urlWith('/library', { ...kept, [field]: tag.name }) }));
    if (links.length > 0) kindLists.push({ title: TAG_KIND_LABELS[kind], id: `library-kind-${kind}`, links });
  }
  return {
    title: 'Library',
    cards: cards.map((card) => cardView(card)),
    display,
    sortOptions: STORY_SORT_KEYS.map((key) => ({ value: key, label: SORT_LABELS[key], selected: key === sortBy })),
    dirOptions: [
      { value: 'desc', label: 'Descending', selected: sortDir === 'desc' },
      { value: 'asc', label: 'Ascending', selected: sortDir === 'asc' },
    ],
    ratingOptions: [
      { value: '', label: 'Any rating', selected: query.minRating === undefined },
      ...[5, 4, 3, 2, 1].map((n) => ({ value: String(n), label: n === 5 ? '5 stars' : `${n}+ stars`, selected: query.minRating === n })),
    ],
    statusOptions: [
      { value: '', label: 'Any status', selected: query.readingStatus === undefined },
      ...READING_STATUS_CHOICES.map(({ value, label }) => ({ value, label, selected: query.readingStatus === value })),
    ],
    favouritesOnly: query.favourite === true,
    tag: query.tag ?? '',
    chips,
    kindLists,
    gridHref: urlWith('/library', { ...kept, view: undefined, page: query.page || undefined }),
    listHref: urlWith('/library', { ...kept, view: 'list', page: query.page || undefined }),
    pager: pagerView(query.page, query.size, total, (page) => urlWith('/library', { ...kept, page: page || undefined })),
    filtered:
      query.author !== undefined ||
      query.series !== undefined ||
      query.tag !== undefined ||
      TAG_KINDS.some((kind) => query[TAG_KIND_FIELDS[kind].one] !== undefined) ||
      query.minRating !== undefined ||
      query.readingStatus !== undefined ||
      query.favourite !== undefined,
    emptyLibrary,
    bulk: query.select === '1' && bulk !== undefined ? { ...bulk, back: urlWith('/library', { ...kept, page: query.page || undefined }) } : undefined,
    selectHref: urlWith('/library', { ...kept, page: query.page || undefined, select: query.select === '1' ? undefined : '1' }),
  };
}

/** A paged list of one author's or one tag's stories. */
export interface StoriesPart {
  cards: CardView[];
  pager: PagerView;
}

export interface AuthorView extends PageModel, StoriesPart {
  avatar: Cover | undefined;
  rating: string;
  averageRating: string;
  /** The notes' paragraphs' lines (escaped by the template, line breaks kept as <br>). */
  notes: string[];
  links: OutsideLink[];
  storyCount: string;
  libraryHref: string;
}

export function authorView(author: AuthorDto, cards: StoryCard[], page: number, size: number): AuthorView {
  return {
    title: author.name,
    avatar: coverOf(author.avatarImagePath),
    rating: author.authorRating === null ? '' : `${author.authorRating}/5`,
    averageRating: author.averageStoryRating === null ? '' : `${author.averageStoryRating.toFixed(1)}/5`,
    notes: author.notes === null || author.notes.trim() === '' ? [] : author.notes.split(/\r\n|\r|\n/),
    links: author.urls.map(outsideLink),
    storyCount: `${NUMBER.format(author.storyCount)} ${author.storyCount === 1 ? 'story' : 'stories'}`,
    libraryHref: urlWith('/library', { author: author.id }),
    cards: cards.map((card) => cardView(card)),
    pager: pagerView(page, size, author.storyCount, (n) => urlWith(`/authors/${author.id}`, { page: n || undefined })),
  };
}

export interface SeriesView extends PageModel {
  description: string;
  cards: CardView[];
  storyCount: string;
  libraryHref: string;
}

export function seriesView(found: SeriesDto, cards: StoryCard[]): SeriesView {
  return {
    title: found.name,
    description: found.description ?? '',
    cards: cards.map((card) => cardView(card)),
    storyCount: `${NUMBER.format(cards.length)} ${cards.length === 1 ? 'story' : 'stories'}`,
    libraryHref: urlWith('/library', { series: found.id, sortBy: 'volume', sortDir: 'asc' }),
  };
}

export interface TagView extends PageModel, StoriesPart {
  libraryHref: string;
}

export function tagView(name: string, cards: StoryCard[], total: number, page: number, size: number): TagView {
  return {
    title: `Tag: ${name}`,
    libraryHref: urlWith('/library', { tag: name }),
    cards: cards.map((card) => cardView(card)),
    pager: pagerView(page, size, total, (n) => urlWith(tagHref(name), { page: n || undefined })),
  };
}
