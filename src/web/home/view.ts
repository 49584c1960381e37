import type { StoryCard } from '../../stories/present.js';
import type { UnreadUpdateCard } from '../../follow/updates-service.js';
import type { PageModel } from '../render.js';
import { chapterReadHref } from '../layout/links.js';
import { cardView, type CardView } from '../library/view.js';

/** The home page: what arrived since the reader last read, what they were reading, what was added last, what is rated best. */
export interface HomeView extends PageModel {
  /** Stories with chapters newer than the reader's last save in them (docs/decisions.md, "Sources › Telling the reader"). */
  updated: CardView[];
  continueReading: CardView[];
  recent: CardView[];
  topRated: CardView[];
  /** No story at all: the page shows how to start instead of empty lists. */
  emptyLibrary: boolean;
}

/** "1 new chapter", "3 new chapters". */
export function newChaptersText(count: number): string {
  return count === 1 ? '1 new chapter' : `${count} new chapters`;
}

export function homeView(
  updated: UnreadUpdateCard[],
  reading: Array<{ card: StoryCard; progress: number; chapter: number | null }>,
  recent: StoryCard[],
  topRated: StoryCard[],
): HomeView {
  return {
    title: 'Welcome',
    updated: updated.map(({ card, newChapters, firstNew }) => ({
      ...cardView(card),
      newChapters: { href: chapterReadHref(card.id, firstNew), text: newChaptersText(newChapters) },
    })),
    continueReading: reading.map(({ card, progress, chapter }) => cardView(card, progress, chapter)),
    recent: recent.map((card) => cardView(card)),
    topRated: topRated.map((card) => cardView(card)),
    emptyLibrary: recent.length === 0,
  };
}
