/**
 * View models of the story page, the reader and the delete confirmation (docs/web.md,
 * "Layout"): every value the templates show, already formatted; URLs built here, names
 * percent-encoded.
 */
import type { StoryDto } from '../../schemas/story.js';
import type { ReadingProgressDto } from '../../schemas/reading-progress.js';
import type { ChapterDto, ChapterMetaDto } from '../../schemas/chapter.js';
import type { StoryCard } from '../../stories/present.js';
import { chapterToOpen } from '../../stories/progress-service.js';
import { chapterWithHeading } from '../../stories/chapter-text.js';
import type { VolumeNeighbour } from '../../series/repository.js';
import { thumbnailUrl } from '../../images/thumbnails.js';
import type { PageModel } from '../render.js';
import { outsideLink, OUTSIDE_REL, storyHref, tagHref, type OutsideLink } from '../layout/links.js';
import { choiceLabel, READER_CHOICES, type ReaderSetting, type ReaderSettings } from './settings.js';
import { READING_STATUS_CHOICES } from '../reading-status.js';
import type { ReadingState } from '../../stories/repository.js';

/** Words per minute for the reading time: a common adult silent-reading average. */
export const WORDS_PER_MINUTE = 238;

export interface LinkView {
  href: string;
  text: string;
}

export interface SeriesView {
  href: string;
  name: string;
  /** "Volume 3", or '' when the story has no volume. */
  volumeLabel: string;
  previous: LinkView | undefined;
  next: LinkView | undefined;
}

export interface StoryPageView extends PageModel {
  id: string;
  cover: { thumbnail: string; full: string } | undefined;
  author: LinkView | undefined;
  series: SeriesView | undefined;
  tags: LinkView[];
  /** "1,234 words · 6 min read". */
  length: string;
  summary: string | undefined;
  description: string | undefined;
  source: OutsideLink | undefined;
  sourceRel: string;
  rating: number | null;
  /** The rating choices, for the radio buttons. */
  ratings: number[];
  readHref: string;
  /** "Read" or "Continue (42 %)". */
  readLabel: string;
  /** The API's EPUB of this story: the same deterministic file the OPDS catalog serves. */
  epubHref: string;
  editHref: string;
  deleteHref: string;
  ratingAction: string;
  /** The form's message after a rating was saved ('' otherwise). */
  notice: string;
  /** The "Send to e-reader" form, when mail is configured (docs/decisions.md, "Send to an e-reader"). */
  send: SendFormView | undefined;
  /** The reading-status and favourite forms (docs/decisions.md, "Reading status"). */
  reader: ReaderStateView;
}

export interface ReaderStateView {
  statusAction: string;
  /** No status first, then each status; the stored one checked. */
  statuses: { value: string; label: string; checked: boolean }[];
  /** "Finished twice, last on 27 November 2026.", or '' when never finished. */
  history: string;
  /** The status form's message after a save ('' otherwise). */
  statusNotice: string;
  favouriteAction: string;
  favourite: boolean;
  /** The favourite form's message after a change ('' otherwise). */
  favouriteNotice: string;
}

const TIMES = ['never', 'once', 'twice'];

/** The story page's reading-status and favourite forms, with the notice of what was just saved. */
export function readerStateView(storyId: string, state: ReadingState, saved: { status: boolean; favourite: boolean }): ReaderStateView {
  const href = storyHref(storyId);
  const choices = [{ value: '', label: 'No status' }, ...READING_STATUS_CHOICES];
  const finished = state.finishedAt === null ? '' : new Date(state.finishedAt).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
  return {
    statusAction: `${href}/reading-status`,
    statuses: choices.map(({ value, label }) => ({ value, label, checked: (state.readingStatus ?? '') === value })),
    history: state.readCount === 0 || finished === '' ? '' : `Finished ${TIMES[state.readCount] ?? `${state.readCount} times`}, last on ${finished}.`,
    statusNotice: saved.status ? 'Status saved.' : '',
    favouriteAction: `${href}/favourite`,
    favourite: state.favourite,
    favouriteNotice: saved.favourite ? (state.favourite ? 'Added to your favourites.' : 'Removed from your favourites.') : '',
  };
}

export interface SendFormView {
  action: string;
  /** The address the field starts with: `SEND_TO`, or '' when there is none. */
  to: string;
  /** "Sent to your e-reader." after a send, '' otherwise. */
  notice: string;
}

/** The send form of a story page, or undefined when `SMTP_URL` is not set (the button would only fail). */
export function sendFormView(storyId: string, mail: { defaultTo: string | undefined } | undefined, sent: boolean): SendFormView | undefined {
  if (mail === undefined) return undefined;
  return { action: `${storyHref(storyId)}/send`, to: mail.defaultTo ?? '', notice: sent ? 'Sent: the mail server accepted it.' : '' };
}

