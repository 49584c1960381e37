/**
 * A KOReader copy keeps syncing (docs/decisions.md, "KOReader sync", "EPUB export"): a book's
 * bytes depend only on its contents, every hash issued for a story maps to it while the story
 * exists, whatever else is downloaded, and the file-name method finds the story too.
 */
import t from 'tap';
import { koreaderPartialMd5 } from '../../src/epub/partial-md5.js';
import { RENDITIONS_PER_BOOK } from '../../src/epub/renditions.js';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { download } from '../helpers/epub.js';
import { createStory } from '../helpers/factories.js';
import { deviceToken, koreader, md5 } from '../helpers/kosync.js';

const paragraphs = (n: number) => Array.from({ length: n }, (_, i) => `<p>Paragraph ${i}</p>`).join('');
const put = (document: string, block: number) => ({ document, progress: `/body/DocFragment[2]/body/p[${block}]/text().0`, percentage: 0.5, device: 'Kobo', device_id: 'K' });

async function webPosition(ctx: TestContext, id: string) {
  const body = (await ctx.get(`/api/stories/${id}/progress`)).json() as { position: string | null };
  return body.position;
}

const renditionCount = (ctx: TestContext, where: string, ...params: string[]) =>
  (ctx.app.db.$client.prepare(`SELECT count(*) AS n FROM epub_renditions WHERE ${where}`).get(...params) as { n: number }).n;

t.test('a rating keeps the bytes; a tag edit makes a new file, and the old copy still syncs to the paragraph', async (t) => {
  const ctx = await buildTestApp(t);
  const client = koreader(ctx, 'me', await deviceToken(ctx));
  const story = await createStory(ctx, { title: 'Kept', authorName: 'Ada', tagNames: ['old'], contentHtml: paragraphs(12) });
  const first = (await download(ctx, `/api/stories/${story.id}/epub`)).bytes;
  const onDevice = koreaderPartialMd5(first);

  t.equal((await ctx.put(`/api/stories/${story.id}`, { rating: 4 })).statusCode, 200);
  const rated = (await download(ctx, `/api/stories/${story.id}/epub`)).bytes;
  t.equal(md5(rated.toString('latin1')), md5(first.toString('latin1')), 'a rating is not in the book: same bytes, same KOReader hash');

  t.equal((await ctx.put(`/api/stories/${story.id}`, { tagNames: ['new'] })).statusCode, 200);
  const retagged = (await download(ctx, `/api/stories/${story.id}/epub`)).bytes;
  t.not(koreaderPartialMd5(retagged), onDevice, 'the tags are in the book: a new file');
  t.equal(koreaderPartialMd5((await download(ctx, `/api/stories/${story.id}/epub`)).bytes), koreaderPartialMd5(retagged), 'and the same again');

  t.equal((await client('update_progress', put(onDevice, 10))).status, 200);
  t.equal(await webPosition(ctx, story.id), '9', 'p[10] is block 9: the copy made before the edits still gives the paragraph, not position null');
  await ctx.put(`/api/stories/${story.id}/progress`, { progress: 0.5, position: '7' });
  t.match((await client('get_progress', { document: onDevice })).body, { progress: '/body/DocFragment[2]/body/p[8].0' }, 'and gets it back as an xpointer');

  // The text changes: only the fraction of an old copy's position can be trusted.
  t.equal((await ctx.put(`/api/stories/${story.id}`, { contentHtml: `<p>New first</p>${paragraphs(12)}` })).statusCode, 200);
  await client('update_progress', put(onDevice, 4));
  t.equal(await webPosition(ctx, story.id), null, 'a changed text keeps the fraction only');
});

t.test('every hash issued for a story maps to it while it exists, however many other books are made', async (t) => {
  const ctx = await buildTestApp(t);
  const client = koreader(ctx, 'me', await deviceToken(ctx));
  const story = await createStory(ctx, { title: 'Old copy', contentHtml: paragraphs(6) });
  const other = await createStory(ctx, { title: 'Other', contentHtml: paragraphs(2) });
  const onDevice = koreaderPartialMd5((await download(ctx, `/api/stories/${story.id}/epub`)).bytes);

  // Ten thousand and fifty newer books of other stories, and more than one book's bound of
  // versions of `other`, recorded since.
  const insert = ctx.app.db.$client.prepare(
    "INSERT INTO epub_renditions (hash, kind, entity_key, entity_version, spine, created_at) VALUES (?, 'story', ?, 'v', '[null]', ?)",
  );
  ctx.app.db.$client.transaction(() => {
    for (let i = 0; i < 10_050; i += 1) insert.run(md5(`other book ${i}`), `not-a-story-${i}`, '2999-01-01T00:00:00.000Z');
    for (let i = 0; i < RENDITIONS_PER_BOOK.story + 5; i += 1) insert.run(md5(`other version ${i}`), other.id, new Date(Date.UTC(2000, 0, 1) + i).toISOString());
  })();
  await download(ctx, `/api/stories/${other.id}/epub`);

  t.equal((await client('update_progress', put(onDevice, 3))).status, 200);
  t.equal(await webPosition(ctx, story.id), '2', 'the old hash still names the story');
  t.ok(renditionCount(ctx, 'kind = ? AND entity_key = ?', 'story', other.id) <= RENDITIONS_PER_BOOK.story, 'one book keeps at most its bound');

  t.equal((await ctx.del(`/api/stories/${story.id}`)).statusCode, 200);
  t.equal(renditionCount(ctx, 'entity_key = ?', story.id), 0, "a deleted story's hashes go with it");
});

t.test("KOReader's file-name method: the MD5 of the name the download was saved under", async (t) => {
  const ctx = await buildTestApp(t);
  const client = koreader(ctx, 'me', await deviceToken(ctx));
  const story = await createStory(ctx, { title: 'Tides: a "study"?', authorName: 'Ada Writer', contentHtml: paragraphs(6) });
  const lone = await createStory(ctx, { title: 'No one wrote this.', contentHtml: paragraphs(6) });

  const viaOpds = await download(ctx, `/opds/stories/${story.id}.epub`);
  // KOReader's OPDS browser: "<author> - <title>", each of \/:*?"<>| replaced by _, then ".epub".
  t.equal((await client('update_progress', put(md5('Ada Writer - Tides_ a _study__.epub'), 4))).status, 200);
  t.equal(await webPosition(ctx, story.id), '3', "the OPDS browser's name");

  const header = String(viaOpds.res.headers['content-disposition']);
  const serverName = /filename="([^"]+)"/.exec(header)![1]!;
  await client('update_progress', put(md5(serverName), 6));
  t.equal(await webPosition(ctx, story.id), '5', `the server's name (${serverName})`);

  await download(ctx, `/opds/stories/${lone.id}.epub`);
  await client('update_progress', put(md5('Unknown Author - No one wrote this.epub'), 2));
  t.equal(await webPosition(ctx, lone.id), '1', 'no author: "Unknown Author", trailing dots dropped');
});
