import type { FastifyPluginAsync } from 'fastify';
import { render, template } from '../render.js';
import { homeView, type HomeView } from './view.js';

export const HOME_TEMPLATE = template<HomeView>('home/home');

/** `GET /`: the home page. */
export const homeRoutes: FastifyPluginAsync = async (app) => {
  app.get('/', async (_request, reply) => render(reply, HOME_TEMPLATE, homeView()));
};
