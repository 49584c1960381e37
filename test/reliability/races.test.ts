/**
 * Races (reliability, part 2 of 4), against the real server process with requests sent in parallel
 * over real sockets: find-or-create under 50 concurrent creates, concurrent uploads to one story or
 * author, concurrent renames to one name, and concurrent rating and author changes against the
 * trigger-maintained counts and averages. `npm run test:long` repeats each race more times.
 */
import t, { type Test } from 'tap';
import { tempDataDir } from '../helpers/app.js';
import * as img from '../helpers/images.js';
import { ApiClient, errorLogLines, filesIn, inspectDatabase, Random, sized, stopCleanly, testSeed, type ApiResponse } from '../helpers/reliability.js';
import { login, startServer } from '../helpers/server-process.js';

const PASSWORD = 'races test password';
const REPEAT = sized(1, 4);

const key = (name: string) => name.trim().normalize('NFC').toLowerCase();

function statuses(responses: ApiResponse[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const res of responses) counts[res.status] = (counts[res.status] ?? 0) + 1;
  return counts;
}

t.test('races over real sockets', async (t) => {
  const seed = testSeed(t, 'races');
  const rng = new Random(seed);
  const dataDir = tempDataDir(t);
  const server = await startServer(t, { DATA_DIR: dataDir, APP_PASSWORD: PASSWORD });
  const api = new ApiClient(server.origin, await login(server.origin, PASSWORD));

  for (let round = 1; round <= REPEAT; round += 1) {
    const tag = `${round}${rng.letters(5)}`;
    await t.test(`round ${round}: 50 concurrent creates naming one new author, series and tags find-or-create each once`, (t) => sameNewNames(t, api, rng, tag));
    await t.test(`round ${round}: concurrent creates of one name through each collection: one 201, the rest 409`, (t) => sameNameCreates(t, api, rng, tag));
    await t.test(`round ${round}: concurrent renames of different rows to one name: one 200, the rest 409`, (t) => sameNameRenames(t, api, rng, tag));
    await t.test(`round ${round}: concurrent cover uploads to one story leave one file, the one the row names`, (t) => coverUploads(t, api, rng, dataDir));
    await t.test(`round ${round}: concurrent avatar uploads (both endpoints) leave one file, the one the row names`, (t) => avatarUploads(t, api, rng, dataDir));
    await t.test(`round ${round}: uploads racing a story delete leave no file behind`, (t) => uploadsVersusDelete(t, api, rng, dataDir));
    await t.test(`round ${round}: concurrent ratings and author moves keep every average exact`, (t) => ratings(t, api, rng, tag));
    await t.test(`round ${round}: concurrent tag links, unlinks and deletes keep every count exact`, (t) => tagLinks(t, api, rng, tag));
  }

  const report = inspectDatabase(dataDir);
  t.equal(report.integrity, 'ok');
  t.same(report.foreignKeyProblems, []);
  t.same({ extra: report.ftsExtra, missing: report.ftsMissing, queued: report.pendingSearchChanges }, { extra: [], missing: [], queued: 0 }, 'the search index agrees');
  await stopCleanly(t, server);
  t.same(errorLogLines(server.output()), [], 'no error was logged');
});

async function sameNewNames(t: Test, api: ApiClient, rng: Random, tag: string): Promise<void> {
  const author = `Ann Lee ${tag}`;
  const series = `The Race ${tag}`;
  const tags = [`space opera ${tag}`, `Noir ${tag}`, `ÉTÉ ${tag}`];
  const variants = (name: string) => [name, name.toLowerCase(), ` ${name.toUpperCase()}`, `${name}  `, `\t${rng.recase(name)}`];
  const creates = await Promise.all(
    Array.from({ length: 50 }, (_, n) =>
      api.json('POST', '/api/stories', {
        title: `race story ${tag} ${n}`,
        authorName: rng.pick(variants(author)),
        seriesName: rng.pick(variants(series)),
        tagNames: tags.map((name) => rng.pick(variants(name))),
        rating: (n % 5) + 1,
      }),
    ),
  );
  t.same(statuses(creates), { 201: 50 }, 'every create succeeds');
  const stories = creates.map((res) => res.body);
  t.equal(new Set(stories.map((story) => story.authorId)).size, 1, 'one author for all');
  t.equal(new Set(stories.map((story) => story.seriesId)).size, 1, 'one series for all');
  t.equal(new Set(stories.flatMap((story) => story.tags.map((one: { id: string }) => one.id))).size, 3, 'three tags for all');

  const authors = (await api.get(`/api/authors/search?query=${encodeURIComponent(key(author))}`)).body;
  t.equal(authors.totalElements, 1, 'exactly one author with that name');
  t.equal(authors.content[0]?.storyCount, 50);
  t.equal(authors.content[0]?.averageStoryRating, 3, 'its average is the mean of 1..5 ten times over');
  const found = (await api.get(`/api/series/search?query=${encodeURIComponent(key(series))}`)).body;
  t.equal(found.totalElements, 1, 'exactly one series');
  t.equal(found.content[0]?.storyCount, 50);
  for (const name of tags) {
    const list = (await api.get(`/api/tags/search?query=${encodeURIComponent(key(name))}`)).body;
    t.equal(list.totalElements, 1, `exactly one tag ${key(name)}`);
    t.equal(list.content[0]?.storyCount, 50);
  }
  const search = await api.get(`/api/stories/search?query=${encodeURIComponent(`race story ${tag}`)}&size=1`);
  t.equal(search.body.totalHits, 50, 'search sees all 50');
}

