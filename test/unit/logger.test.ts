import t from 'tap';
import { openUrl, prettyMessage, redactUrl, withRedactedUrls } from '../../src/logger.js';

const LAN = {
  lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true, netmask: '255.0.0.0', mac: '00:00:00:00:00:00', cidr: null }],
  eth0: [
    { address: 'fe80::1', family: 'IPv6', internal: false, netmask: 'ffff:ffff:ffff:ffff::', mac: '02:00:00:00:00:01', cidr: null, scopeid: 2 },
    { address: '192.168.1.20', family: 'IPv4', internal: false, netmask: '255.255.255.0', mac: '02:00:00:00:00:01', cidr: null },
  ],
} as Parameters<typeof openUrl>[2];

t.test('the address to open', async (t) => {
  t.equal(openUrl('0.0.0.0', 8080, LAN, 'shelf'), 'http://192.168.1.20:8080/', 'a wildcard bind: the LAN address');
  t.equal(openUrl('::', 8080, LAN, 'shelf'), 'http://192.168.1.20:8080/');
  t.equal(openUrl('0.0.0.0', 8080, { lo: LAN?.lo }, 'shelf'), 'http://shelf:8080/', 'no LAN address: the host name');
  t.equal(openUrl('127.0.0.1', 9000, LAN, 'shelf'), 'http://127.0.0.1:9000/', 'a specific address as given');
  t.equal(openUrl('::1', 9000, LAN, 'shelf'), 'http://[::1]:9000/', 'IPv6 in brackets');
});

t.test('a pretty entry is one line of key=value after the message, without JSON', async (t) => {
  const line = prettyMessage({
    level: 40,
    time: 1,
    pid: 2,
    hostname: 'h',
    msg: 'generated a login password',
    generatedPassword: 'Abc-123_x',
    req: { method: 'GET', url: '/api/stories?q=a b' },
    err: { type: 'TypeError', message: 'bad\nthing', stack: 'TypeError: bad\n    at x' },
    note: 'two words',
  });
  t.equal(
    line,
    'generated a login password generatedPassword=Abc-123_x req.method=GET req.url="/api/stories?q=a b" err="TypeError: bad\\nthing" note="two words"',
  );
  t.notMatch(line, /[{}\n]/);
});

t.test('OPDS path tokens are redacted from logged URLs, whatever the case or encoding of the k', async (t) => {
  t.equal(redactUrl('/opds/k/sst_abc-DEF_123/stories?page=2'), '/opds/k/[redacted]/stories?page=2');
  t.equal(redactUrl('/opds/k/sst_abc'), '/opds/k/[redacted]', 'the root of the path form');
  t.equal(redactUrl('/opds/K/sst_abc/x'), '/opds/K/[redacted]/x');
  t.equal(redactUrl('/opds/%6B/sst_abc/x'), '/opds/%6B/[redacted]/x');
  t.equal(redactUrl('/api/stories?k=1'), '/api/stories?k=1', 'other URLs as they are');
  const options = withRedactedUrls({ level: 'debug' }) as { level: string; serializers: { req: (request: unknown) => { url: string } } };
  t.equal(options.level, 'debug', 'the other options kept');
  t.equal(options.serializers.req({ method: 'GET', url: '/opds/k/sst_abc/tags', headers: {} }).url, '/opds/k/[redacted]/tags');
  t.equal(withRedactedUrls(false), false, 'no logger stays none');
});
