/**
 * The search worker pool in the real server process (docs/decisions.md, "Search worker pool"):
 * compiled under dist/ when the build is current (as `npm start` runs), from TypeScript through
 * tsx otherwise, the worker module is found and loaded; searches run on it while writes go on,
 * and SIGTERM still ends the process promptly with the threads started.
 */
import t from 'tap';
import { tempDataDir } from '../helpers/app.js';
import { call, login, startServer } from '../helpers/server-process.js';

const PASSWORD = 'process test password';

t.test('the server searches on its worker threads and stops cleanly with them running', async (t) => {
  const server = await startServer(t, { DATA_DIR: tempDataDir(t), APP_PASSWORD: PASSWORD, SEARCH_WORKERS: '2' });
  const token = await login(server.origin, PASSWORD);
  for (let i = 0; i < 20; i += 1) {
    const created = await call(server.origin, token, 'POST', '/api/stories', { title: `Lighthouse keeper ${i}`, contentHtml: `<p>beacon${i} and the sea</p>` });
    t.equal(created.status, 201);
    const found = await call(server.origin, token, 'GET', `/api/stories/search?query=beacon${i}`);
    t.equal(((await found.json()) as { totalHits: number }).totalHits, 1, `story ${i} found right after it was created`);
  }
  const searches = await Promise.all(
    Array.from({ length: 12 }, (_, i) => call(server.origin, token, 'GET', i % 2 === 0 ? '/api/stories/search?query=lighthouse&size=5' : '/api/stories/search/suggestions?query=lig')),
  );
  t.same(
    searches.map((res) => res.status),
    Array.from({ length: 12 }, () => 200),
    'concurrent searches and suggestions answered',
  );
  const signalledAt = Date.now();
  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0, 'exit code 0');
  t.ok(Date.now() - signalledAt < 10_000, 'within 10 s');
  t.notMatch(server.output(), /"level":(50|60)/, 'no error logged');
});
