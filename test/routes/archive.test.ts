/**
 * The library archive (docs/api.md, "Export and restore"; docs/decisions.md, "Library archive")
 * through the real HTTP stack on real SQLite files: a library made through the API survives an
 * export and a restore into another data folder entry for entry, a second restore updates
 * instead of duplicating, names that fold alike are merged, and hostile archives are refused
 * with nothing written.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { buildTestApp, tempDataDir, type TestContext } from '../helpers/app.js';
import { exportArchive, readArchive, restoreArchive, uploadArchive, zipOf } from '../helpers/archive.js';
import { png } from '../helpers/images.js';
import { fileUpload } from '../helpers/multipart.js';
import { asDevice, makeDeviceToken } from '../helpers/tokens.js';
import { ArchiveManifest, ArchiveStory } from '../../src/schemas/archive.js';
import { assertMatches } from '../helpers/schema.js';

async function upload(ctx: TestContext, kind: 'cover' | 'avatar'): Promise<string> {
  const res = await ctx.request({ method: 'POST', url: `/api/files/upload/${kind}`, ...fileUpload(png()) });
  if (res.statusCode !== 200) throw new Error(res.body);
  return (res.json() as { path: string }).path;
}

async function must(res: Promise<{ statusCode: number; body: string; json: () => unknown }>, status = 200) {
  const answer = await res;
  if (answer.statusCode !== status) throw new Error(`${answer.statusCode} ${answer.body}`);
  return answer.json() as Record<string, unknown>;
}

/** A small library touching every field: unicode, URLs, an avatar, a series with volumes, tags, ratings, a cover, an inline image, progress. */
async function buildLibrary(ctx: TestContext): Promise<{ storyIds: string[]; authorId: string }> {
  const author = await must(ctx.post('/api/authors', { name: 'Émile Zoë 作家', notes: 'Notes ✓', urls: ['https://example.org/émile', 'http://example.com/z'] }), 201);
  const authorId = author.id as string;
  await must(ctx.put(`/api/authors/${authorId}`, { rating: 4, avatarImagePath: await upload(ctx, 'avatar') }));
  const cover = await upload(ctx, 'cover');
  const inline = await upload(ctx, 'cover');
  const storyIds: string[] = [];
  for (let volume = 1; volume <= 3; volume += 1) {
    const story = await must(
      ctx.post('/api/stories', {
        title: `Ꮪtrange tale ${volume} — ΣΟΦΟΣ`,
        summary: 'A summary 🐉',
        description: 'Long description',
        contentHtml: `<p>Once upon a time, zebrafinch ${volume}.</p>${volume === 2 ? `<p><img src="/api/files/images/${inline}" alt="a map"></p>` : ''}`,
        sourceUrl: `https://example.org/story/${volume}`,
        authorId,
        seriesName: 'Saga of Straße',
        volume,
        rating: volume === 3 ? null : volume + 2,
        tagNames: ['Fantasy', 'ΣΟΦΟΣ'],
        coverPath: volume === 1 ? cover : null,
      }),
      201,
    );
    storyIds.push(story.id as string);
  }
  await must(ctx.post('/api/tags', { name: 'unused tag' }), 201);
  await must(ctx.put(`/api/stories/${storyIds[0]}/progress`, { progress: 0.5, position: 'p:12' }));
  return { storyIds, authorId };
}

/** The entries that must survive a round trip: the manifest without its date and app, everything else whole. */
function comparable(entries: Map<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of entries) {
    if (name === 'manifest.json') {
      const { createdAt: _createdAt, ...rest } = value as ArchiveManifest;
      out[name] = rest;
    } else out[name] = Buffer.isBuffer(value) ? value.toString('base64') : value;
  }
  return out;
}

