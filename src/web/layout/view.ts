import type { FastifyRequest } from 'fastify';
import type { AssetManifest } from '../assets.js';
import { personSignedIn } from '../../auth/principal.js';

/** The themes a reader may force; `auto` follows the system's `prefers-color-scheme`. */
export const THEMES = ['auto', 'light', 'dark', 'sepia'] as const;
export type Theme = (typeof THEMES)[number];
/** The cookie that carries the chosen theme, so the server renders `data-theme` and nothing flashes. */
export const THEME_COOKIE = 'theme';

export function isTheme(value: unknown): value is Theme {
  return typeof value === 'string' && (THEMES as readonly string[]).includes(value);
}

export interface NavLink {
  href: string;
  label: string;
  /** Whether the page shown is this section (rendered as `aria-current="page"`). */
  current: boolean;
}

/** What the layout template (src/web/layout/layout.eta) reads: built by `render`, never by a route. */
export interface LayoutModel {
  /** The document title, "<page> · Storyshelf". */
  documentTitle: string;
  theme: Theme;
  /** Whether to show the navigation, search form and logout button (not on /login or a logged-out error page). */
  signedIn: boolean;
  nav: NavLink[];
  /** The path and query shown, where the theme form returns to. */
  here: string;
  /** The search box's current text (the search page fills it). */
  searchQuery: string;
  css: string;
  /** The site icon (else the browser asks for /favicon.ico on every page). */
  icon: string;
  /** htmx, a classic deferred script. */
  htmx: string;
  /** The compiled browser modules (src/web/client), every one on every page. */
  modules: string[];
  themes: readonly Theme[];
}

const NAV: ReadonlyArray<{ href: string; label: string }> = [
  { href: '/', label: 'Home' },
  { href: '/library', label: 'Library' },
  { href: '/search', label: 'Search' },
  { href: '/tags', label: 'Tags' },
  { href: '/shelves', label: 'Shelves' },
  { href: '/settings', label: 'Settings' },
  { href: '/stories/new', label: 'Add story' },
];

function isCurrent(href: string, pathname: string): boolean {
  return href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(`${href}/`);
}

/** The layout part of every page, from the request: theme cookie, path, whether a token was verified. */
export function layoutModel(request: FastifyRequest, assets: AssetManifest, title: string, searchQuery = ''): LayoutModel {
  const here = request.url.length <= 2048 ? request.url : '/';
  const pathname = here.split('?')[0] ?? '/';
  // Cookies are parsed by an onRequest hook that a refused cross-site request never reaches.
  const cookie = request.cookies?.[THEME_COOKIE];
  const css = assets.url('app.css');
  const htmx = assets.url('htmx.js');
  const icon = assets.url('icon.svg');
  if (css === undefined || htmx === undefined || icon === undefined) throw new Error('src/web/assets/app.css, icon.svg or htmx is missing');
  const modules = assets.clientModules().map((name) => assets.url(name)).filter((url): url is string => url !== undefined);
  return {
    documentTitle: title === '' ? 'Storyshelf' : `${title} · Storyshelf`,
    theme: isTheme(cookie) ? cookie : 'auto',
    signedIn: personSignedIn(request),
    nav: NAV.map((link) => ({ ...link, current: isCurrent(link.href, pathname) })),
    here,
    searchQuery,
    css,
    icon,
    htmx,
    modules,
    themes: THEMES,
  };
}
