import type { StoryCard } from '../../stories/present.js';
import type { PageModel } from '../render.js';
import { cardView, type CardView } from '../library/view.js';

/** The home page: what the reader was reading, what was added last, what is rated best. */
export interface HomeView extends PageModel {
  continueReading: CardView[];
  recent: CardView[];
  topRated: CardView[];
  /** No story at all: the page shows how to start instead of empty lists. */
  emptyLibrary: boolean;
}

export function homeView(reading: Array<{ card: StoryCard; progress: number; chapter: number | null }>, recent: StoryCard[], topRated: StoryCard[]): HomeView {
  return {
    title: 'Welcome',
    continueReading: reading.map(({ card, progress, chapter }) => cardView(card, progress, chapter)),
    recent: recent.map((card) => cardView(card)),
    topRated: topRated.map((card) => cardView(card)),
    emptyLibrary: recent.length === 0,
  };
}