t.test('export, restore into an empty library, export again: the same entries; search finds the restored stories', async (t) => {
  const source = await buildTestApp(t);
  const { storyIds } = await buildLibrary(source);
  const res = await source.get('/api/export');
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-type'], 'application/zip');
  t.match(res.headers['content-disposition'], /^attachment; filename="storyshelf-export-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.zip"$/);
  const first = await readArchive(res.rawPayload);
  const manifest = first.get('manifest.json') as ArchiveManifest;
  assertMatches(t, ArchiveManifest, manifest);
  t.same(manifest.counts, { authors: 1, series: 1, tags: 3, stories: 3, progress: 1, images: 3, shelves: 0 });
  t.equal(manifest.version, 1);
  const story = first.get(`stories/${storyIds[0]}.json`) as ArchiveStory;
  assertMatches(t, ArchiveStory, story);
  t.same(story.tagNames, ['fantasy', 'σοφος']);
  t.ok(Buffer.isBuffer(first.get(`stories/${storyIds[1]}.html`)), 'a readable copy beside each story');
  t.match((first.get(`stories/${storyIds[1]}.html`) as Buffer).toString(), /src="\.\.\/images\/covers\//, 'its images point into the archive');
  t.equal([...first.keys()].filter((name) => name.startsWith('images/')).length, 3, 'avatar, cover and inline image');

  const target = await buildTestApp(t);
  const job = await restoreArchive(target, res.rawPayload);
  t.equal(job.status, 'done', JSON.stringify(job.errors));
  t.same(job.errors, []);
  t.equal(job.done, job.total);
  t.same(fs.readdirSync(path.join(target.dataDir, 'jobs')), [], 'the uploaded archive is removed when its job ends');

  const second = await readArchive(await exportArchive(target));
  t.same(comparable(second), comparable(first), 'the restored library exports to the same entries');

  const found = await must(target.get('/api/stories/search?query=zebrafinch'));
  t.equal((found.results as unknown[]).length, 3, 'the search index holds the restored stories');
  const series = (await must(target.get('/api/series'))).content as { storyCount: number }[];
  t.equal(series[0]?.storyCount, 3, 'trigger-maintained counts are right');
  const author = await must(target.get(`/api/authors/${(story.authorId as string)}`));
  t.equal(author.averageStoryRating, 3.5);
  const progress = await must(target.get(`/api/stories/${storyIds[0]}/progress`));
  t.same([progress.progress, progress.position], [0.5, 'p:12']);
  const image = await target.get(`/api/files/images/${story.coverPath as string}`);
  t.equal(image.statusCode, 200, 'the cover is served');
});

t.test('a second restore updates instead of duplicating; names that fold alike are merged into the library row', async (t) => {
  const source = await buildTestApp(t);
  const { storyIds } = await buildLibrary(source);
  const archive = await exportArchive(source);

  const target = await buildTestApp(t);
  const own = await must(target.post('/api/authors', { name: 'ÉMILE ZOË 作家' }), 201);
  const ownStory = await must(target.post('/api/stories', { title: 'Already here', seriesName: 'SAGA OF STRASSE' }), 201);
  const first = await restoreArchive(target, archive);
  t.equal(first.status, 'done');
  await must(target.put(`/api/stories/${storyIds[2]}`, { title: 'Changed locally' }));
  const again = await restoreArchive(target, archive);
  t.equal(again.status, 'done');

  const stories = (await must(target.get('/api/stories?size=100'))).content as { id: string; title: string; authorId: string; seriesId: string }[];
  t.equal(stories.length, 4, 'three restored once each, plus the library own');
  t.equal(stories.find((item) => item.id === storyIds[2])?.title, 'Ꮪtrange tale 3 — ΣΟΦΟΣ', 'the archive version replaced the local edit');
  const restored = stories.filter((item) => storyIds.includes(item.id));
  t.ok(restored.every((item) => item.authorId === own.id), 'stories link to the library author of the same name');
  t.ok(restored.every((item) => item.seriesId === ownStory.seriesId), 'and to its series of the same name');
  const authors = (await must(target.get('/api/authors'))).content as { storyCount: number }[];
  t.equal(authors.length, 1, 'no second author');
  t.equal(authors[0]?.storyCount, 3);
  const tags = (await must(target.get('/api/tags?size=100'))).content as { name: string; storyCount: number }[];
  t.same(tags.map((tag) => [tag.name, tag.storyCount]).sort(), [['fantasy', 3], ['unused tag', 0], ['σοφος', 3]]);
});

t.test('hostile archives are refused with a 400 and nothing written', async (t) => {
  const ctx = await buildTestApp(t);
  const source = await buildTestApp(t);
  await buildLibrary(source);
  const good = await readArchive(await exportArchive(source));
  const manifest = JSON.stringify(good.get('manifest.json'));
  const cases: [string, Buffer, RegExp][] = [
    ['zip slip', await zipOf({ 'manifest.json': manifest, '../x': 'boom' }), /invalid relative path|unsafe/],
    ['absolute path', await zipOf({ 'manifest.json': manifest, '/etc/x': 'boom' }), /absolute path|unsafe/],
    ['a symlink', await zipOf({ 'manifest.json': manifest, 'images/covers/a.png': '/etc/passwd' }, { symlink: 'images/covers/a.png' }), /symbolic link/],
    ['no manifest', await zipOf({ 'authors.jsonl': '' }), /manifest.json is missing/],
    ['another format', await zipOf({ 'manifest.json': JSON.stringify({ format: 'calibre', version: 1 }) }), /does not say format/],
    ['a newer version', await zipOf({ 'manifest.json': JSON.stringify({ ...JSON.parse(manifest), version: 2 }) }), /version 2/],
    ['invalid manifest JSON', await zipOf({ 'manifest.json': '{"format":' }), /not valid JSON/],
    ['not a ZIP', Buffer.from('hello'), /not a readable ZIP/],
  ];
  for (const [what, bytes, reason] of cases) {
    const res = await uploadArchive(ctx, bytes);
    t.equal(res.statusCode, 400, what);
    t.match((res.json() as { details?: { file?: string } }).details?.file, reason, what);
  }
  const stories = await must(ctx.get('/api/stories'));
  t.equal(stories.totalElements, 0, 'nothing was restored');
  t.equal((await must(ctx.get('/api/authors'))).totalElements, 0);
});

t.test('bad entries are skipped and reported, the good ones restored', async (t) => {
  const source = await buildTestApp(t);
  const { storyIds } = await buildLibrary(source);
  const good = await readArchive(await exportArchive(source));
  const entries: Record<string, string | Buffer> = {};
  for (const [name, value] of good) {
    if (Buffer.isBuffer(value)) entries[name] = value;
    else if (name.endsWith('.jsonl')) entries[name] = (value as unknown[]).map((line) => JSON.stringify(line)).join('\n');
    else entries[name] = JSON.stringify(value);
  }
  entries[`stories/${storyIds[0]}.json`] = '{"id": "not json';
  entries[`stories/${storyIds[1]}.json`] = JSON.stringify({ ...(good.get(`stories/${storyIds[1]}.json`) as object), rating: 9 });
  entries['tags.jsonl'] += '\n{"id":"bad"}';
  const [author] = good.get('authors.jsonl') as Record<string, unknown>[];
  entries['authors.jsonl'] += `\n${JSON.stringify({ ...author, id: '00000000-0000-4000-8000-0000000000aa', name: '   ' })}`;
  const coverName = Object.keys(entries).find((name) => name.startsWith('images/covers/')) as string;
  entries[coverName] = Buffer.from('<html>not an image</html>');
  entries['stories/00000000-0000-4000-8000-000000000000.json'] = JSON.stringify({
    ...(good.get(`stories/${storyIds[2]}.json`) as object),
    contentHtml: ' '.repeat(2048),
  });
  const target = await buildTestApp(t);
  const archive = await zipOf(entries);
  const job = await restoreArchive(target, archive);
  t.equal(job.status, 'done');
  const files = job.errors.map((error) => error.file);
  t.ok(files.includes(`stories/${storyIds[0]}.json`), 'invalid JSON is reported');
  t.match(job.errors.find((error) => error.file === `stories/${storyIds[1]}.json`)?.error, /rating/, 'a schema violation names the field');
  t.ok(files.includes('tags.jsonl:4'), 'a bad list line is reported by line');
  t.match(job.errors.find((error) => error.file === 'authors.jsonl:2')?.error, /name: must not be blank/, 'the service rules hold too');
  t.ok(files.includes(coverName), 'an image that is not one is reported');
  t.match(job.errors.find((error) => error.file === 'stories/00000000-0000-4000-8000-000000000000.json')?.error, /not the one its name gives/);
  const stories = await must(target.get('/api/stories'));
  t.equal(stories.totalElements, 1, 'the one good story is restored');
});

t.test('an export needs a login session: 401 without one, 403 for a device token', async (t) => {
  const ctx = await buildTestApp(t);
  t.equal((await ctx.app.inject({ method: 'GET', url: '/api/export' })).statusCode, 401);
  const secret = await makeDeviceToken(ctx, ['read', 'progress', 'write']);
  t.equal((await asDevice(ctx, `Bearer ${secret}`, { method: 'GET', url: '/api/export' })).statusCode, 403);
  t.equal((await ctx.app.inject({ method: 'POST', url: '/api/import/archive' })).statusCode, 401);
});

t.test('a client that leaves mid-download stops the export and its database copy is deleted', async (t) => {
  const ctx = await buildTestApp(t);
  for (let i = 0; i < 30; i += 1) {
    await must(ctx.post('/api/stories', { title: `Long ${i}`, contentHtml: `<p>${randomText(200_000, i)}</p>` }), 201);
  }
  const origin = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const received = await new Promise<number>((resolve, reject) => {
    const request = http.get(`${origin}/api/export`, { headers: { cookie: `token=${ctx.token}` } }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > 64 * 1024) {
          request.destroy();
          resolve(bytes);
        }
      });
      response.on('error', () => undefined);
    });
    request.on('error', (error) => (error.message.includes('socket hang up') ? undefined : reject(error)));
  });
  t.ok(received > 64 * 1024, 'the download had started');
  const copies = path.join(ctx.dataDir, '.export');
  for (let wait = 0; wait < 200 && fs.readdirSync(copies).length > 0; wait += 1) await new Promise((resolve) => setTimeout(resolve, 25));
  t.same(fs.readdirSync(copies), [], 'the database copy is gone');
  const next = await ctx.get('/api/export');
  t.equal(next.statusCode, 200, 'the next export is not refused as concurrent');
  t.equal(((await readArchive(next.rawPayload)).get('manifest.json') as ArchiveManifest).counts.stories, 30);
});

