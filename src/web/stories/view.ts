/**
 * View models of the story page, the reader and the delete confirmation (docs/web.md,
 * "Layout"): every value the templates show, already formatted; URLs built here, names
 * percent-encoded. The story page's data is read here too, in `loadStoryPage`, so its GET and
 * the refresh form's failure show the same page.
 */
import type { StoryDto } from '../../schemas/story.js';
import type { ReadingProgressDto } from '../../schemas/reading-progress.js';
import type { ChapterDto, ChapterMetaDto } from '../../schemas/chapter.js';
import type { StoryCard, StoryWithoutText } from '../../stories/present.js';
import { chapterWithHeading } from '../../stories/chapter-text.js';
import { volumeNeighbours, type VolumeNeighbour } from '../../series/repository.js';
import { thumbnailUrl } from '../../images/thumbnails.js';
import type { PageModel } from '../render.js';
import { chapterReadHref, outsideLink, OUTSIDE_REL, storyHref, tagHref, type OutsideLink } from '../layout/links.js';
import { choiceLabel, READER_CHOICES, type ReaderSetting, type ReaderSettings } from './settings.js';
import { READING_STATUS_CHOICES } from '../reading-status.js';
import type { ReadingState } from '../../stories/repository.js';
import type { Db } from '../../db/open.js';
import type { StoryUpdateDto } from '../../schemas/source.js';
import { listChapters } from '../../stories/chapter-service.js';
import { getStoryWithoutText } from '../../stories/service.js';
import { chapterToOpen, getProgress } from '../../stories/progress-service.js';
import { followState, type FollowState } from '../../follow/service.js';
import { groupTagsByKind } from '../tag-kinds.js';

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
  /** Every author in order, each with the words that come before it: '', ', ' or ' and '. */
  authors: Array<LinkView & { before: string }>;
  series: SeriesView | undefined;
  /** The story's language as a `lang` value for the text in it (title, summary, chapter titles), or '' when unknown. */
  lang: string;
  /** Status, language, dates and length, in the order shown; only those the story has. */
  facts: FactView[];
  /** The tags by kind (docs/decisions.md, "Tag kinds"): the archive's kinds first, the reader's own last. */
  tagGroups: Array<{ label: string; tags: LinkView[] }>;
  /** "3 chapters · 1,234 words · 6 min read". */
  length: string;
  summary: string | undefined;
  description: string | undefined;
  source: OutsideLink | undefined;
  sourceRel: string;
  /** The chapters, for a story of more than one; undefined otherwise. */
  contents: ContentsEntryView[] | undefined;
  /** The update log and refresh form of a story that follows its source (docs/decisions.md, "Sources"). */
  follow: FollowView | undefined;
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

/** A fact of the story page's list: a label and its text, a date as `<time>`, a language with its own name. */
export interface FactView {
  label: string;
  text: string;
  /** ISO 8601 for `<time datetime>`, or '' when the fact is no date. */
  datetime: string;
  /** The language's name in itself, in an element with `lang` (docs/decisions.md, "Story page and reader"), or undefined. */
  autonym: { text: string; lang: string } | undefined;
}

export interface ContentsEntryView {
  index: number;
  href: string;
  title: string;
  words: string;
  /** The chapter the reader's saved place is in. */
  current: boolean;
  /** The source no longer has this chapter (kept here). */
  gone: boolean;
}

export interface UpdateView {
  datetime: string;
  /** "27 November 2026, 15:20 UTC". */
  when: string;
  /** "Imported", "Checked by hand", "Scheduled check", "File imported again". */
  origin: string;
  /** "2 new chapters, 1 updated". */
  what: string;
  /** The titles it names, by change: "New: Landfall". */
  titles: string[];
  from: OutsideLink | undefined;
}

export interface FollowView {
  /** The latest updates, newest first, at most `UPDATES_SHOWN`. */
  updates: UpdateView[];
  /** "Last checked 27 November 2026, 15:20 UTC." or ''. */
  checked: string;
  /** "Next check ..." or '' (complete works, stopped follows). */
  next: string;
  /** The last check's failure, or ''. */
  lastError: string;
  /** The refresh form, when the story is still followed; undefined otherwise. */
  refresh: { action: string; notice: string; failed: boolean } | undefined;
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
  const finished = state.finishedAt === null ? '' : dayText(state.finishedAt);
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
  contents: ContentsEntryView[];
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
  return wordCount === 0 ? 'No text yet' : `${wordsText(wordCount)} · ${minutes} min read`;
}

/** "Continue (42 %)" once the reader has started (and not finished at 100 %), else "Read". */
export function readLabel(progress: ReadingProgressDto | undefined): string {
  if (progress === undefined || progress.updatedAt === null || progress.progress <= 0) return 'Read';
  const percent = Math.floor(progress.progress * 100);
  return percent >= 100 ? 'Read again' : `Continue (${percent} %)`;
}