export interface ReaderControl {
  name: ReaderSetting;
  label: string;
  id: string;
  options: Array<{ value: string; label: string; selected: boolean }>;
}

export interface ReaderView extends PageModel {
  id: string;
  /** The story's title, the page's heading (the window title names the chapter too). */
  storyTitle: string;
  storyHref: string;
  author: LinkView | undefined;
  /** This chapter's sanitized HTML under its title's `<h2>`, or undefined when it has no text. */
  contentHtml: string | undefined;
  settings: ReaderSettings;
  controls: ReaderControl[];
  settingsAction: string;
  /** Where the settings form returns to. */
  back: string;
  /** The saved place within this chapter, rendered as data attributes for the client module ('' / 0 when it is elsewhere). */
  progress: number;
  position: string;
  /** This chapter, 1-based, and the word counts the client turns a place in it into the whole work's fraction. */
  chapter: number;
  wordsBefore: number;
  chapterWords: number;
  totalWords: number;
  /** Whether the saved progress is in this chapter; false only in a story of several chapters, where opening another chapter counts as reading it. */
  savedHere: boolean;
  /** The contents and chapter links; undefined for a one-chapter story, which reads as one page. */
  chapters: ChaptersView | undefined;
  previous: LinkView | undefined;
  next: LinkView | undefined;
  editHref: string;
}

export interface ChaptersView {
  /** "Chapter 3 of 40". */
  label: string;
  contents: Array<{ href: string; title: string; words: string; current: boolean }>;
  previous: LinkView | undefined;
  next: LinkView | undefined;
}

/** What the reader shows of the story: its card (no text) is enough. */
export type ReaderStory = Pick<StoryCard, 'id' | 'title' | 'authorId' | 'authorName'>;

export interface DeleteView extends PageModel {
  id: string;
  storyTitle: string;
  action: string;
  cancelHref: string;
}

export type Neighbours = { previous: VolumeNeighbour | undefined; next: VolumeNeighbour | undefined };

const NO_NEIGHBOURS: Neighbours = { previous: undefined, next: undefined };

function nonEmpty(value: string | null): string | undefined {
  return value === null || value.trim() === '' ? undefined : value;
}

function neighbourLink(neighbour: VolumeNeighbour | undefined, direction: 'Previous' | 'Next'): LinkView | undefined {
  if (neighbour === undefined) return undefined;
  return { href: storyHref(neighbour.id), text: `${direction}: Volume ${neighbour.volume}, ${neighbour.title}` };
}

export function lengthText(wordCount: number): string {
  const minutes = Math.max(1, Math.round(wordCount / WORDS_PER_MINUTE));
  const words = `${wordCount.toLocaleString('en-US')} ${wordCount === 1 ? 'word' : 'words'}`;
  return wordCount === 0 ? 'No text yet' : `${words} · ${minutes} min read`;
}

/** "Continue (42 %)" once the reader has started (and not finished at 100 %), else "Read". */
export function readLabel(progress: ReadingProgressDto | undefined): string {
  if (progress === undefined || progress.updatedAt === null || progress.progress <= 0) return 'Read';
  const percent = Math.floor(progress.progress * 100);
  return percent >= 100 ? 'Read again' : `Continue (${percent} %)`;
}

function authorLink(story: StoryDto): LinkView | undefined {
  return story.authorId === null ? undefined : { href: `/authors/${encodeURIComponent(story.authorId)}`, text: story.authorName ?? '' };
}

export function storyPageView(
  story: StoryDto,
  progress: ReadingProgressDto | undefined,
  neighbours: Neighbours = NO_NEIGHBOURS,
  notice: string,
  reader: ReaderStateView,
): StoryPageView {
  const href = storyHref(story.id);
  return {
    title: story.title,
    id: story.id,
    cover: story.coverPath === null ? undefined : { thumbnail: thumbnailUrl(story.coverPath, 320), full: `/api/files/images/${story.coverPath.split('/').map(encodeURIComponent).join('/')}` },
    author: authorLink(story),
    series:
      story.seriesId === null
        ? undefined
        : {
            href: `/series/${encodeURIComponent(story.seriesId)}`,
            name: story.seriesName ?? '',
            volumeLabel: story.volume === null ? '' : `Volume ${story.volume}`,
            previous: neighbourLink(neighbours.previous, 'Previous'),
            next: neighbourLink(neighbours.next, 'Next'),
          },
    tags: story.tags.map((tag) => ({ href: tagHref(tag.name), text: tag.name })),
    length: lengthText(story.wordCount),
    summary: nonEmpty(story.summary),
    description: nonEmpty(story.description),
    source: story.sourceUrl === null || story.sourceUrl === '' ? undefined : outsideLink(story.sourceUrl),
    sourceRel: OUTSIDE_REL,
    rating: story.rating,
    ratings: [1, 2, 3, 4, 5],
    readHref: `${href}/read`,
    readLabel: readLabel(progress),
    epubHref: `/api/stories/${story.id}/epub`,
    editHref: `${href}/edit`,
    deleteHref: `${href}/delete`,
    ratingAction: `${href}/rating`,
    send: undefined,
    notice,
    reader,
  };
}