async function sameNameCreates(t: Test, api: ApiClient, rng: Random, tag: string): Promise<void> {
  for (const [collection, name] of [['authors', `Bo Chen ${tag}`], ['series', `One Saga ${tag}`], ['tags', `one tag ${tag}`]] as const) {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => api.json('POST', `/api/${collection}`, { name: rng.chance(0.5) ? rng.recase(name) : ` ${name} ` })),
    );
    t.same(statuses(answers), { 201: 1, 409: 19 }, `${collection}: one created, 19 conflicts`);
    for (const res of answers.filter((one) => one.status === 409)) {
      t.same(Object.keys(res.body).sort(), ['details', 'error'], `${collection}: 409 is {error, details}`);
      t.type(res.body.details?.name, 'string');
    }
    const list = (await api.get(`/api/${collection}/search?query=${encodeURIComponent(key(name))}`)).body;
    t.equal(list.totalElements, 1, `${collection}: one row`);
  }
  // Story creates that find-or-create an author race explicit creates of the same name.
  const name = `Cy Race ${tag}`;
  const mixed = await Promise.all(
    Array.from({ length: 30 }, (_, n) =>
      n % 6 === 0 ? api.json('POST', '/api/authors', { name: rng.recase(name) }) : api.json('POST', '/api/stories', { title: `mixed ${tag} ${n}`, authorName: rng.recase(name) }),
    ),
  );
  const storyAnswers = mixed.filter((_, n) => n % 6 !== 0);
  const authorAnswers = mixed.filter((_, n) => n % 6 === 0);
  t.same(statuses(storyAnswers), { 201: 25 }, 'every story create succeeds');
  t.ok(authorAnswers.every((res) => res.status === 201 || res.status === 409), 'explicit author creates are 201 or 409');
  t.ok(authorAnswers.filter((res) => res.status === 201).length <= 1, 'at most one explicit create won');
  const authors = (await api.get(`/api/authors/search?query=${encodeURIComponent(key(name))}`)).body;
  t.equal(authors.totalElements, 1, 'one author in the end');
  t.equal(authors.content[0]?.storyCount, 25);
}

async function sameNameRenames(t: Test, api: ApiClient, rng: Random, tag: string): Promise<void> {
  for (const collection of ['tags', 'authors', 'series'] as const) {
    const rows = await Promise.all(Array.from({ length: 10 }, (_, n) => api.json('POST', `/api/${collection}`, { name: `rename ${collection} ${tag} ${n}` })));
    t.ok(rows.every((res) => res.status === 201));
    const target = `Shared Name ${collection} ${tag}`;
    const answers = await Promise.all(rows.map((row) => api.json('PUT', `/api/${collection}/${row.body.id}`, { name: rng.chance(0.5) ? rng.recase(target) : ` ${target}` })));
    t.same(statuses(answers), { 200: 1, 409: 9 }, `${collection}: one rename wins, nine conflict`);
    const list = (await api.get(`/api/${collection}/search?query=${encodeURIComponent(key(target))}`)).body;
    t.equal(list.totalElements, 1, `${collection}: one row has the name`);
    const winner = answers.find((res) => res.status === 200)?.body;
    t.equal(list.content[0]?.id, winner?.id, `${collection}: and it is the one answered 200`);
  }
}

function someImage(rng: Random): Buffer {
  return rng.weighted<() => Buffer>([
    [2, () => img.png()],
    [2, () => img.jpeg()],
    [1, () => img.webp()],
    [2, () => img.pngOfSize(rng.between(100_000, 2_500_000))],
  ])();
}

