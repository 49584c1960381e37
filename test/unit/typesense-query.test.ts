/**
 * The pure parts of the Typesense engine: the search plans (filters, sorts, pages, what cannot be
 * expressed), reading an import's per-line answer, the backoff, and snippets from highlights
 * (escaped here, never trusting the markup).
 */
import t from 'tap';
import { backoffMs, BACKOFF_CAP_MS } from '../../src/search/typesense/outbox.js';
import { parseImportAnswer } from '../../src/search/typesense/client.js';
import { authorSearchPlan, MATCHES_NOTHING, NOT_EXPRESSIBLE, storySearchPlan } from '../../src/search/typesense/query.js';
import { highlightTags, segmentsOf, snippetFromHighlights } from '../../src/search/typesense/snippet.js';
import { authorSearchRequest, storySearchRequest } from '../../src/search/service.js';

const tags = highlightTags('test');

t.test('story plans: words, filters, sorts and 1-based pages', async (t) => {
  const plan = storySearchPlan(
    { query: 'Café  "crème" OR -brûlée', authors: ['Ada Lane', ' ADA LANE '], tags: ['Sea', 'night'], minRating: 3, sortBy: 'title', sortDir: 'asc', page: 2, size: 5 },
    tags,
  );
  if (typeof plan === 'symbol') throw new Error('expected a plan');
  t.equal(plan.parameters.q, 'cafe creme or brulee', 'folded words, no operators passed on');
  t.equal(plan.parameters.prefix, true, 'the last word is a prefix');
  t.equal(plan.parameters.filter_by, 'authorNameKey:=[`ada lane`] && tagNames:=`sea` && tagNames:=`night` && rating:>=3 && rating:<=5');
  t.equal(plan.parameters.sort_by, 'titleKey:asc,idKey:asc');
  t.equal(plan.parameters.page, 3, 'page 2 (0-based) is Typesense page 3');
  t.equal(plan.parameters.per_page, 5);
  t.equal(plan.parameters.num_typos, 0);
  t.equal(plan.parameters.drop_tokens_threshold, 0);
  t.equal(plan.parameters.highlight_start_tag, tags.start);

  const short = storySearchPlan(storySearchRequest({ query: 'ab' }), tags);
  t.equal(typeof short === 'object' && short.parameters.prefix, false, 'a last word under 3 characters is not a prefix');
  const all = storySearchPlan(storySearchRequest({ query: '*' }), tags);
  if (typeof all === 'symbol') throw new Error('expected a plan');
  t.equal(all.parameters.q, '*');
  t.equal(all.parameters.sort_by, 'createdAt:desc,idKey:desc', '"*" lists newest first');
  const relevance = storySearchPlan(storySearchRequest({ query: 'x y z', sortBy: 'relevance', sortDir: 'asc' }), tags);
  t.equal(typeof relevance === 'object' && relevance.parameters.sort_by, '_text_match:asc,createdAt:asc,idKey:asc');
  const byAuthor = storySearchPlan(storySearchRequest({ query: '*', sortBy: 'authorName', sortDir: 'desc' }), tags);
  t.equal(typeof byAuthor === 'object' && byAuthor.parameters.sort_by, 'authorNameKey(missing_values: last):desc,idKey:desc', 'stories without an author sort last');
  t.equal(storySearchPlan(storySearchRequest({ query: '!!! ???' }), tags), MATCHES_NOTHING);
  t.equal(storySearchPlan(storySearchRequest({ query: '*', tags: ['a`b'] }), tags), NOT_EXPRESSIBLE, 'a backtick cannot be written in filter_by');
  t.equal(storySearchPlan(storySearchRequest({ query: '*', authors: ['x`'] }), tags), NOT_EXPRESSIBLE);
});

