import t, { type Test } from 'tap';
import { createEta, renderTemplate, type PageModel, type Template } from '../../src/web/render.js';
import type { LayoutModel } from '../../src/web/layout/view.js';
import { THEMES } from '../../src/web/layout/view.js';
import { ERROR_TEMPLATE } from '../../src/web/errors/routes.js';
import { errorView } from '../../src/web/errors/view.js';
import { LOGIN_TEMPLATE } from '../../src/web/login/routes.js';
import { loginView } from '../../src/web/login/view.js';
import { HOME_TEMPLATE } from '../../src/web/home/routes.js';
import { homeView } from '../../src/web/home/view.js';
import { parseHtml } from '../helpers/web.js';

const HOSTILE = '<script>alert(1)</script>"\'&';
const eta = createEta();

/** Every text field of the layout holds the hostile string; every list is filled. */
function fullLayout(): LayoutModel {
  return {
    documentTitle: HOSTILE,
    theme: 'dark',
    signedIn: true,
    nav: [
      { href: '/', label: HOSTILE, current: true },
      { href: '/library', label: 'Library', current: false },
    ],
    here: `/x?q=${HOSTILE}`,
    searchQuery: HOSTILE,
    css: '/assets/app.0123456789.css',
    icon: '/assets/icon.0123456789.svg',
    htmx: '/assets/htmx.0123456789.js',
    modules: ['/assets/theme.0123456789.js'],
    themes: THEMES,
  };
}

function emptyLayout(): LayoutModel {
  return { documentTitle: '', theme: 'auto', signedIn: false, nav: [], here: '/', searchQuery: '', css: '', icon: '', htmx: '', modules: [], themes: [] };
}

function check<M extends PageModel>(t: Test, label: string, name: Template<M>, full: M, empty: M): void {
  t.test(label, async (t) => {
    const fullHtml = renderTemplate(eta, name, { ...full, layout: fullLayout() });
    t.notMatch(fullHtml, /<script>alert/, 'the hostile string is escaped everywhere');
    t.match(fullHtml, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/, 'and shown as text');
    const page = parseHtml(fullHtml);
    t.equal(page.all('h1').length, 1, 'one h1');
    t.equal(page.attr('html', 'data-theme'), 'dark');
    t.equal(page.attr('html', 'lang'), 'en');
    t.ok(page.one('a.skip-link[href="#main"]'), 'a skip link');
    t.ok(page.one('main#main'), 'a main landmark');
    t.ok(page.one('nav[aria-label="Primary"] a[aria-current="page"]'), 'the current section is marked');
    t.ok(page.one('form[action="/search"][method="get"] input[name="q"]'), 'a search form');
    t.ok(page.one('form[action="/logout"][method="post"] button'), 'a logout button');
    t.equal(page.all('form[action="/theme"] button[name="theme"]').length, THEMES.length, 'a button per theme');
    t.equal(page.attr('body', 'hx-boost'), 'true');
    t.match(page.attr('meta[name="htmx-config"]', 'content'), /"allowEval":false/);

    const emptyHtml = renderTemplate(eta, name, { ...empty, layout: emptyLayout() });
    const bare = parseHtml(emptyHtml);
    t.equal(bare.all('h1').length, 1, 'one h1 with an empty model');
    t.notOk(bare.one('nav'), 'no navigation when logged out');
    t.notOk(bare.one('form[action="/logout"]'), 'no logout button when logged out');
    t.notMatch(emptyHtml, /undefined|\[object Object\]/, 'nothing missing shows as undefined');
  });
}

check(t, 'the error page', ERROR_TEMPLATE, { ...errorView(400, { error: HOSTILE, details: { [HOSTILE]: HOSTILE } }), title: HOSTILE, requestId: HOSTILE }, errorView(404, { error: '' }));
check(t, 'the login page', LOGIN_TEMPLATE, { ...loginView(HOSTILE, { password: HOSTILE, form: HOSTILE }), title: HOSTILE }, loginView('/'));
check(t, 'the home page', HOME_TEMPLATE, { ...homeView([], [], [], []), title: HOSTILE }, homeView([], [], [], []));

t.test('a 500 page shows the request id and no message from the error', async (t) => {
  const view = errorView(500, { error: 'TypeError: at /srv/secret.ts:12', requestId: 'req-9' });
  const html = parseHtml(renderTemplate(eta, ERROR_TEMPLATE, { ...view, layout: emptyLayout() }));
  t.equal(html.text('h1'), 'Something went wrong');
  t.notMatch(html.text('main'), /secret|TypeError/);
  t.match(html.text('main'), /req-9/);
});
