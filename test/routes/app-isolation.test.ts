/**
 * Two apps in one process share no process state (docs/architecture.md, "Ten habits", 1): each
 * has its own export slot, EPUB build queue, URL import locks and password-check bound, so a
 * busy app never makes another one wait or refuse.
 */
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';

t.test("an export running in one app does not make another answer 429", async (t) => {
  const [a, b] = await Promise.all([buildTestApp(t), buildTestApp(t)]);
  // What a running export holds while it streams (src/archive/service.ts).
  const running = a.app.libraryExports.tryAcquire();
  t.ok(running, "app A's export slot is taken");
  t.equal((await a.get('/api/export')).statusCode, 429, 'app A refuses a second export');
  const other = await b.get('/api/export');
  t.equal(other.statusCode, 200, 'app B exports all the same');
  t.equal(other.headers['content-type'], 'application/zip');
  running?.();
  t.equal((await a.get('/api/export')).statusCode, 200, 'app A exports again once its own export ended');
});

t.test("one app's busy EPUB builds do not hold up another's", async (t) => {
  const [a, b] = await Promise.all([buildTestApp(t), buildTestApp(t)]);
  const [storyA, storyB] = await Promise.all([createStory(a, { title: 'In A' }), createStory(b, { title: 'In B' })]);
  // Every build slot of app A taken, as by two long downloads.
  const held = [await a.app.epub.builds.acquire(), await a.app.epub.builds.acquire()];
  let answeredA = false;
  const waitingA = a.get(`/api/stories/${storyA.id}/epub`).then((res) => {
    answeredA = true;
    return res;
  });
  const fromB = await b.get(`/api/stories/${storyB.id}/epub`);
  t.equal(fromB.statusCode, 200, "app B's book is built while app A's queue is full");
  t.notOk(answeredA, "app A's book waits for its own queue");
  for (const release of held) release();
  t.equal((await waitingA).statusCode, 200, 'and is built once a slot frees');
});

t.test('each app has its own URL import locks, export slot and build queue', async (t) => {
  const [a, b] = await Promise.all([buildTestApp(t), buildTestApp(t)]);
  t.not(a.app.urlImports.locks, b.app.urlImports.locks);
  t.not(a.app.libraryExports, b.app.libraryExports);
  t.not(a.app.epub.builds, b.app.epub.builds);
});