function controls(settings: ReaderSettings): ReaderControl[] {
  const labels: Record<ReaderSetting, string> = { size: 'Font size', leading: 'Line height', width: 'Width' };
  return (Object.keys(READER_CHOICES) as ReaderSetting[]).map((name) => ({
    name,
    label: labels[name],
    id: `reader-${name}`,
    options: READER_CHOICES[name].map((value) => ({ value, label: choiceLabel(value), selected: settings[name] === value })),
  }));
}

/** A chapter's name in the contents and links: its title, or "Chapter 3" when it has none. */
export function chapterName(chapter: { index: number; title: string }): string {
  return chapter.title.trim() === '' ? `Chapter ${chapter.index}` : chapter.title;
}

export function chapterReadHref(storyId: string, index: number): string {
  return `${storyHref(storyId)}/read/${index}`;
}

function wordsText(words: number): string {
  return `${words.toLocaleString('en-US')} ${words === 1 ? 'word' : 'words'}`;
}

/**
 * The reader's page for one chapter (docs/decisions.md, "Story page and reader"): only this
 * chapter's text; the contents from the chapters' titles and word counts. A one-chapter story
 * has no contents or chapter links and reads as the whole story always did.
 */
export function readerView(
  story: ReaderStory,
  contents: readonly ChapterMetaDto[],
  chapter: ChapterDto,
  progress: ReadingProgressDto,
  settings: ReaderSettings,
  neighbours: Neighbours = NO_NEIGHBOURS,
): ReaderView {
  const href = storyHref(story.id);
  const many = contents.length > 1;
  const index = chapter.index;
  const wordsBefore = contents.filter((c) => c.index < index).reduce((sum, c) => sum + c.wordCount, 0);
  const totalWords = contents.reduce((sum, c) => sum + c.wordCount, 0);
  const savedHere = progress.updatedAt !== null && chapterToOpen(progress, contents.map((c) => c.wordCount)) === index;
  const restoreHere = savedHere || !many;
  // The whole-work fraction back to a fraction of this chapter; the paragraph index only when it was saved for this chapter.
  const inChapter = chapter.wordCount === 0 ? 0 : Math.min(1, Math.max(0, (progress.progress * totalWords - wordsBefore) / chapter.wordCount));
  const positionHere = progress.chapter === index || (progress.chapter === null && !many);
  const link = (c: ChapterMetaDto | undefined): LinkView | undefined => (c === undefined ? undefined : { href: chapterReadHref(story.id, c.index), text: chapterName(c) });
  return {
    title: many ? `${chapterName(chapter)} · ${story.title}` : story.title,
    storyTitle: story.title,
    id: story.id,
    storyHref: href,
    author: story.authorId === null ? undefined : { href: `/authors/${encodeURIComponent(story.authorId)}`, text: story.authorName ?? '' },
    contentHtml: nonEmpty(chapterWithHeading(chapter)),
    settings,
    controls: controls(settings),
    settingsAction: '/reader/settings',
    back: many ? chapterReadHref(story.id, index) : `${href}/read`,
    progress: savedHere ? (many ? inChapter : progress.progress) : 0,
    position: savedHere && positionHere ? (progress.position ?? '') : '',
    chapter: index,
    wordsBefore,
    chapterWords: chapter.wordCount,
    totalWords,
    savedHere: restoreHere,
    chapters: many
      ? {
          label: `Chapter ${index} of ${contents.length}`,
          contents: contents.map((c) => ({ href: chapterReadHref(story.id, c.index), title: chapterName(c), words: wordsText(c.wordCount), current: c.index === index })),
          previous: link(contents[index - 2]),
          next: link(contents[index]),
        }
      : undefined,
    previous: neighbourLink(neighbours.previous, 'Previous'),
    next: neighbourLink(neighbours.next, 'Next'),
    editHref: `${href}/edit`,
  };
}

export function deleteView(story: StoryDto): DeleteView {
  const href = storyHref(story.id);
  return { title: 'Delete story?', id: story.id, storyTitle: story.title, action: `${href}/delete`, cancelHref: href };
}
