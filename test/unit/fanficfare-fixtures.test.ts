/**
 * The committed FanFicFare output (test/fixtures/fanficfare) holds what its README says: each
 * claim the README makes about these files is checked here, so the two cannot drift apart. No
 * application code is under test; the importer's own tests will read the same files.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { entryText, readZip, xmlElements, xmlTexts, type EpubEntry } from '../helpers/epub.js';

const DIR = path.join(import.meta.dirname, '..', 'fixtures', 'fanficfare');
const CONTRIBUTOR = 'FanFicFare [https://github.com/JimmXinu/FanFicFare]';
const CHAPTER_METAS = ['chapterurl', 'chapterorigtitle', 'chaptertoctitle', 'chaptertitle'];

interface Book {
  entries: EpubEntry[];
  opf: string;
  /** Manifest hrefs of the spine, in reading order. */
  spine: string[];
}

async function book(name: string): Promise<Book> {
  const entries = await readZip(fs.readFileSync(path.join(DIR, name)));
  const opf = entryText(entries, 'content.opf');
  const hrefs = new Map(xmlElements(opf, 'item').map((item) => [item.attribs.id, item.attribs.href]));
  const spine = xmlElements(opf, 'itemref').map((ref) => hrefs.get(ref.attribs.idref ?? '') ?? '?');
  return { entries, opf, spine };
}

const text = (b: Book, name: string) => entryText(b.entries, name);
const chapters = (b: Book) => b.spine.filter((href) => /^OEBPS\/file\d{4}\.xhtml$/.test(href));
const bodyClass = (xhtml: string) => /<body class="([^"]+)"/.exec(xhtml)?.[1];
const meta = (xhtml: string, name: string) => new RegExp(`<meta name="${name}" content="([^"]*)"`).exec(xhtml)?.[1];
/** EPUB 2's `dc:date` elements by their `opf:event`. */
const dates = (b: Book) => Object.fromEntries([...b.opf.matchAll(/<dc:date opf:event="(\w+)">([^<]+)<\/dc:date>/g)].map((m) => [m[1], m[2]]));
const EPUBS = fs.readdirSync(DIR).filter((name) => name.endsWith('.epub'));

t.test('every EPUB: FanFicFare contributor, its uid, title page first, chapters with their four metas', async (t) => {
  t.equal(EPUBS.length, 13);
  for (const name of EPUBS) {
    const b = await book(name);
    t.ok(xmlTexts(b.opf, 'dc:contributor').includes(CONTRIBUTOR), `${name}: contributor`);
    t.match(b.opf, /<dc:identifier id="fanficfare-uid">fanficfare-uid:test[14]\.com-u\d+-s\d+<\/dc:identifier>/, `${name}: uid`);
    t.equal(b.spine[0], 'OEBPS/title_page.xhtml', `${name}: title page first`);
    t.equal(bodyClass(text(b, 'OEBPS/title_page.xhtml')), 'fff_titlepage', name);
    t.ok(xmlElements(b.opf, 'guide').length === 0, `${name}: no EPUB 2 guide`);
    for (const href of chapters(b)) {
      const xhtml = text(b, href);
      t.equal(bodyClass(xhtml), 'fff_chapter', `${name} ${href}`);
      t.match(xhtml, /<h3 class="fff_chapter_title">/);
      for (const m of CHAPTER_METAS) t.type(meta(xhtml, m), 'string', `${name} ${href} ${m}`);
    }
    t.equal(xmlTexts(b.opf, 'dc:language')[0], 'en', `${name}: language`);
  }
});

