/**
 * Settings › Devices offers the OPDS path form with a new token (docs/api.md, "OPDS catalog"):
 * shown once with the secret, and it opens the catalog.
 */
import t from 'tap';
import { buildWebTestApp, parseHtml } from '../helpers/web.js';

t.test('a new token comes with the catalog address that carries it, and that address opens the catalog', async (t) => {
  const ctx = await buildWebTestApp(t);
  const made = await ctx.app.inject({
    method: 'POST',
    url: '/settings/tokens',
    payload: 'name=Kobo&scopes=read',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    cookies: { token: ctx.token },
  });
  t.equal(made.statusCode, 201);
  const html = parseHtml(made.body);
  const secret = html.text('.token-secret__value');
  const address = html.text('.token-secret__opds');
  t.match(address, new RegExp(`^http://localhost(:\\d+)?/opds/k/${secret}$`));
  const catalog = await ctx.app.inject({ method: 'GET', url: new URL(address).pathname });
  t.equal(catalog.statusCode, 200, 'the address works without any other credentials');
  t.match(catalog.headers['content-type'], /kind=navigation/);
  t.notOk((await ctx.page('/settings')).body.includes(secret), 'and, like the secret, is never shown again');
});
