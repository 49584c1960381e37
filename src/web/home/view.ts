import type { PageModel } from '../render.js';

/** The placeholder home page: a welcome line (the home page proper replaces this). */
export type HomeView = PageModel;

export function homeView(): HomeView {
  return { title: 'Welcome' };
}