t.test('EPUB 2 (test1-s1.epub): dates as dc:date events, URL identifier, subjects mix kinds and bookkeeping', async (t) => {
  const b = await book('test1-s1.epub');
  t.match(b.opf, /<package version="2\.0"/);
  t.equal(chapters(b).length, 9);
  t.equal(b.spine.length, 10, 'title page + 9 chapters, no contents page by default');
  t.match(dates(b), { publication: '1975-03-15', modification: '1975-04-15', creation: /^\d{4}-\d\d-\d\d$/ });
  t.match(b.opf, '<dc:identifier opf:scheme="URL">http://test1.com?sid=1</dc:identifier>');
  t.same(xmlTexts(b.opf, 'dc:source'), ['http://test1.com?sid=1']);
  const subjects = xmlTexts(b.opf, 'dc:subject');
  for (const s of ['FanFiction', 'Comedy', 'Harry Potter', 'Bob Smith', 'Last Update Year/Month: 1975/04', 'Last Update: 1975/04/15', 'In-Progress']) {
    t.ok(subjects.includes(s), `subject ${s}`);
  }
  t.ok(subjects.includes('Harry Potter &amp; Hermione Granger'), 'a relationship with & is escaped twice in dc:subject');
  t.notMatch(b.opf, 'calibre:series', 'the series is not in the OPF by default');
  const title = text(b, 'OEBPS/title_page.xhtml');
  t.match(title, "<b>Series:</b> <a class='serieslink' href='http://test1.com/seriesid=1'>The Great Test [1]</a><br />");
  t.match(title, '<b>Status:</b> In-Progress<br />');
  t.notMatch(title, '<b>Language:</b>', 'no Language line for English');
  t.match(text(b, 'OEBPS/file0002.xhtml'), '<h3 class="fff_chapter_title">Chapter 1, Xenos on Cinnabar</h3>');
  t.equal(meta(text(b, 'OEBPS/file0002.xhtml'), 'chapterurl'), 'http://test1.com?sid=1&amp;chapter=2');
});

t.test('EPUB 3 (test1-s1-epub3.epub): dcterms:modified only, URL: identifier, roles refined, nav without landmarks', async (t) => {
  const b = await book('test1-s1-epub3.epub');
  t.match(b.opf, /<package version="3\.0"/);
  t.equal(xmlElements(b.opf, 'dc:date').length, 0, 'no dc:date: the story dates are only on the title page');
  t.match(b.opf, /<meta property="dcterms:modified">\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ<\/meta>/);
  t.ok(xmlTexts(b.opf, 'dc:identifier').includes('URL:http://test1.com?sid=1'));
  t.match(b.opf, '<meta property="role" refines="#id-2" scheme="marc:relators">bkp</meta>');
  t.same(xmlTexts(b.opf, 'dc:subject'), xmlTexts((await book('test1-s1.epub')).opf, 'dc:subject'), 'the same dc:subject list as EPUB 2');
  const nav = xmlElements(b.opf, 'item').find((i) => i.attribs.properties === 'nav');
  t.equal(nav?.attribs.href, 'nav.xhtml', 'the nav document sits at the archive root, outside the spine');
  t.notOk(b.spine.includes('nav.xhtml'));
  t.notMatch(text(b, 'nav.xhtml'), 'landmarks');
  t.ok(b.entries.some((e) => e.name === 'toc.ncx'), 'the NCX is still there');
  t.equal(chapters(b).length, 9);
});

t.test('several authors, markup in the title, a completed work', async (t) => {
  const authors = await book('test1-s673-authors.epub');
  const creators = xmlTexts(authors.opf, 'dc:creator');
  t.equal(creators.length, 20);
  t.same(creators.slice(0, 2), ['Test Author aa', 'Author From List 1']);
  t.equal((text(authors, 'OEBPS/title_page.xhtml').match(/class='authorlink'/g) ?? []).length, 20);
  t.match(text(authors, 'OEBPS/title_page.xhtml'), '<b>Genre:</b> Comedy, Drama, Fantasy, Noir, Porn, Sci-Fi<br />');

  const markup = await book('test1-s664-markup.epub');
  t.equal(xmlTexts(markup.opf, 'dc:title')[0], "Test Story Title 664tests:[bare amp(&) qt(') amp(&) gt(>) lt(<) ATnT(AT&T) L(£) Onna(女)]");
  t.notMatch(text(markup, 'OEBPS/title_page.xhtml'), '<b>Series:</b>', 'sid >= 10: no series');

  const complete = await book('test1-s2-complete.epub');
  t.ok(xmlTexts(complete.opf, 'dc:subject').includes('Completed'));
  t.match(text(complete, 'OEBPS/title_page.xhtml'), '<b>Status:</b> Completed<br />');
});

