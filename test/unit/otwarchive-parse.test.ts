import fs from 'node:fs';
import t from 'tap';
import { otwLanguage } from '../../src/import/url/otwarchive/language.js';
import { parseOtwPage, type OtwPage } from '../../src/import/url/otwarchive/parse.js';
import type { SourceWork } from '../../src/import/url/source-work.js';

const fixture = (name: string): string => fs.readFileSync(new URL(`../fixtures/otwarchive/${name}`, import.meta.url), 'utf8');
const ORIGIN = 'http://127.0.0.1:4567';
const OPTIONS = { maxChapters: 3000 };

function work(page: OtwPage | undefined): SourceWork {
  if (page?.kind !== 'work') throw new Error(`not a whole work: ${JSON.stringify(page)?.slice(0, 200)}`);
  return page.work;
}

t.test('the entire-work view of a finished three-chapter work: every field', async (t) => {
  const parsed = work(parseOtwPage(fixture('work-multi-chapter.html'), `${ORIGIN}/works/1001?view_full_work=true&view_adult=true`, OPTIONS));
  t.equal(parsed.url, `${ORIGIN}/works/1001`, 'the canonical address, without the view parameters');
  t.equal(parsed.uid, 'otwarchive:127.0.0.1:4567:1001');
  t.equal(parsed.site, '127.0.0.1:4567');
  t.equal(parsed.title, 'The Long Way Round');
  t.same(parsed.authors, ['inkwell']);
  t.match(parsed.summary, /<p>Ada keeps the light\. Tomas keeps <em>secrets<\/em>\.<\/p>/);
  t.same(parsed.tags, [
    { name: 'Teen And Up Audiences', kind: 'rating' },
    { name: 'No Archive Warnings Apply', kind: 'warning' },
    { name: 'F/M', kind: 'category' },
    { name: 'Gen', kind: 'category' },
    { name: 'Lighthouse Keepers (Web Series)', kind: 'fandom' },
    { name: 'Maritime Folklore', kind: 'fandom' },
    { name: 'Ada Quill/Tomas Reed', kind: 'relationship' },
    { name: 'Ada Quill & Mira Vance', kind: 'relationship' },
    { name: 'Ada Quill', kind: 'character' },
    { name: 'Tomas Reed', kind: 'character' },
    { name: 'Mira Vance', kind: 'character' },
    { name: 'Slow Burn', kind: 'freeform' },
    { name: 'Found Family', kind: 'freeform' },
    { name: 'Storms & Shipwrecks', kind: 'freeform' },
    { name: 'Fluff and Angst', kind: 'freeform' },
  ]);
  t.equal(parsed.language, 'en');
  t.equal(parsed.publishedAt, '2024-01-05');
  t.equal(parsed.sourceUpdatedAt, '2024-03-10', '"Completed:" is the last update');
  t.equal(parsed.status, 'complete', '3/3');
  t.same(parsed.series, []);
  t.same(
    parsed.chapters.map(({ title, sourceUrl, sourceKey }) => ({ title, sourceUrl, sourceKey })),
    [
      { title: 'The Lamp', sourceUrl: `${ORIGIN}/works/1001/chapters/5001`, sourceKey: '5001' },
      { title: 'Salt & Iron', sourceUrl: `${ORIGIN}/works/1001/chapters/5002`, sourceKey: '5002' },
      { title: 'Chapter 3', sourceUrl: `${ORIGIN}/works/1001/chapters/5003`, sourceKey: '5003' },
    ],
  );
  const [one, two, three] = parsed.chapters;
  t.match(one?.contentHtml, /^<p><strong>Notes:<\/strong><\/p>\n<blockquote><p>Written for the winter exchange\.<\/p><\/blockquote>/, 'the work notes open the first chapter');
  t.match(one?.contentHtml, /<p><strong>Summary:<\/strong><\/p>\n<blockquote>\s*<p>Night one\.<\/p>/, 'then the chapter summary');
  t.match(one?.contentHtml, /Hello, readers!/);
  t.match(one?.contentHtml, /Ada climbed the hundred steps of the tower again, lamp line 6/);
  t.match(one?.contentHtml, /Thanks for reading\.<\/p>\s*<\/blockquote>\n$/, 'end notes close it');
  t.notMatch(one?.contentHtml, /Chapter Text/, 'the landmark heading is not story text');
  t.notMatch(one?.contentHtml, /salt line/, 'each chapter has its own text only');
  t.match(two?.contentHtml, /^<p>Tomas came in from the rain/);
  t.match(three?.contentHtml, /morning line 1/);
});

