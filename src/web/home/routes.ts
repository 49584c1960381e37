import type { FastifyPluginAsync } from 'fastify';
import { unreadUpdateCards } from '../../follow/updates-service.js';
import { continueReadingCards } from '../../stories/progress-service.js';
import { recentStoryCards, topRatedStoryCards } from '../../stories/list-service.js';
import { render, template } from '../render.js';
import { homeView, type HomeView } from './view.js';

export const HOME_TEMPLATE = template<HomeView>('home/home');

/** How many stories each home list shows. */
const HOME_LIST = 6;
/** How many stories "Updated since you last read" shows: it comes first, so it may be a little longer. */
const HOME_UPDATED = 12;

/** `GET /`: the home page. */
export const homeRoutes: FastifyPluginAsync = async (app) => {
  app.get('/', async (_request, reply) => {
    const updated = unreadUpdateCards(app.db, HOME_UPDATED);
    // A story shown with its new chapters is not shown again under "Continue reading".
    const shown = new Set(updated.map(({ card }) => card.id));
    const reading = continueReadingCards(app.db, HOME_LIST + shown.size).filter(({ card }) => !shown.has(card.id)).slice(0, HOME_LIST);
    return render(reply, HOME_TEMPLATE, homeView(updated, reading, recentStoryCards(app.db, HOME_LIST), topRatedStoryCards(app.db, HOME_LIST)));
  });
};
