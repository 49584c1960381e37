import t from 'tap';
import { htmlToPlainText } from '../../src/html/plain-text.js';
import { sanitizeStoryHtml } from '../../src/html/sanitize.js';
import { deriveStoryText } from '../../src/html/story-text.js';
import { countWords } from '../../src/html/word-count.js';

t.test('the sanitizer removes every script vector', async (t) => {
  const vectors = [
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '<a href="javascript:alert(1)">x</a>',
    '<a href="JaVaScRiPt:alert(1)">x</a>',
    '<a href="&#106;avascript:alert(1)">x</a>',
    '<svg onload=alert(1)><circle/></svg>',
    '<iframe src="https://evil.example"></iframe>',
    '<object data="x"></object><embed src="x">',
    '<form action="https://evil.example"><button formaction="javascript:alert(1)">go</button></form>',
    '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
    '<p style="background:url(javascript:alert(1))">x</p>',
    '<div onclick="alert(1)" onmouseover="alert(1)">x</div>',
    '<img src="data:image/svg+xml;base64,PHN2Zz4=">',
    '<style>body{display:none}</style>',
    '<scr<script>ipt>alert(1)</script>',
  ];
  for (const vector of vectors) {
    const clean = sanitizeStoryHtml(vector);
    t.notMatch(clean, /<script|javascript:|onerror|onload|onclick|onmouseover|<iframe|<object|<embed|<svg|<math|<form|<style|url\(|data:/i, vector);
  }
});

t.test('the sanitizer keeps story formatting and applies the link and image rules', async (t) => {
  t.equal(sanitizeStoryHtml('<p><em>Hi</em> <strong>there</strong></p>'), '<p><em>Hi</em> <strong>there</strong></p>');
  t.equal(sanitizeStoryHtml('<a href="https://x.example/a" target="_blank" rel="opener">x</a>'), '<a href="https://x.example/a" rel="noopener noreferrer nofollow">x</a>');
  t.equal(sanitizeStoryHtml('<a href="/chapter/2">next</a>'), '<a href="/chapter/2" rel="noopener noreferrer nofollow">next</a>', 'relative links stay');
  t.equal(sanitizeStoryHtml('<a href="mailto:a@b.example">m</a>'), '<a href="mailto:a@b.example" rel="noopener noreferrer nofollow">m</a>');
  t.equal(sanitizeStoryHtml('<a href="ftp://x.example">f</a>'), '<a rel="noopener noreferrer nofollow">f</a>');
  t.equal(sanitizeStoryHtml('<img src="https://x.example/a.png" alt="a">'), '<img src="https://x.example/a.png" alt="a" />');
  t.equal(sanitizeStoryHtml('<img src="/api/files/images/covers/a.png">'), '<img src="/api/files/images/covers/a.png" />');
  t.equal(sanitizeStoryHtml('<img src="images/a.png"><img src="//cdn.example/a.png">'), '', 'other relative image sources go');
  t.equal(sanitizeStoryHtml('<p style="color: red; position: fixed">x</p>'), '<p style="color:red">x</p>');
});

t.test('plain text: blocks make lines, entities decode, spaces collapse', async (t) => {
  t.equal(htmlToPlainText('<p>One</p><p>Two</p>'), 'One\n\nTwo');
  t.equal(htmlToPlainText('a<br>b<br><br><br>c'), 'a\nb\n\nc', 'blank lines collapse to one');
  t.equal(htmlToPlainText('<div>  lots   of \n  space  </div>'), 'lots of space');
  t.equal(htmlToPlainText('Tom &amp; Jerry &lt;3 &eacute;t&eacute; &#x1F600;'), 'Tom & Jerry <3 été 😀');
  t.equal(htmlToPlainText('<ul><li>a</li><li>b</li></ul>'), 'a\n\nb');
  t.equal(htmlToPlainText('<h1>Title</h1>Text'), 'Title\nText', 'one block boundary is one line break');
  t.equal(htmlToPlainText('in<b>line</b> <i>words</i>'), 'inline words');
  t.equal(htmlToPlainText('<pre>a\n  b</pre>'), 'a\nb', 'pre keeps its lines (trimmed)');
  t.equal(htmlToPlainText('<table><tr><td>x</td><td>y</td></tr><tr><td>z</td></tr></table>'), 'x y\n\nz');
});

t.test('every block and cell boundary is a word boundary, in the plain text and the word count', async (t) => {
  const cases: [string, string, number][] = [
    ['<table><tr><th>Tide</th><th>High</th></tr><tr><td>06:12</td><td> 4.1 m </td></tr></table>', 'Tide High\n\n06:12 4.1 m', 6],
    ['<table><tr><td>a<b>b</b></td><td></td><td>c</td></tr></table>', 'ab c', 2],
    ['<section>One</section><section>Two</section>', 'One\n\nTwo', 2],
    ['<article><header>Head</header><main>Body</main><footer>Foot</footer></article><aside>Side</aside>', 'Head\n\nBody\n\nFoot\n\nSide', 4],
    ['<nav>Home</nav><address>Here</address><details><summary>More</summary>Text</details>', 'Home\n\nHere\n\nMore\nText', 4],
    ['<menu><li>a</li><li>b</li></menu><center>c</center><form>d</form>', 'a\n\nb\n\nc\n\nd', 4],
  ];
  for (const [html, plain, words] of cases) {
    const text = deriveStoryText(html);
    t.equal(text.contentPlain, plain, html);
    t.equal(text.wordCount, words, html);
  }
  t.equal(sanitizeStoryHtml('<section class="c" onclick="x()">One</section>'), '<div class="c">One</div>', 'renamed, with the new tag\'s attribute rules');
  t.equal(sanitizeStoryHtml('<menu><li>a</li></menu>'), '<ul><li>a</li></ul>');
});

t.test('word counts follow Intl.Segmenter', async (t) => {
  t.equal(countWords('Hello, world!'), 2);
  t.equal(countWords("It's a dog's life — isn't it?"), 6);
  t.equal(countWords('東京は日本の首都です'), 6);
  t.equal(countWords(''), 0);
  t.equal(countWords('line one\nline two'), 4);
  t.equal(countWords('3.14 and 42'), 3);
});

t.test('derived story text for empty and text-less bodies', async (t) => {
  t.same(deriveStoryText(undefined), { contentHtml: null, contentPlain: null, wordCount: 0 });
  t.same(deriveStoryText(null), { contentHtml: null, contentPlain: null, wordCount: 0 });
  t.same(deriveStoryText(''), { contentHtml: null, contentPlain: null, wordCount: 0 });
  t.same(deriveStoryText('<img src="https://x.example/a.png">'), { contentHtml: '<img src="https://x.example/a.png" />', contentPlain: '', wordCount: 0 });
  t.same(deriveStoryText('<script>x</script>'), { contentHtml: '', contentPlain: '', wordCount: 0 });
  t.same(deriveStoryText('<p>Hello, <b>world</b>!</p>'), { contentHtml: '<p>Hello, <b>world</b>!</p>', contentPlain: 'Hello, world!', wordCount: 2 });
});