t.test('a one-shot: its text without chapter markup, another language, no update date', async (t) => {
  const parsed = work(parseOtwPage(fixture('work-one-shot.html'), `${ORIGIN}/works/1002`, OPTIONS));
  t.equal(parsed.title, 'Una noche de niebla');
  t.same(parsed.authors, ['Marea Alta (marea)'], 'a pseud shows as AO3 shows it: "pseud (user)"');
  t.equal(parsed.language, 'es');
  t.equal(parsed.status, 'complete', '1/1');
  t.equal(parsed.publishedAt, '2023-11-02');
  t.equal(parsed.sourceUpdatedAt, '2023-11-02', 'never updated: the publication date');
  t.equal(parsed.chapters.length, 1);
  t.equal(parsed.chapters[0]?.title, '');
  t.match(parsed.chapters[0]?.contentHtml, /^<p>La niebla subía desde el puerto/);
  t.notMatch(parsed.chapters[0]?.contentHtml, /Work Text/);
  t.same(
    parsed.tags.filter((tag) => tag.kind === 'warning'),
    [{ name: 'Creator Chose Not To Use Archive Warnings', kind: 'warning' }],
  );
});

t.test('a work that grows: 3/? then 4/?, one chapter changed, a new chapter id', async (t) => {
  const v1 = work(parseOtwPage(fixture('work-growing-v1.html'), `${ORIGIN}/works/1003?view_full_work=true`, OPTIONS));
  const v2 = work(parseOtwPage(fixture('work-growing-v2.html'), `${ORIGIN}/works/1003?view_full_work=true`, OPTIONS));
  t.equal(v1.status, 'in-progress', '3/?');
  t.equal(v2.status, 'in-progress', '4/?');
  t.equal(v1.chapters.length, 3);
  t.equal(v2.chapters.length, 4);
  t.same(v2.chapters.map((chapter) => chapter.sourceKey), ['5201', '5202', '5203', '5207']);
  t.equal(v1.chapters[0]?.contentHtml, v2.chapters[0]?.contentHtml, 'an unchanged chapter parses identically');
  t.not(v1.chapters[1]?.contentHtml, v2.chapters[1]?.contentHtml, 'the revised chapter differs');
  t.equal(v1.sourceUpdatedAt, '2024-02-20');
  t.equal(v2.sourceUpdatedAt, '2024-04-02');
  t.same(
    v1.tags.filter((tag) => tag.kind === 'warning').map((tag) => tag.name),
    ['Graphic Depictions Of Violence', 'Major Character Death'],
  );
});

t.test('co-authors in order; the summary is sanitized; markup characters in the title', async (t) => {
  const parsed = work(parseOtwPage(fixture('work-coauthored.html'), `${ORIGIN}/works/1006`, OPTIONS));
  t.equal(parsed.title, 'Two Hands & One Lamp <3');
  t.same(parsed.authors, ['inkwell', 'Harbour Light (quietharbour)']);
  t.notMatch(parsed.summary, /script|alert/);
  t.match(parsed.summary, /<strong>one<\/strong>/);
  t.equal(parsed.status, 'in-progress', '2/5');
  t.equal(parsed.language, 'de');
});

