/**
 * The books pass the reference validator (docs/decisions.md, "EPUB export"): epubcheck, run on a
 * fixture set covering hostile HTML, tables, an embedded image and cover, non-Latin text, an
 * empty story, stories of chapters (one split over several documents, one with every metadata
 * field), a series of several stories and a tag book. epubcheck takes one file per run and
 * each run starts a JVM (several seconds), so there are three books, checked in parallel: the
 * hostile story alone (single-story metadata: series metas, cover, source), the series, and the
 * tag book, which holds every fixture story (hostile, empty, non-Latin, the series' volumes).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { download, uploadImage } from '../helpers/epub.js';
import { createStory, createTag } from '../helpers/factories.js';
import * as img from '../helpers/images.js';

const EPUBCHECK = '/usr/share/java/epubcheck.jar';

function epubcheck(file: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    // A quick-starting JVM: the check is short, so the C2 compiler and a parallel GC only cost CPU.
    execFile('java', ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-jar', EPUBCHECK, file], { timeout: 100_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}


const HOSTILE =
  '<p>Unclosed <b>bold <i>italic</p><p>Entities &amp; &nbsp; &eacute; &#x1F600; &lt;script&gt; &#1; </p>loose text<br>after break' +
  '<table><caption>Cap</caption><tr><td>a<td colspan="2">b</tr><tr><th scope="bad">c</table>' +
  '<table><tbody><tr><td>1</td></tr></tbody><tr><td>2</td></tr><tfoot><tr><td>f</td></tr></tfoot><thead><tr><th>h</th></tr></thead></table>' +
  '<script>alert(1)</script><ul><p>not li</p><li>li</li>text</ul><li>stray</li><h2><p>para in heading</p></h2>' +
  '<a href="/relative">rel</a><a href="http://example.com/a b">space</a><a href="mailto:x@example.com">mail</a><strike>old</strike>' +
  '<span><ul><li>in span</li></ul></span><dl><dt>t</dt>x<dd>d</dd></dl><td colspan="0">stray cell</td><tr><td>stray row</td></tr>' +
  '<figure><p>x</p><figcaption>mid</figcaption><p>y</p><figcaption>end</figcaption></figure>' +
  '<ol start="abc" type="z"><li>o</li></ol><p lang="not a tag!" dir="sideways">bad attributes</p>' +
  '<a href="https://a.example/"><a href="https://b.example/">nested</a></a><pre><div>block in pre</div></pre>' +
  '<img src="https://remote.example/x.png" alt="remote"><img src="https://remote.example/noalt.png"><hr><blockquote><p>q</p></blockquote>' +
  '<table><p>fostered</p>text in table<tr><td>cell</td><em>fostered too</em></tr></table>' +
  '<p>Ελληνικά, русский, 日本語の文章, العربية, עברית, हिन्दी</p>';

t.test('every fixture book passes epubcheck with no errors', async (t) => {
  const ctx = await buildTestApp(t);
  const cover = await uploadImage(ctx, img.jpeg(), 'c.jpg', 'image/jpeg');
  const picture = await uploadImage(ctx, img.png(), 'p.png', 'image/png');
  const hostile = await createStory(ctx, {
    title: 'Hostile & “Ünïcode” 日本語',
    authorNames: ['Ανώνυμος', 'Co & Author'],
    status: 'in-progress',
    publishedAt: '2024-01-02T03:04:05.000Z',
    sourceUpdatedAt: '2024-05-13T00:00:00.000Z',
    language: 'el',
    seriesName: 'Σειρά',
    volume: 1,
    tagNames: ['ελληνικά', 'tables'],
    summary: 'Summary <with> markup-like text',
    sourceUrl: 'https://example.com/s?a=1&b=2',
    coverPath: cover,
    chapters: [
      { title: 'One & “first”', contentHtml: `${HOSTILE}<p><img src="/api/files/images/${picture}" alt="inline" width="50%"></p>` },
      { title: '', contentHtml: `<img src="/api/files/images/${picture}" alt="again">${HOSTILE}` },
    ],
  });
  await createTag(ctx, 'bookshelf');
  await createStory(ctx, { title: 'Empty', tagNames: ['bookshelf'] });
  await ctx.put(`/api/stories/${hostile.id}`, { tagNames: ['ελληνικά', 'tables', 'bookshelf'] });
  for (const volume of [2, 1, 3]) {
    await createStory(ctx, { title: `Volume ${volume}`, seriesName: 'Saga', volume, tagNames: ['bookshelf'], contentHtml: `<p>Volume ${volume} text.</p><h2>Part</h2><p>More.</p>` });
  }
  // A story of chapters, one long enough to be split over several documents.
  const long = `<p>${'A long paragraph of the serial. '.repeat(40)}</p>`.repeat(300);
  await createStory(ctx, {
    title: 'Volume 4',
    seriesName: 'Saga',
    volume: 4,
    tagNames: ['bookshelf'],
    chapters: [
      { title: 'Arrival', contentHtml: '<p>First.</p>' },
      { title: 'The long one', contentHtml: long },
    ],
  });
  const saga = (await ctx.get('/api/series/search?query=Saga')).json().content[0].id as string;
  const tagId = (await ctx.get('/api/tags/search?query=bookshelf')).json().content[0].id as string;

  const books = {
    hostile: `/api/stories/${hostile.id}/epub`,
    series: `/api/series/${saga}/epub`,
    tag: `/api/tags/${tagId}/epub`,
  };
  const files = await Promise.all(
    Object.entries(books).map(async ([name, url]) => {
      const file = path.join(ctx.dataDir, `${name}.epub`);
      fs.writeFileSync(file, (await download(ctx, url)).bytes);
      return [name, file] as const;
    }),
  );
  const results = await Promise.all(files.map(async ([name, file]) => [name, await epubcheck(file)] as const));
  for (const [name, result] of results) {
    t.match(result.output, /Messages: 0 fatals \/ 0 errors/, `${name}: no errors\n${result.output}`);
    t.equal(result.code, 0, `${name}: epubcheck exits 0`);
  }
});
