import type { FastifyPluginAsync } from 'fastify';
import { BadRequest } from '../../errors.js';
import { isTheme, THEME_COOKIE } from '../layout/view.js';
import { formFields } from '../form.js';
import { safeNext } from '../login/next.js';

/** A year: the theme is a preference, not a secret (not HttpOnly so a client module could read it). */
const THEME_COOKIE_SECONDS = 365 * 24 * 60 * 60;

/**
 * `POST /theme` (fields `theme`, `back`): stores the theme in a cookie, so the server renders
 * `data-theme` with no flash, and returns to the page (303), or answers 204 to a script. A plain form: works with JavaScript off;
 * src/web/client/theme.ts only saves the reload.
 */
export const themeRoutes: FastifyPluginAsync = async (app) => {
  app.post('/theme', { config: { publicPage: true }, bodyLimit: 8 * 1024 }, async (request, reply) => {
    const form = formFields(request.body);
    const theme = form.first('theme');
    if (!isTheme(theme)) throw new BadRequest('Unknown theme', { theme: 'must be one of auto, light, dark, sepia' });
    reply.setCookie(THEME_COOKIE, theme, { path: '/', maxAge: THEME_COOKIE_SECONDS, sameSite: 'lax', httpOnly: false });
    // A script's request (the client module, or htmx, says so with `HX-Request`) needs no page.
    // Not Sec-Fetch-Mode: Chromium sends no Sec-Fetch-* headers to plain-HTTP LAN addresses.
    if (request.headers['hx-request'] === 'true') return reply.code(204).send();
    return reply.redirect(safeNext(form.first('back')), 303);
  });
};
