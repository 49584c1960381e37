import t from 'tap';
import { tempDataDir } from '../helpers/app.js';
import { call, login, startServer } from '../helpers/server-process.js';

const PASSWORD = 'process test password';

t.test('SIGTERM during writes: exits 0 within 10 s and loses no answered request', async (t) => {
  const dataDir = tempDataDir(t);
  const env = { DATA_DIR: dataDir, APP_PASSWORD: PASSWORD };
  const server = await startServer(t, env);
  const token = await login(server.origin, PASSWORD);

  const answered: string[] = [];
  let refused = 0;
  const writes = Array.from({ length: 60 }, async (_, n) => {
    await new Promise((resolve) => setTimeout(resolve, n * 5));
    const title = `shutdown story ${n}`;
    try {
      const res = await call(server.origin, token, 'POST', '/api/stories', { title, tagNames: [`tag ${n % 7}`], authorName: `Author ${n % 5}` });
      if (res.status === 201) answered.push(title);
      else refused += 1;
    } catch {
      refused += 1;
    }
  });
  await new Promise((resolve) => setTimeout(resolve, 120));
  const signalledAt = Date.now();
  server.child.kill('SIGTERM');
  await Promise.all(writes);
  const code = await server.exited;
  t.equal(code, 0, 'exit code 0');
  t.ok(Date.now() - signalledAt < 10_000, 'within 10 s');
  t.ok(answered.length > 0, `${answered.length} writes answered before the stop, ${refused} refused`);
  t.notMatch(server.output(), /"level":(50|60)/, 'no error logged');

  const again = await startServer(t, env);
  const token2 = await login(again.origin, PASSWORD);
  const res = await call(again.origin, token2, 'GET', '/api/stories?size=100');
  const titles = new Set(((await res.json()) as { content: Array<{ title: string }> }).content.map((story) => story.title));
  for (const title of answered) t.ok(titles.has(title), `answered write kept: ${title}`);
  t.equal(titles.size, answered.length, 'and nothing unanswered appeared');
  again.child.kill('SIGINT');
  t.equal(await again.exited, 0, 'SIGINT also exits 0');
});
