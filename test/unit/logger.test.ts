import t from 'tap';
import { openUrl, prettyMessage } from '../../src/logger.js';

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