/** The image folders hold none of `uploaded` except `kept`, and `kept` holds the bytes sent. */
async function checkOneFileLeft(t: Test, api: ApiClient, dataDir: string, uploaded: Map<string, Buffer>, kept: string | null): Promise<void> {
  const live = new Set([...filesIn(dataDir, 'covers').keys(), ...filesIn(dataDir, 'avatars').keys()]);
  t.same([...uploaded.keys()].filter((relPath) => live.has(relPath) && relPath !== kept), [], 'no other upload is left in the folders');
  t.same(filesIn(dataDir, '.incoming').size, 0, 'no temp file is left');
  if (kept === null) return;
  t.ok(uploaded.has(kept), 'the row names one of the uploads');
  t.ok(live.has(kept), 'and its file exists');
  const served = await fetch(`${api.origin}/api/files/images/${kept}`, { headers: { cookie: `token=${api.token}` } });
  t.equal(served.status, 200);
  t.ok(Buffer.from(await served.arrayBuffer()).equals(uploaded.get(kept) as Buffer), 'serving the bytes of that upload');
}

async function coverUploads(t: Test, api: ApiClient, rng: Random, dataDir: string): Promise<void> {
  const story = (await api.json('POST', '/api/stories', { title: 'cover race' })).body;
  const images = Array.from({ length: 12 }, () => someImage(rng));
  const answers = await Promise.all(images.map((data) => api.upload('POST', `/api/stories/${story.id}/cover`, [{ name: 'file', data }])));
  t.same(statuses(answers), { 200: 12 }, 'every upload succeeds');
  const uploaded = new Map(answers.map((res, n) => [res.body.coverPath as string, images[n] as Buffer]));
  t.equal(uploaded.size, 12, 'each under its own name');
  const after = (await api.get(`/api/stories/${story.id}`)).body;
  await checkOneFileLeft(t, api, dataDir, uploaded, after.coverPath);
}

async function avatarUploads(t: Test, api: ApiClient, rng: Random, dataDir: string): Promise<void> {
  const author = (await api.json('POST', '/api/authors', { name: `avatar race ${rng.letters(8)}` })).body;
  const images = Array.from({ length: 12 }, () => someImage(rng));
  const answers = await Promise.all(
    images.map((data, n) =>
      n % 2 === 0
        ? api.upload('POST', `/api/authors/${author.id}/avatar`, [{ name: 'file', data }])
        : api.upload('PUT', `/api/authors/${author.id}`, [{ name: 'notes', value: `form ${n}` }, { name: 'avatar', data }]),
    ),
  );
  t.same(statuses(answers), { 200: 12 }, 'every upload succeeds');
  const uploaded = new Map(answers.map((res, n) => [(res.body.avatarPath ?? res.body.avatarImagePath) as string, images[n] as Buffer]));
  t.equal(uploaded.size, 12);
  const after = (await api.get(`/api/authors/${author.id}`)).body;
  await checkOneFileLeft(t, api, dataDir, uploaded, after.avatarImagePath);
}

async function uploadsVersusDelete(t: Test, api: ApiClient, rng: Random, dataDir: string): Promise<void> {
  const story = (await api.json('POST', '/api/stories', { title: 'doomed' })).body;
  const images = Array.from({ length: 8 }, () => someImage(rng));
  const uploads = images.map((data) => api.upload('POST', `/api/stories/${story.id}/cover`, [{ name: 'file', data }]));
  await new Promise((resolve) => setTimeout(resolve, rng.between(0, 30)));
  const deletes = await Promise.all([api.request('DELETE', `/api/stories/${story.id}`), api.request('DELETE', `/api/stories/${story.id}`), api.request('DELETE', `/api/stories/${story.id}/cover`)]);
  const answers = await Promise.all(uploads);
  t.ok(answers.every((res) => res.status === 200 || res.status === 404), `uploads are 200 or 404 (${JSON.stringify(statuses(answers))})`);
  t.same(statuses(deletes.slice(0, 2)), { 200: 1, 404: 1 }, 'one story delete wins, the other is 404');
  t.ok([200, 404].includes(deletes[2]?.status as number), 'the cover delete is 200 or 404');
  const uploaded = new Map(answers.filter((res) => res.status === 200).map((res) => [res.body.coverPath as string, Buffer.alloc(0)]));
  await checkOneFileLeft(t, api, dataDir, uploaded, null);
  t.equal((await api.get(`/api/stories/${story.id}`)).status, 404);
}