t.test('author plans', async (t) => {
  const byName = authorSearchPlan(authorSearchRequest({ query: '*', sortBy: 'name', sortDir: 'desc' }));
  t.equal(typeof byName === 'object' && byName.parameters.sort_by, 'nameKey:desc');
  const byRating = authorSearchPlan(authorSearchRequest({ query: 'ada', sortBy: 'averageStoryRating', sortDir: 'asc', page: 0, size: 10 }));
  if (typeof byRating === 'symbol') throw new Error('expected a plan');
  t.equal(byRating.parameters.sort_by, 'averageStoryRating:asc,idKey:asc');
  t.equal(byRating.parameters.query_by, 'name,notes,urls');
  t.equal(byRating.parameters.page, 1);
});

t.test("an import's answer is read line by line", async (t) => {
  t.same(parseImportAnswer('{"success":true}\n{"success":false,"error":"Bad JSON.","document":"x"}', 2), [
    { success: true },
    { success: false, error: 'Bad JSON.' },
  ]);
  t.same(parseImportAnswer('{"success":true}', 3), [
    { success: true },
    { success: false, error: 'Typesense sent no result for this document' },
    { success: false, error: 'Typesense sent no result for this document' },
  ], 'a missing line is a failure');
  t.match(parseImportAnswer('not json', 1), [{ success: false, error: /unreadable/ }], 'an unreadable line is a failure');
  t.same(parseImportAnswer({ success: true }, 1), [{ success: true }], 'a one-line answer parsed as JSON');
  t.same(parseImportAnswer({ success: 'yes' }, 1), [{ success: false, error: 'import failed' }], 'only success: true counts');
});

t.test('backoff doubles from 0.5-1 s up to the cap, with jitter', async (t) => {
  t.equal(backoffMs(1, () => 0), 500);
  t.equal(backoffMs(1, () => 1), 1000);
  t.equal(backoffMs(2, () => 0), 1000);
  t.equal(backoffMs(4, () => 1), 8000);
  t.equal(backoffMs(40, () => 1), BACKOFF_CAP_MS, 'capped');
  t.equal(backoffMs(40, () => 0), BACKOFF_CAP_MS / 2, 'jitter keeps at least half');
});

t.test('snippets are escaped here; tags in the text cannot be forged', async (t) => {
  t.same(segmentsOf(`a ${tags.start}b${tags.end} c`, tags), [
    { text: 'a ', marked: false },
    { text: 'b', marked: true },
    { text: ' c', marked: false },
  ]);
  t.same(segmentsOf(`x ${tags.start}dangling`, tags), [{ text: 'x dangling', marked: false }], 'an unpaired tag is dropped');
  const document = { title: 'T', summary: '<b>bold</b> & <mark>not ours</mark> word' };
  const highlight = { field: 'summary', matched_tokens: ['word'], value: `<b>bold</b> & <mark>not ours</mark> ${tags.start}word${tags.end}` };
  t.equal(
    snippetFromHighlights(document, [highlight], tags),
    '&lt;b&gt;bold&lt;/b&gt; &amp; &lt;mark&gt;not ours&lt;/mark&gt; <mark>word</mark>',
  );
  const body = { field: 'contentPlain', matched_tokens: ['deep'], snippet: `in the ${tags.start}deep${tags.end} <end>` };
  t.equal(snippetFromHighlights({ title: 'T' }, [body], tags), 'in the <mark>deep</mark> &lt;end&gt;', "the body's window is used as Typesense cut it");
  const title = { field: 'title', matched_tokens: ['t'], value: `${tags.start}T${tags.end}` };
  t.equal(snippetFromHighlights({ title: 'T', summary: 'x' }, [title, body], tags), 'in the <mark>deep</mark> &lt;end&gt;', 'the body is preferred to the title');
  t.equal(snippetFromHighlights({ title: 'A & B' }, [], tags), 'A &amp; B', 'no text match: the title, escaped');
  const other = highlightTags();
  t.not(other.start, highlightTags().start, 'tags are random');
});