/** Updates the story page lists: the latest ten, enough to see what the last checks brought. */
export const UPDATES_SHOWN = 10;

/** Titles an update line names per kind of change; the count says how many more there were. */
const UPDATE_TITLES_SHOWN = 5;

const STATUS_TEXT: Readonly<Record<NonNullable<StoryDto['status']>, string>> = { complete: 'Complete', 'in-progress': 'In progress' };

const ORIGIN_TEXT: Readonly<Record<StoryUpdateDto['origin'], string>> = {
  import: 'Imported',
  refresh: 'Checked by hand',
  schedule: 'Scheduled check',
  file: 'File imported again',
};

const DAY: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' };

/** "27 November 2026": a day as the pages write it, in UTC (the server knows no reader's zone). */
export function dayText(iso: string): string {
  return new Date(iso).toLocaleDateString('en-GB', DAY);
}

/** "27 November 2026, 15:20 UTC". */
function momentText(iso: string): string {
  const at = new Date(iso);
  const two = (value: number) => String(value).padStart(2, '0');
  return `${dayText(iso)}, ${two(at.getUTCHours())}:${two(at.getUTCMinutes())} UTC`;
}

/** "by A, B and C": each author linked, with the words before it. */
function authorLinks(authors: StoryDto['authors']): StoryPageView['authors'] {
  return authors.map((author, i) => ({
    href: `/authors/${encodeURIComponent(author.id)}`,
    text: author.name,
    before: i === 0 ? '' : i === authors.length - 1 ? ' and ' : ', ',
  }));
}

const ENGLISH_LANGUAGE_NAMES = new Intl.DisplayNames(['en'], { type: 'language' });

/**
 * A stored language tag as a `lang` value and its fact: the English name ("Brazilian Portuguese"),
 * and the name in the language itself when ICU knows it ("português (Brasil)", marked with its
 * `lang`). A tag ICU refuses is shown as stored and marks nothing.
 */
function languageOf(tag: string | null): { lang: string; fact: FactView } | undefined {
  if (tag === null || tag.trim() === '') return undefined;
  let lang: string;
  try {
    lang = Intl.getCanonicalLocales(tag)[0] ?? '';
  } catch {
    return { lang: '', fact: { label: 'Language', text: tag, datetime: '', autonym: undefined } };
  }
  const name = ENGLISH_LANGUAGE_NAMES.of(lang) ?? lang;
  const own = Intl.DisplayNames.supportedLocalesOf([lang]).length > 0 ? new Intl.DisplayNames([lang], { type: 'language' }).of(lang) : undefined;
  const autonym = own === undefined || own === name || own === lang ? undefined : { text: own, lang };
  return { lang, fact: { label: 'Language', text: name, datetime: '', autonym } };
}

function storyFacts(story: StoryWithoutText, language: FactView | undefined, length: string): FactView[] {
  const fact = (label: string, text: string, datetime = ''): FactView => ({ label, text, datetime, autonym: undefined });
  const facts: FactView[] = [];
  if (story.status !== null) facts.push(fact('Status', STATUS_TEXT[story.status]));
  if (language !== undefined) facts.push(language);
  if (story.publishedAt !== null) facts.push(fact('Published', dayText(story.publishedAt), story.publishedAt));
  if (story.sourceUpdatedAt !== null) facts.push(fact('Updated', dayText(story.sourceUpdatedAt), story.sourceUpdatedAt));
  facts.push(fact('Length', length));
  return facts;
}

/** A contents line for each chapter (titles and word counts, never text); `current` marks one. */
function contentsEntries(storyId: string, chapters: readonly ChapterMetaDto[], current: number): ContentsEntryView[] {
  return chapters.map((c) => ({
    index: c.index,
    href: chapterReadHref(storyId, c.index),
    title: chapterName(c),
    words: wordsText(c.wordCount),
    current: c.index === current,
    gone: c.sourceGoneAt !== null,
  }));
}

/** The counts of a refresh or an update. */
export type ChangeCounts = Pick<StoryUpdateDto, 'addedChapters' | 'updatedChapters' | 'keptChapters' | 'goneChapters'>;

/** "2 new chapters, 1 updated", or "No changes". */
export function changeText(counts: ChangeCounts): string {
  const parts: string[] = [];
  if (counts.addedChapters > 0) parts.push(`${counts.addedChapters} new ${counts.addedChapters === 1 ? 'chapter' : 'chapters'}`);
  if (counts.updatedChapters > 0) parts.push(`${counts.updatedChapters} updated`);
  if (counts.keptChapters > 0) parts.push(`${counts.keptChapters} refused (old text kept)`);
  if (counts.goneChapters > 0) parts.push(`${counts.goneChapters} gone at the source (kept here)`);
  return parts.length === 0 ? 'No changes' : parts.join(', ');
}