t.test('options: calibre series meta, title page as a table, contents and log pages', async (t) => {
  const calibre = await book('test1-s3-calibre-series.epub');
  t.match(calibre.opf, '<meta name="calibre:series" content="The Great Test"/>');
  t.match(calibre.opf, '<meta name="calibre:series_index" content="3.00"/>');

  const table = text(await book('test1-s5-titlepage-table.epub'), 'OEBPS/title_page.xhtml');
  t.match(table, '<table class="full">');
  t.match(table, "<tr><td><b>Series:</b></td><td><a class='serieslink' href='http://test1.com/seriesid=1'>The Great Test [5]</a></td></tr>");

  const log = await book('test1-s7-toc-log.epub');
  t.same(log.spine.slice(0, 4), ['OEBPS/title_page.xhtml', 'OEBPS/toc_page.xhtml', 'OEBPS/log_page.xhtml', 'OEBPS/file0001.xhtml']);
  t.equal(bodyClass(text(log, 'OEBPS/toc_page.xhtml')), 'fff_tocpage');
  t.match(text(log, 'OEBPS/toc_page.xhtml'), '<title>Test Story Title 7 by Test Author aa</title>');
  t.equal(bodyClass(text(log, 'OEBPS/log_page.xhtml')), 'fff_logpage');
  t.match(text(log, 'OEBPS/log_page.xhtml'), '<b>Chapters:</b> <span id="numChapters">9</span>');
});

t.test('the 40-chapter work', async (t) => {
  const b = await book('test4-s40.epub');
  t.equal(chapters(b).length, 40);
  t.equal(meta(text(b, 'OEBPS/file0040.xhtml'), 'chaptertitle'), 'Chapter 39');
});

t.test('the growing work: v2 and the --update-epub result have 2 more chapters, one retitled; -u keeps the old text', async (t) => {
  const [v1, v2, updated] = [await book('grow-v1.epub'), await book('grow-v2.epub'), await book('grow-updated.epub')];
  t.equal(chapters(v1).length, 3);
  t.equal(chapters(v2).length, chapters(v1).length + 2);
  t.equal(chapters(updated).length, chapters(v1).length + 2);
  const uid = (b: Book) => xmlTexts(b.opf, 'dc:identifier')[0];
  t.equal(uid(v1), 'fanficfare-uid:test1.com-u45-s1000');
  t.equal(uid(v2), uid(v1));
  t.equal(uid(updated), uid(v1));
  t.equal(meta(text(v1, 'OEBPS/file0002.xhtml'), 'chaptertitle'), 'Chapter 1, Arrival');
  t.equal(meta(text(v2, 'OEBPS/file0002.xhtml'), 'chaptertitle'), 'Chapter 1, Arrival (revised)');
  t.equal(meta(text(updated, 'OEBPS/file0002.xhtml'), 'chaptertitle'), 'Chapter 1, Arrival (revised)');
  const stamp = (b: Book, href: string) => /<p>Timestamp:([^<]+)<\/p>/.exec(text(b, href))?.[1];
  t.equal(stamp(updated, 'OEBPS/file0002.xhtml'), stamp(v1, 'OEBPS/file0002.xhtml'), 'update kept the held chapter body');
  t.not(stamp(v2, 'OEBPS/file0002.xhtml'), stamp(v1, 'OEBPS/file0002.xhtml'), 'a fresh download fetched it again');
  t.equal(meta(text(updated, 'OEBPS/file0005.xhtml'), 'chaptertitle'), 'Chapter 4, Home');
  t.same([v1, v2, updated].map((b) => dates(b).modification), ['2024-05-13', '2024-06-20', '2024-06-20']);
  t.match(text(v1, 'OEBPS/title_page.xhtml'), "The Great Test [4]", "defaults.ini's [teststory:1000] series shows through personal.ini");
  t.match(text(v1, 'OEBPS/title_page.xhtml'), '<b>Language:</b> English<br />');
});

t.test('the first five chapters of sid 1 (--begin/--end): the same work, uid and chapter addresses, the title without the range', async (t) => {
  const [part, whole] = [await book('test1-s1-ch1-5.epub'), await book('test1-s1.epub')];
  t.equal(chapters(part).length, 5);
  t.equal(chapters(whole).length, 9);
  t.equal(xmlTexts(part.opf, 'dc:identifier')[0], 'fanficfare-uid:test1.com-u98765-s1');
  t.equal(xmlTexts(part.opf, 'dc:identifier')[0], xmlTexts(whole.opf, 'dc:identifier')[0]);
  t.equal(xmlTexts(part.opf, 'dc:title')[0], 'Test Story Title 1');
  for (const href of chapters(part)) t.equal(meta(text(part, href), 'chapterurl'), meta(text(whole, href), 'chapterurl'), href);
  t.equal(meta(text(part, 'OEBPS/file0005.xhtml'), 'chapterurl'), 'http://test1.com?sid=1&amp;chapter=5');
  t.match(text(part, 'OEBPS/title_page.xhtml'), '<b>Chapters:</b> 9<br />', "the title page still gives the work's own count");
});