/** Text that deflate cannot shrink much, so the archive is larger than the socket buffers. */
function randomText(length: number, seed: number): string {
  let state = seed + 1;
  let text = '';
  while (text.length < length) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    text += state.toString(36);
  }
  return text;
}

t.test('a restore interrupted by a shutdown resumes at the next start and finishes', async (t) => {
  const source = await buildTestApp(t);
  const author = await must(source.post('/api/authors', { name: 'Many' }), 201);
  for (let i = 0; i < 240; i += 1) await must(source.post('/api/stories', { title: `Tale ${i}`, authorId: author.id, tagNames: [`t${i % 7}`] }), 201);
  const archive = await exportArchive(source);

  const dataDir = tempDataDir(t);
  const first = await buildTestApp(t, { DATA_DIR: dataDir });
  const upload = await uploadArchive(first, archive);
  t.equal(upload.statusCode, 202);
  const { jobId } = upload.json() as { jobId: string };
  // Stopped once it has committed a step or more, before its end.
  for (let wait = 0; wait < 400; wait += 1) {
    const running = (await first.get(`/api/jobs/${jobId}`)).json() as { done: number };
    if (running.done > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await first.app.close();
  const stopped = new Database(path.join(dataDir, 'library.db'), { readonly: true });
  const row = stopped.prepare('SELECT status, done, total FROM jobs WHERE id = ?').get(jobId) as { status: string; done: number; total: number };
  stopped.close();
  t.equal(row.status, 'queued', 'the shutdown put the job back in the queue');
  t.ok(row.done > 0 && row.done < row.total, `it was stopped half-way (${row.done} of ${row.total})`);

  const second = await buildTestApp(t, { DATA_DIR: dataDir });
  let job = (await second.get(`/api/jobs/${jobId}`)).json() as { status: string; done: number; total: number; failed: number };
  for (let wait = 0; wait < 600 && job.status !== 'done' && job.status !== 'failed'; wait += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    job = (await second.get(`/api/jobs/${jobId}`)).json() as typeof job;
  }
  t.equal(job.status, 'done');
  t.equal(job.failed, 0);
  t.equal(job.done, job.total, 'every item counted once, across the restart');
  t.equal((await must(second.get('/api/stories?size=1'))).totalElements, 240);
  t.equal(((await must(second.get(`/api/authors/${author.id as string}`))).storyCount as number), 240);
});