/** The `refreshed` value the refresh form's redirect carries: the four counts, dot-separated. */
export function refreshedParam(counts: ChangeCounts): string {
  return [counts.addedChapters, counts.updatedChapters, counts.keptChapters, counts.goneChapters].join('.');
}

/** The counts back from `refreshedParam`, or undefined for anything else (a hand-made address shows no notice). */
export function parseRefreshed(raw: string | undefined): ChangeCounts | undefined {
  const match = /^(\d{1,5})\.(\d{1,5})\.(\d{1,5})\.(\d{1,5})$/.exec(raw ?? '');
  if (match === null) return undefined;
  const [addedChapters, updatedChapters, keptChapters, goneChapters] = match.slice(1).map(Number) as [number, number, number, number];
  return { addedChapters, updatedChapters, keptChapters, goneChapters };
}

function titlesLine(label: string, titles: readonly string[], count: number): string[] {
  if (count === 0 || titles.length === 0) return [];
  const shown = titles.slice(0, UPDATE_TITLES_SHOWN);
  const more = count - shown.length;
  return [`${label}: ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`];
}

function updateView(update: StoryUpdateDto): UpdateView {
  const imported = update.origin === 'import';
  return {
    datetime: update.at,
    when: momentText(update.at),
    origin: ORIGIN_TEXT[update.origin],
    // The first import added every chapter: "12 chapters", and no list of their titles.
    what: imported ? countText(update.addedChapters, 'chapter') : changeText(update),
    titles: imported
      ? []
      : [
          ...titlesLine('New', update.details.added, update.addedChapters),
          ...titlesLine('Updated', update.details.updated, update.updatedChapters),
          ...titlesLine('Refused', update.details.kept, update.keptChapters),
          ...titlesLine('Gone at the source', update.details.gone, update.goneChapters),
        ],
    from: update.sourceUrl === null || update.sourceUrl === '' ? undefined : outsideLink(update.sourceUrl),
  };
}

/** What a refresh just did, for the notice by its form: the counts after the redirect, or the error it answered. */
export type RefreshNotice = { counts: ChangeCounts } | { error: string } | undefined;

function followView(storyId: string, follow: FollowState | undefined, notice: RefreshNotice): FollowView | undefined {
  if (follow === undefined) return undefined;
  const refreshNotice = notice === undefined ? '' : 'error' in notice ? notice.error : changeText(notice.counts);
  return {
    updates: follow.updates.slice(0, UPDATES_SHOWN).map(updateView),
    checked: follow.lastCheckedAt === null ? '' : `Last checked ${momentText(follow.lastCheckedAt)}.`,
    next: follow.followed && follow.nextCheckAt !== null ? `Next check ${momentText(follow.nextCheckAt)}.` : '',
    // A refresh that just failed says so by its form; the same message twice would only be noise.
    lastError: notice !== undefined && 'error' in notice ? '' : (follow.lastError ?? ''),
    refresh: follow.followed ? { action: `${storyHref(storyId)}/refresh`, notice: refreshNotice, failed: notice !== undefined && 'error' in notice } : undefined,
  };
}

/** Everything the story page shows, read in one place (src/web/stories/routes.ts renders it). */
export interface StoryPageData {
  story: StoryWithoutText;
  progress: ReadingProgressDto;
  neighbours: Neighbours;
  /** The chapters' titles and word counts (no text); empty for a one-chapter story, which lists none. */
  chapters: readonly ChapterMetaDto[];
  follow: FollowState | undefined;
  reader: ReaderStateView;
  send: SendFormView | undefined;
  /** The rating form's message ('' for none). */
  notice: string;
  refresh: RefreshNotice;
}

/** The previous and next volumes of the story's series, none when it has no volume. */
export function neighboursOf(db: Db, story: Pick<StoryDto, 'seriesId' | 'volume' | 'createdAt'>): Neighbours {
  if (story.seriesId === null || story.volume === null) return NO_NEIGHBOURS;
  return volumeNeighbours(db, story.seriesId, story.volume, story.createdAt);
}

/** The story page's query: which form just saved (each form's redirect sets one), and a refresh's counts. */
export interface StoryPageQuery {
  rated?: string;
  sent?: string;
  status?: string;
  favourite?: string;
  refreshed?: string;
}

/**
 * Reads everything the story page shows through the API's own services and presents it: the
 * story, its reading state, series neighbours, the chapters' titles and word counts (only for a
 * story of several chapters, never their text) and its source's latest updates. `refreshError`
 * is the message of a refresh that just failed (the refresh form shows the page with it).
 */
