import t from 'tap';
import { BadRequest } from '../../src/errors.js';
import { imageUrl, parseImagePath } from '../../src/images/image-path.js';
import { inlineImagePaths, replaceStoredImageUrls, storedImageOfSource, storedImagePaths } from '../../src/images/inline-images.js';

const UUID = '3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b';

t.test('accepted paths', async (t) => {
  t.same(parseImagePath(`covers/${UUID}.jpg`), { kind: 'covers', name: `${UUID}.jpg`, relPath: `covers/${UUID}.jpg` });
  t.same(parseImagePath(`avatars/${UUID}.webp`).kind, 'avatars');
  t.same(parseImagePath('covers/a_b-C9.png').name, 'a_b-C9.png');
  t.equal(imageUrl(`covers/${UUID}.jpg`), `/api/files/images/covers/${UUID}.jpg`);
});

t.test('refused paths are 400 naming the field', async (t) => {
  const refused: Array<[string, unknown]> = [
    ['empty', ''],
    ['not a string', 42],
    ['parent', '../secrets/jwt'],
    ['parent inside', 'covers/../../secrets/x.jpg'],
    ['trailing parent', 'covers/..'],
    ['dot segment', 'covers/./x.jpg'],
    ['encoded parent', '%2e%2e/%2e%2e/etc/passwd'],
    ['mixed encoded parent', 'covers/.%2E/x.jpg'],
    ['double-encoded parent', 'covers/%252e%252e/%252e%252e/x.jpg'],
    ['triple-encoded parent', 'covers/%25252e%25252e/x.jpg'],
    ['encoded slash', 'covers%2F..%2F..%2Fx.jpg'],
    ['backslash', 'covers\\..\\x.jpg'],
    ['encoded backslash', 'covers%5C..%5Cx.jpg'],
    ['absolute', '/etc/passwd'],
    ['absolute encoded', '%2Fetc%2Fpasswd'],
    ['windows absolute', 'C:\\Windows\\win.ini'],
    ['drive letter', 'C:/x.jpg'],
    ['NUL', 'covers/x.jpg\0.png'],
    ['encoded NUL', 'covers/x%00.jpg'],
    ['empty segment', 'covers//x.jpg'],
    ['leading slash kind', '/covers/x.jpg'],
    ['unknown folder', 'secrets/x.jpg'],
    ['temp folder', '.incoming/x.upload'],
    ['no folder', 'x.jpg'],
    ['nested', 'covers/a/x.jpg'],
    ['other extension', 'covers/x.svg'],
    ['html', 'covers/x.html'],
    ['double extension', 'covers/x.jpg.html'],
    ['upper-case extension', 'covers/x.JPG'],
    ['dot file', 'covers/.jpg'],
    ['percent left over', 'covers/x%zz.jpg'],
    ['too long', `covers/${'a'.repeat(300)}.jpg`],
  ];
  for (const [label, raw] of refused) {
    try {
      parseImagePath(raw, 'coverPath');
      t.fail(`${label} was accepted`);
    } catch (error) {
      t.ok(error instanceof BadRequest, label);
      t.type((error as BadRequest).details?.coverPath, 'string', `${label} names the field`);
    }
  }
});

t.test('the stored images a story body names: every kind, each once, only the guard’s exact shape', async (t) => {
  const html = [
    '<p><img src="/api/files/images/inline/a-1.png" alt="" /><img src=" /api/files/images/covers/b_2.jpg " /></p>',
    '<a href="/api/files/images/avatars/c.webp">c</a><img src="/api/files/images/inline/a-1.png" />',
    '<img src="/api/files/images/inline/../covers/d.png" /><img src="/api/files/images/inline/e.png?w=400" />',
    '<img src="/api/files/images/inline/f.pngx" /><img src="/api/files/images/secrets/g.png" /><img src="https://x.example/api/files/images/inline/h.png" />',
  ].join('');
  t.same(storedImagePaths(html), ['inline/a-1.png', 'covers/b_2.jpg', 'avatars/c.webp', 'inline/e.png'], 'a query after a name in the text still names it; another site\'s URL does not');
  t.same(inlineImagePaths(html), ['inline/a-1.png', 'inline/e.png']);
  t.same(storedImagePaths(null), []);
  t.equal(storedImageOfSource(' /api/files/images/inline/a-1.png '), 'inline/a-1.png');
  for (const src of ['/api/files/images/inline/e.png?w=400', '/api/files/images/inline/../covers/d.png', '/api/files/images/inline/%2e.png', 'https://x.example/api/files/images/inline/h.png', '/api/files/images/inline/f.pngx']) {
    t.equal(storedImageOfSource(src), undefined, src);
  }
  t.equal(replaceStoredImageUrls('<img src="/api/files/images/inline/a-1.png" />', (relPath) => `../images/${relPath}`), '<img src="../images/inline/a-1.png" />');
});