t.test('HTML, TXT and JSON outputs', async (t) => {
  const html = fs.readFileSync(path.join(DIR, 'test1-s1.html'), 'utf8');
  t.equal((html.match(/<a name="section\d{4}"><h2>/g) ?? []).length, 9);
  t.match(html, '<a name="TOCTOP"><h2>Table of Contents</h2></a>');
  t.match(html, "<tr><td><b>Series:</b></td>", 'the HTML title block is a table');
  const txt = fs.readFileSync(path.join(DIR, 'test1-s1.txt'), 'utf8');
  t.match(txt, 'TABLE OF CONTENTS');
  t.match(txt, 'Story URL: http://test1.com?sid=1');
  for (const name of ['test1-s1.epub', 'test1-s1-epub3.epub', 'grow-v1.epub', 'grow-v2.epub', 'grow-updated.epub']) {
    const json = JSON.parse(fs.readFileSync(path.join(DIR, `${name}.json`), 'utf8')) as Record<string, unknown>;
    t.match(json, { storyUrl: /^http:\/\/test1\.com\?sid=\d+$/, numChapters: /^\d+$/, version: '4.59.9' }, name);
  }
  const grown = JSON.parse(fs.readFileSync(path.join(DIR, 'grow-v2.epub.json'), 'utf8')) as Record<string, unknown>;
  t.match(grown, { numChapters: '5', status: 'In-Progress' });
});

t.test('the replay stand-in writes the fixture under FanFicFare\'s name and refuses an option for a URL', async (t) => {
  const run = promisify(execFile);
  const script = path.join(DIR, 'replay-fanficfare.mjs');
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'fff-replay-'));
  t.teardown(() => fs.rmSync(cwd, { recursive: true, force: true }));
  t.equal((await run(process.execPath, [script, '--version'])).stdout, 'Version: 4.59.9\n');
  await run(process.execPath, [script, '--non-interactive', '-f', 'epub', '-o', 'epub_version=3.0', '--json-meta-file', 'http://test1.com?sid=1'], { cwd });
  t.same(fs.readFileSync(path.join(cwd, 'Test Story Title 1-tst1_1.epub')), fs.readFileSync(path.join(DIR, 'test1-s1-epub3.epub')));
  t.ok(fs.existsSync(path.join(cwd, 'Test Story Title 1-tst1_1.epub.json')));
  await run(process.execPath, [script, 'http://test1.com?sid=1000'], { cwd, env: { ...process.env, FANFICFARE_REPLAY_STAGE: '1' } });
  t.same(fs.readFileSync(path.join(cwd, 'Growing Test Story-tst1_1000.epub')), fs.readFileSync(path.join(DIR, 'grow-v1.epub')));
  await run(process.execPath, [script, 'http://test1.com?sid=1'], { cwd, env: { ...process.env, FANFICFARE_REPLAY_STAGE: '1' } });
  t.same(fs.readFileSync(path.join(cwd, 'Test Story Title 1-tst1_1.epub')), fs.readFileSync(path.join(DIR, 'test1-s1-ch1-5.epub')));
  await t.rejects(run(process.execPath, [script, 'http://test1.com?sid=1'], { cwd, env: { ...process.env, FANFICFARE_REPLAY_STAGE: 'fail' } }), {
    code: 1,
    stderr: 'fanficfare.exceptions.FailedToDownload: Error downloading Chapter: http://test1.com?sid=1&chapter=2!\n',
  });
  for (const bad of [['-f', 'epub', '--', '-oops'], ['-f', 'epub', '--config=/etc/passwd']]) {
    await t.rejects(run(process.execPath, [script, ...bad], { cwd }), { code: 2 }, bad.join(' '));
  }
  await t.rejects(run(process.execPath, [script, 'http://example.org/x'], { cwd }), { code: 1 });
  t.same(fs.readdirSync(cwd).sort(), ['Growing Test Story-tst1_1000.epub', 'Test Story Title 1-tst1_1.epub', 'Test Story Title 1-tst1_1.epub.json']);
});