export function loadStoryPage(db: Db, mail: { defaultTo: string | undefined } | undefined, id: string, query: StoryPageQuery, refreshError?: string): StoryPageView {
  const story = getStoryWithoutText(db, id);
  const counts = parseRefreshed(query.refreshed);
  return storyPageView({
    story,
    progress: getProgress(db, id),
    neighbours: neighboursOf(db, story),
    chapters: story.chapterCount > 1 ? listChapters(db, id) : [],
    follow: followState(db, id, UPDATES_SHOWN),
    // The story row holds the reading state: reading it again (findReadingState) would walk a long work's text a second time.
    reader: readerStateView(id, story, { status: query.status !== undefined, favourite: query.favourite !== undefined }),
    send: sendFormView(id, mail, query.sent !== undefined),
    notice: query.rated === undefined ? '' : 'Rating saved.',
    refresh: refreshError !== undefined ? { error: refreshError } : counts === undefined ? undefined : { counts },
  });
}

export function storyPageView(data: StoryPageData): StoryPageView {
  const { story, progress } = data;
  const href = storyHref(story.id);
  const language = languageOf(story.language);
  const length = story.chapterCount > 1 ? `${countText(story.chapterCount, 'chapter')} · ${lengthText(story.wordCount)}` : lengthText(story.wordCount);
  const many = data.chapters.length > 1;
  const here = progress.updatedAt === null ? 0 : chapterToOpen(progress, data.chapters.map((c) => c.wordCount));
  return {
    title: story.title,
    id: story.id,
    cover: story.coverPath === null ? undefined : { thumbnail: thumbnailUrl(story.coverPath, 320), full: `/api/files/images/${story.coverPath.split('/').map(encodeURIComponent).join('/')}` },
    authors: authorLinks(story.authors),
    series:
      story.seriesId === null
        ? undefined
        : {
            href: `/series/${encodeURIComponent(story.seriesId)}`,
            name: story.seriesName ?? '',
            volumeLabel: story.volume === null ? '' : `Volume ${story.volume}`,
            previous: neighbourLink(data.neighbours.previous, 'Previous'),
            next: neighbourLink(data.neighbours.next, 'Next'),
          },
    lang: language?.lang ?? '',
    facts: storyFacts(story, language?.fact, length),
    tagGroups: groupTagsByKind(story.tags).map((group) => ({ label: group.label, tags: group.tags.map((tag) => ({ href: tagHref(tag.name), text: tag.name })) })),
    length,
    summary: nonEmpty(story.summary),
    description: nonEmpty(story.description),
    source: story.sourceUrl === null || story.sourceUrl === '' ? undefined : outsideLink(story.sourceUrl),
    sourceRel: OUTSIDE_REL,
    contents: many ? contentsEntries(story.id, data.chapters, here) : undefined,
    follow: followView(story.id, data.follow, data.refresh),
    rating: story.rating,
    ratings: [1, 2, 3, 4, 5],
    readHref: `${href}/read`,
    readLabel: readLabel(progress),
    epubHref: `/api/stories/${story.id}/epub`,
    editHref: `${href}/edit`,
    deleteHref: `${href}/delete`,
    ratingAction: `${href}/rating`,
    send: data.send,
    notice: data.notice,
    reader: data.reader,
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

/** One formatter for every count: `toLocaleString` builds a new one per call, which 5,000 contents lines made a third of the page's time. */
const COUNT_FORMAT = new Intl.NumberFormat('en-US');

/** "1,234": a count as the pages write it, with the one formatter. */
export function numberText(count: number): string {
  return COUNT_FORMAT.format(count);
}

/** "1 word", "1,234 words", "3 chapters". */
function countText(count: number, noun: string): string {
  return `${numberText(count)} ${count === 1 ? noun : `${noun}s`}`;
}

function wordsText(words: number): string {
  return countText(words, 'word');
}

/**
 * The reader's page for one chapter (docs/decisions.md, "Story page and reader"): only this
 * chapter's text; the contents from the chapters' titles and word counts. A one-chapter story
 * has no contents or chapter links and reads as the whole story always did.
 */
export function readerView(
  story: ReaderStory,
  contents: readonly ChapterMetaDto[],
  chapter: Pick<ChapterDto, 'index' | 'title' | 'wordCount' | 'contentHtml'>,
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
          contents: contentsEntries(story.id, contents, index),
          previous: link(contents[index - 2]),
          next: link(contents[index]),
        }
      : undefined,
    previous: neighbourLink(neighbours.previous, 'Previous'),
    next: neighbourLink(neighbours.next, 'Next'),
    editHref: `${href}/edit`,
  };
}

export function deleteView(story: Pick<StoryDto, 'id' | 'title'>): DeleteView {
  const href = storyHref(story.id);
  return { title: 'Delete story?', id: story.id, storyTitle: story.title, action: `${href}/delete`, cancelHref: href };
}
