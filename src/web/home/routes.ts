import type { FastifyPluginAsync } from 'fastify';
import { continueReadingCards } from '../../stories/progress-service.js';
import { recentStoryCards, topRatedStoryCards } from '../../stories/list-service.js';
import { render, template } from '../render.js';
import { homeView, type HomeView } from './view.js';

export const HOME_TEMPLATE = template<HomeView>('home/home');

/** How many stories each home list shows. */
const HOME_LIST = 6;

/** `GET /`: the home page. */
export const homeRoutes: FastifyPluginAsync = async (app) => {
  app.get('/', async (_request, reply) =>
    render(reply, HOME_TEMPLATE, homeView(continueReadingCards(app.db, HOME_LIST), recentStoryCards(app.db, HOME_LIST), topRatedStoryCards(app.db, HOME_LIST))),
  );
};
