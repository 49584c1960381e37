import t from 'tap';
import { buildTestApp, type TestContext } from '../helpers/app.js';

interface Body {
  id: string;
  contentHtml: string | null;
  contentPlain: string | null;
}

async function created(ctx: TestContext, contentHtml: string): Promise<Body> {
  const res = await ctx.post('/api/stories', { title: 'HTML', contentHtml });
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  return res.json() as Body;
}

async function updated(ctx: TestContext, id: string, contentHtml: string): Promise<Body> {
  const res = await ctx.put(`/api/stories/${id}`, { contentHtml });
  if (res.statusCode !== 200) throw new Error(`update failed: ${res.statusCode} ${res.body}`);
  return res.json() as Body;
}

/**
 * Elements whose content the sanitizer never keeps as markup: the raw-text elements of the parser
 * under sanitize-html (script, style, textarea, title, xmp) and the other elements dropped with
 * their content. Left open, each used to swallow the rest of the story.
 */
const HIDING = ['script', 'style', 'textarea', 'title', 'xmp', 'noscript', 'iframe', 'option', 'object', 'svg', 'math', 'template'];

t.test('an unclosed element that hides its content ends at the next tag, on create and on update', async (t) => {
  const ctx = await buildTestApp(t);
  const story = await created(ctx, '<p>Start.</p>');
  for (const tag of HIDING) {
    const html = `<p>One.</p><${tag}>p{}<p>Two.</p><p>Three &amp; four.</p>`;
    for (const [label, body] of [['create', await created(ctx, html)], ['update', await updated(ctx, story.id, html)]] as const) {
      // title is not dropped with its content, only read as raw text: its own text stays.
      const own = tag === 'title' ? '\np{}\n' : '\n\n';
      t.equal(body.contentPlain, `One.${own}Two.\n\nThree & four.`, `${tag} (${label}): the text after it is kept`);
      t.match(body.contentHtml, /^<p>One\.<\/p>(?:p\{\})?<p>Two\.<\/p><p>Three &amp; four\.<\/p>$/, `${tag} (${label}): and its markup`);
      t.notMatch(body.contentHtml, new RegExp(`<${tag}`, 'i'), `${tag} (${label}): the element itself is still gone`);
    }
    const upper = await created(ctx, `<P>One.</P><${tag.toUpperCase()} class="x">hidden<P>Two.</P>`);
    t.equal(upper.contentPlain, tag === 'title' ? 'One.\nhidden\nTwo.' : 'One.\n\nTwo.', `${tag} in capitals with attributes`);
  }
});

t.test('closed hiding elements still go with their content, and tags inside raw text do not close them', async (t) => {
  const ctx = await buildTestApp(t);
  const closed = await created(ctx, '<p>Before</p><script>if (a <b) alert("<p>x</p>")</script><style>p{}</style><noscript><p>Enable</p></noscript><p>After</p>');
  t.equal(closed.contentPlain, 'Before\n\nAfter');
  const two = await created(ctx, '<p>A</p><style>x<p>B</p><script>y<p>C</p>');
  t.equal(two.contentPlain, 'A\n\nB\n\nC', 'two unclosed elements in a row');
  const atEnd = await created(ctx, '<p>One.</p><style>p{}');
  t.equal(atEnd.contentHtml, '<p>One.</p>', 'an unclosed element at the very end takes only its own content');
  const comment = await created(ctx, '<p>A</p><!-- <style> --><p>B</p>');
  t.equal(comment.contentPlain, 'A\n\nB', 'a start tag inside a comment is no element');
});

t.test('an unclosed hiding element in a document nested too deep keeps the text after it', async (t) => {
  const ctx = await buildTestApp(t);
  const body = await created(ctx, `${'<b>'.repeat(10_001)}<p>One.</p><style>p{}<p>Two.</p>`);
  t.match(body.contentPlain, /One\.\s+Two\.$/);
});

t.test('story images keep only real image paths under the images route', async (t) => {
  const ctx = await buildTestApp(t);
  const refused = [
    '/api/files/images/../../auth/verify',
    '/api/files/images/covers/../../../auth/verify',
    '/api/files/images/%2e%2e/%2e%2e/auth/verify',
    '/api/files/images/%252e%252e/auth/verify',
    '/api/files/images/covers\\..\\..\\auth\\verify',
    '/api/files/images/..\\..\\auth/verify',
    '/api/files/images/covers/a.png/../../../../auth/verify',
    '/api/files/images/covers/a.png?x=/../../auth',
    '/api/files/images/covers/a.png#x',
    '/api/files/images/covers/',
    '/api/files/images/other/a.png',
    '/api/files/images//covers/a.png',
    '/api/files/images/covers/a.svg',
    '/api/files/images/covers/%61.png',
  ];
  for (const src of refused) {
    const body = await created(ctx, `<p>Text</p><img src="${src.replace(/&/g, '&amp;')}" alt="alt">`);
    t.equal(body.contentHtml, '<p>Text</p>', `dropped: ${src}`);
  }
  const entity = await created(ctx, '<img src="/api/files/images/&#46;&#46;/&#46;&#46;/auth/verify">');
  t.equal(entity.contentHtml, '', 'dots written as entities');

  const kept = [
    '/api/files/images/covers/3f2b9a.png',
    '/api/files/images/avatars/a_b-c.webp',
    'https://img.example/a/../b.png',
    'http://img.example/a.jpg',
  ];
  for (const src of kept) {
    const body = await created(ctx, `<img src="${src}" alt="a">`);
    t.equal(body.contentHtml, `<img src="${src}" alt="a" />`, `kept: ${src}`);
  }
});