t.test('a work in two series: each with its part; a Brazilian Portuguese work', async (t) => {
  const parsed = work(parseOtwPage(fixture('work-series-part-2.html'), `${ORIGIN}/works/1004`, OPTIONS));
  t.same(parsed.series, [
    { name: 'The Lighthouse Cycle', part: 2, url: `${ORIGIN}/series/2001` },
    { name: 'Ada Stories', part: 1, url: `${ORIGIN}/series/2002` },
  ]);
  t.equal(parsed.language, 'pt-BR', 'by name; the short code ptBR is not BCP 47');
  t.equal(parsed.chapters.length, 2);
});

t.test('one chapter of a longer work is a partial page that names the entire-work view', async (t) => {
  const page = parseOtwPage(fixture('chapter-view.html'), `${ORIGIN}/works/1001/chapters/5001`, OPTIONS);
  t.same(page, { kind: 'partial-work', workUrl: `${ORIGIN}/works/1001`, fullUrl: `${ORIGIN}/works/1001?view_full_work=true&view_adult=true` });
});

t.test('more chapters than allowed is refused before their text is read', async (t) => {
  const page = parseOtwPage(fixture('work-multi-chapter.html'), `${ORIGIN}/works/1001`, { maxChapters: 2 });
  t.same(page, { kind: 'too-many-chapters', workUrl: `${ORIGIN}/works/1001`, chapters: 3, limit: 2 });
});

t.test('the adult notice gives its continue link; the login page means restricted', async (t) => {
  t.same(parseOtwPage(fixture('adult-interstitial.html'), `${ORIGIN}/works/1005`, OPTIONS), { kind: 'adult', continueUrl: `${ORIGIN}/works/1005?view_adult=true` });
  t.same(parseOtwPage(fixture('restricted-login.html'), `${ORIGIN}/users/login?restricted=true&return_to=%2Fworks%2F1009`, OPTIONS), { kind: 'restricted' });
  t.equal(parseOtwPage(fixture('restricted-login.html'), `${ORIGIN}/users/login`, OPTIONS), undefined, 'a plain login page is no work');
  const adult = work(parseOtwPage(fixture('work-adult.html'), `${ORIGIN}/works/1005?view_adult=true`, OPTIONS));
  t.equal(adult.title, 'After Hours');
  t.same(adult.tags.find((tag) => tag.kind === 'rating'), { name: 'Explicit', kind: 'rating' });
});

t.test('a series page lists its works in order', async (t) => {
  t.same(parseOtwPage(fixture('series.html'), `${ORIGIN}/series/2001`, OPTIONS), {
    kind: 'series',
    name: 'The Lighthouse Cycle',
    url: `${ORIGIN}/series/2001`,
    works: [`${ORIGIN}/works/1007`, `${ORIGIN}/works/1004`, `${ORIGIN}/works/1008`],
    nextPage: null,
  });
  const paged = fixture('series.html').replace('<!--/content-->', '<ol class="pagination actions" role="navigation"><li class="next"><a rel="next" href="/series/2001?page=2">Next &#8594;</a></li></ol>');
  const page = parseOtwPage(paged, `${ORIGIN}/series/2001`, OPTIONS);
  t.equal(page?.kind === 'series' ? page.nextPage : undefined, `${ORIGIN}/series/2001?page=2`);
});

t.test('pages of other software are not otwarchive', async (t) => {
  t.equal(parseOtwPage('<html><body><div id="main" class="region"><article><p>Hello</p></article></div></body></html>', `${ORIGIN}/works/1`, OPTIONS), undefined);
  t.equal(parseOtwPage('<html><body><p>plain</p></body></html>', 'https://example.com/', OPTIONS), undefined);
});

t.test('languages: by name, by a well-formed short code, else unknown', async (t) => {
  t.equal(otwLanguage('Português europeu', 'ptPT'), 'pt-PT');
  t.equal(otwLanguage('中文-普通话 國語', 'zh'), 'zh');
  t.equal(otwLanguage('Lingua Nova', 'sco'), 'sco', 'an unlisted name with a well-formed code');
  t.equal(otwLanguage('Lingua Nova', 'xxBAD'), null);
});
