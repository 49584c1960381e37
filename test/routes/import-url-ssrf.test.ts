import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { fixtureSite, redirect, serve, storyParagraphs } from '../helpers/fixture-site.js';
import { imageFolderFiles, png } from '../helpers/images.js';

const ARTICLE = storyParagraphs(['a', 'quiet', 'story', 'about', 'a', 'fox', 'who', 'kept', 'bees']);

t.test('private, loopback and metadata destinations are refused before any connection', async (t) => {
  const ctx = await buildTestApp(t);
  const target = await fixtureSite(t, { '/story': serve(`<html><body><article>${ARTICLE}</article></body></html>`) });
  const port = target.port;
  const urls = [
    `http://localhost:${port}/story`,
    `http://127.0.0.1:${port}/story`,
    `http://127.1:${port}/story`,
    `http://2130706433:${port}/story`,
    `http://0x7f.1:${port}/story`,
    `http://0177.0.0.1:${port}/story`,
    `http://[::1]:${port}/story`,
    `http://[::ffff:127.0.0.1]:${port}/story`,
    `http://0.0.0.0:${port}/story`,
    `http://169.254.169.254/latest/meta-data/`,
    `http://10.0.0.1:${port}/story`,
    `http://192.168.1.1/`,
    `http://[fd00::1]/`,
  ];
  for (const url of urls) {
    const response = await ctx.post('/api/import/url', { url });
    t.equal(response.statusCode, 403, `${url}: ${response.body}`);
    t.match(response.json().details?.url, /IMPORT_ALLOW_HOSTS/, `${url}: the message says how to allow it`);
  }
  t.same(target.received, [], 'the local server never received a request');
  t.equal(ctx.app.db.$client.prepare('SELECT count(*) FROM stories').pluck().get(), 0);
});

t.test('an allowed host cannot redirect, or point its images, to a host that is not allowed', async (t) => {
  // Both servers listen on the same loopback address; only the name `localhost` is allowed, so
  // the one reached as 127.0.0.1 is refused by address: the refusal is per hop, not per server.
  const ctx = await buildTestApp(t, { IMPORT_ALLOW_HOSTS: 'localhost' });
  const hidden = await fixtureSite(t, {
    '/secret': serve(`<html><body><article>${ARTICLE}</article></body></html>`),
    '/img.png': serve(png(), 'image/png'),
  });
  const allowed = await fixtureSite(t, {
    '/to-private': redirect(`http://127.0.0.1:${hidden.port}/secret`),
    '/page': serve(`<html><head><title>Bees</title></head><body><article>${ARTICLE}<p><img src="http://127.0.0.1:${hidden.port}/img.png" alt="x"><img src="/own.png" alt="own"></p></article></body></html>`),
    '/own.png': serve(png(), 'image/png'),
  });

  const redirected = await ctx.post('/api/import/url', { url: `http://localhost:${allowed.port}/to-private` });
  t.equal(redirected.statusCode, 403, redirected.body);
  t.same(allowed.received, ['/to-private'], 'the allowed host was asked');
  t.same(hidden.received, [], 'the redirect target was never contacted');

  const page = await ctx.post('/api/import/url', { url: `http://localhost:${allowed.port}/page` });
  t.equal(page.statusCode, 201, page.body);
  const sources = [...(page.json().contentHtml as string).matchAll(/<img[^>]*src="([^"]+)"/g)].map((match) => match[1]);
  t.equal(sources.length, 1, 'the image on the refused host is dropped');
  t.match(sources[0], /^\/api\/files\/images\/inline\//);
  t.same(hidden.received, [], 'its image was never requested');
  t.equal(imageFolderFiles(ctx.dataDir).length, 1);

  const direct = await ctx.post('/api/import/url', { url: `http://127.0.0.1:${hidden.port}/secret` });
  t.equal(direct.statusCode, 403, 'the address itself is still refused');
  t.same(hidden.received, []);
});

t.test('IMPORT_ALLOW_HOSTS is validated at startup', async (t) => {
  const { loadConfig, ConfigError } = await import('../../src/config.js');
  t.throws(() => loadConfig({ IMPORT_ALLOW_HOSTS: 'ok.example, http://bad/, 10.0.0.0/99' }), ConfigError);
  const config = loadConfig({ IMPORT_ALLOW_HOSTS: 'NAS.local, 192.168.1.20, [fd00::5], 10.0.0.0/8' });
  t.same(config.importAllowHosts, { names: ['nas.local'], addresses: ['192.168.1.20', 'fd00::5', '10.0.0.0/8'] });
  t.same(loadConfig({}).importAllowHosts, { names: [], addresses: [] });
});