async function ratings(t: Test, api: ApiClient, rng: Random, tag: string): Promise<void> {
  const a = (await api.json('POST', '/api/authors', { name: `rated a ${tag}` })).body;
  const b = (await api.json('POST', '/api/authors', { name: `rated b ${tag}` })).body;
  const stories = await Promise.all(Array.from({ length: 10 }, (_, n) => api.json('POST', '/api/stories', { title: `rated ${tag} ${n}`, authorId: a.id, rating: (n % 5) + 1 })));
  const ids = stories.map((res) => res.body.id as string);
  const ops = Array.from({ length: 200 }, () => {
    const id = rng.pick(ids);
    return rng.weighted<() => Promise<ApiResponse>>([
      [5, () => api.json('POST', `/api/stories/${id}/rating`, { rating: rng.between(1, 5) })],
      [2, () => api.json('PUT', `/api/stories/${id}`, { rating: rng.chance(0.3) ? null : rng.between(1, 5) })],
      [2, () => api.json('PUT', `/api/stories/${id}`, { authorId: rng.pick([a.id, b.id, null]) })],
      [1, () => api.json('PUT', `/api/stories/${id}`, { authorName: rng.pick([`RATED A ${tag}`, `rated b ${tag}`]), rating: rng.between(1, 5) })],
    ])();
  });
  const answers = await Promise.all(ops);
  t.same(statuses(answers), { 200: 200 }, 'every change succeeds');
  await Promise.all([api.request('DELETE', `/api/stories/${ids[0]}`), api.json('POST', `/api/stories/${ids[1]}/rating`, { rating: 5 })]);

  for (const author of [a, b]) {
    const own = (await api.get(`/api/stories/author/${author.id}?size=100`)).body.content as Array<{ rating: number | null }>;
    const rated = own.map((story) => story.rating).filter((rating): rating is number => rating !== null);
    const mean = rated.length === 0 ? null : rated.reduce((x, y) => x + y, 0) / rated.length;
    const now = (await api.get(`/api/authors/${author.id}`)).body;
    t.equal(now.storyCount, own.length, `${author.name}: storyCount is the number of its stories`);
    if (mean === null) t.equal(now.averageStoryRating, null, `${author.name}: no rated story, no average`);
    else t.ok(Math.abs(now.averageStoryRating - mean) < 1e-9, `${author.name}: averageStoryRating ${now.averageStoryRating} is the mean ${mean}`);
  }
}

async function tagLinks(t: Test, api: ApiClient, rng: Random, tag: string): Promise<void> {
  const tags = await Promise.all(Array.from({ length: 4 }, (_, n) => api.json('POST', '/api/tags', { name: `linked ${tag} ${n}` })));
  const tagIds = tags.map((res) => res.body.id as string);
  const stories = await Promise.all(Array.from({ length: 6 }, (_, n) => api.json('POST', '/api/stories', { title: `linking ${tag} ${n}` })));
  const storyIds = stories.map((res) => res.body.id as string);
  const doomedTag = tagIds[3] as string;
  const ops = Array.from({ length: 150 }, (_, n) => {
    if (n === 75) return api.request('DELETE', `/api/tags/${doomedTag}`);
    const storyId = rng.pick(storyIds);
    const tagId = rng.pick(tagIds);
    return rng.weighted<() => Promise<ApiResponse>>([
      [4, () => api.request('POST', `/api/stories/${storyId}/tags/${tagId}`)],
      [3, () => api.request('DELETE', `/api/stories/${storyId}/tags/${tagId}`)],
      [1, () => api.json('PUT', `/api/stories/${storyId}`, { tagNames: rng.sample([`linked ${tag} 0`, `LINKED ${tag} 1`, `linked ${tag} 2`], rng.between(0, 3)) })],
    ])();
  });
  const answers = await Promise.all(ops);
  t.ok(answers.every((res) => res.status === 200 || (res.status === 404 && /Tag not found/.test(res.body?.error ?? ''))), `only 200, or 404 for the deleted tag (${JSON.stringify(statuses(answers))})`);
  const linked = new Map<string, number>();
  for (const id of storyIds) {
    for (const one of (await api.get(`/api/stories/${id}`)).body.tags as Array<{ id: string }>) linked.set(one.id, (linked.get(one.id) ?? 0) + 1);
  }
  t.notOk(linked.has(doomedTag), 'the deleted tag is on no story');
  for (const tagId of tagIds.slice(0, 3)) {
    const row = (await api.get(`/api/tags/${tagId}`)).body;
    t.equal(row.storyCount, linked.get(tagId) ?? 0, `tag ${row.name}: storyCount matches its links`);
  }
  const stats = (await api.get('/api/tags/stats')).body;
  t.equal(stats.totalTags, stats.usedTags + stats.unusedTags, 'stats add up');
}
