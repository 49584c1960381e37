import t from 'tap';
import { escapeXml } from '../../src/lib/xml.js';
import { linkElement } from '../../src/opds/xml.js';

/** docs/decisions.md, "OPDS catalog": one escaper; characters XML 1.0 forbids are dropped. */
t.test('the five specials are escaped for text and attributes alike', async (t) => {
  t.equal(escapeXml(`<a href="x">Tom & 'Jerry'</a>`), '&lt;a href=&quot;x&quot;&gt;Tom &amp; &apos;Jerry&apos;&lt;/a&gt;');
  t.equal(escapeXml('&amp;'), '&amp;amp;', 'an entity in the data is data');
  t.equal(escapeXml(42), '42');
});

t.test('characters XML 1.0 forbids are dropped, the allowed ones kept', async (t) => {
  t.equal(escapeXml('a\u0000b\u0001c\u0008d\u000be\u000cf\u001fg\u007fh'), 'abcdefg\u007fh', 'C0 controls but tab, LF, CR (DEL is allowed)');
  t.equal(escapeXml('tab\tlf\ncr\r'), 'tab\tlf\ncr\r');
  t.equal(escapeXml('x\ufffe\uffffy'), 'xy', 'the two noncharacters');
  t.equal(escapeXml('lone \ud800 high, lone \udc00 low'), 'lone  high, lone  low', 'lone surrogates');
  t.equal(escapeXml('emoji \u{1f600} and \u{10ffff}'), 'emoji \u{1f600} and \u{10ffff}', 'astral characters kept');
  t.equal(escapeXml('\ue000\ufffd'), '\ue000\ufffd');
});

t.test('a link element escapes each attribute and leaves out undefined ones', async (t) => {
  t.equal(linkElement({ rel: 'next', href: '/opds/search?q=a&page=1', type: undefined, title: '"x"' }), '<link rel="next" href="/opds/search?q=a&amp;page=1" title="&quot;x&quot;"/>');
});
