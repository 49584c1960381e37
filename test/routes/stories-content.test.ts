import t from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';
import { createStory } from '../helpers/factories.js';

interface Derived {
  contentHtml: string | null;
  contentPlain: string | null;
  wordCount: number;
}

async function derived(ctx: TestContext, contentHtml: unknown): Promise<Derived> {
  const res = await ctx.post('/api/stories', { title: 'HTML', contentHtml });
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  const { contentHtml: html, contentPlain, wordCount } = res.json() as Derived;
  return { contentHtml: html, contentPlain, wordCount };
}

t.test('contentPlain and wordCount are derived from the sanitized HTML', async (t) => {
  const ctx = await buildTestApp(t);

  const entities = await derived(ctx, '<p>Fish &amp; chips &lt;3 &quot;quoted&quot; caf&eacute; &#8212; done</p>');
  t.equal(entities.contentPlain, 'Fish & chips <3 "quoted" café — done', 'entities decoded');
  t.equal(entities.wordCount, 6, 'punctuation and symbols are not words');

  const breaks = await derived(ctx, '<p>line one<br>line two<br/>line three</p>');
  t.equal(breaks.contentPlain, 'line one\nline two\nline three', '<br> starts a new line');
  t.equal(breaks.wordCount, 6);

  const nested = await derived(
    ctx,
    '<div><div><p>  First   paragraph </p></div><blockquote><p>Quoted <em>text</em></p></blockquote></div><ul><li>one</li><li>two</li></ul><h2>Heading</h2>',
  );
  t.equal(
    nested.contentPlain,
    'First paragraph\n\nQuoted text\n\none\n\ntwo\n\nHeading',
    'blocks start and end a line (one blank line between), nesting adds no more, spaces collapse',
  );
  t.equal(nested.wordCount, 7);

  const inline = await derived(ctx, '<p>Hel<b>lo</b>, <i>world</i>!</p>');
  t.equal(inline.contentPlain, 'Hello, world!', 'inline elements do not split words');
  t.equal(inline.wordCount, 2);

  const cjk = await derived(ctx, '<p>我喜欢读书</p>');
  t.ok(cjk.wordCount >= 2, `CJK text counts by words (${cjk.wordCount})`);

  const scripted = await derived(ctx, '<p>Before</p><script>var secret = "never shown";</script><style>p{}</style><p>After</p>');
  t.notMatch(scripted.contentHtml, /script|secret|style/i, 'script and style removed with their content');
  t.equal(scripted.contentPlain, 'Before\n\nAfter');
  t.equal(scripted.wordCount, 2);
});

t.test('empty and text-free bodies', async (t) => {
  const ctx = await buildTestApp(t);
  t.same(await derived(ctx, ''), { contentHtml: null, contentPlain: null, wordCount: 0 }, '"" is stored as null');
  t.same(await derived(ctx, null), { contentHtml: null, contentPlain: null, wordCount: 0 });

  const noText = await derived(ctx, '<p>   </p><script>x()</script>');
  t.equal(noText.contentHtml, '<p>   </p>', 'HTML without text keeps its sanitized HTML');
  t.equal(noText.contentPlain, '');
  t.equal(noText.wordCount, 0);
});

t.test('updates re-derive the text, and an absent contentHtml keeps it', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await createStory(ctx, { contentHtml: '<p>one two</p>' });
  const updated = (await ctx.put(`/api/stories/${story.id}`, { contentHtml: '<p>three four five</p><img src="x" onerror="alert(1)">' })).json();
  t.equal(updated.contentHtml, '<p>three four five</p>', 'sanitized on update too');
  t.equal(updated.contentPlain, 'three four five');
  t.equal(updated.wordCount, 3);

  const untouched = (await ctx.put(`/api/stories/${story.id}`, { title: 'Renamed' })).json();
  t.equal(untouched.contentHtml, '<p>three four five</p>');
  t.equal(untouched.wordCount, 3);

  const emptied = (await ctx.put(`/api/stories/${story.id}`, { contentHtml: '' })).json();
  t.same([emptied.contentHtml, emptied.contentPlain, emptied.wordCount], [null, null, 0]);
});

t.test('XSS vectors never reach the stored HTML', async (t) => {
  const ctx = await buildTestApp(t);
  const vectors: Array<[string, RegExp]> = [
    ['<img src="https://example.com/a.png" onerror="alert(1)">', /onerror/i],
    ['<a href="javascript:alert(1)">click</a>', /javascript:/i],
    ['<a href="JaVaScRiPt:alert(1)">click</a>', /javascript:/i],
    ['<a href="&#106;avascript:alert(1)">click</a>', /avascript/i],
    ['<svg onload="alert(1)"><circle r="1"/></svg>', /svg|onload|circle/i],
    ['<iframe src="https://evil.example"></iframe>', /iframe|evil/i],
    ['<p onclick="steal()" style="background:url(javascript:alert(1))">hi</p>', /onclick|steal|url\(|javascript/i],
    ['<img src="data:image/png;base64,AAAA">', /data:|<img/i],
    ['<math><mtext><script>alert(1)</script></mtext></math>', /math|script|alert/i],
    ['<object data="x.swf"></object><embed src="x.swf">', /object|embed|swf/i],
    ['<form action="https://evil.example"><input name="q"></form>', /form|input|evil/i],
  ];
  for (const [html, forbidden] of vectors) {
    const stored = (await derived(ctx, `<p>safe</p>${html}`)).contentHtml ?? '';
    t.notMatch(stored, forbidden, `stored HTML of ${html} is clean: ${stored}`);
    t.match(stored, /<p>safe<\/p>/, 'the harmless part stays');
  }

  const link = await derived(ctx, '<a href="https://example.com/x">ok</a>');
  t.match(link.contentHtml, /href="https:\/\/example\.com\/x"/, 'http(s) links are kept');
  t.match(link.contentHtml, /rel="noopener noreferrer nofollow"/, 'and get the safe rel');
});
