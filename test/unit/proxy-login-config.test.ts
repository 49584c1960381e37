/**
 * `AUTH_PROXY_HEADER` and `TRUST_PROXY` at start-up (docs/decisions.md, "Proxy login"): the
 * header is believed only from listed addresses, so every setting that would believe it from
 * anyone is a configuration error, and the address list is checked entry by entry.
 */
import t from 'tap';
import { loadConfig } from '../../src/config.js';
import { configProblems as problemsOf } from '../helpers/config.js';
import { parseTrustedProxies, trustedProxyMatcher } from '../../src/lib/trusted-proxies.js';


t.test('off unless AUTH_PROXY_HEADER is set', async (t) => {
  t.equal(loadConfig({}).authProxy, undefined);
  t.equal(loadConfig({ TRUST_PROXY: '10.0.0.1' }).authProxy, undefined, 'TRUST_PROXY alone signs nobody in');
});

t.test('a header name and an address list', async (t) => {
  const config = loadConfig({ AUTH_PROXY_HEADER: 'Remote-User', TRUST_PROXY: '10.0.0.1, 172.18.0.0/16,loopback, fd00::/8' });
  t.same(config.authProxy, { header: 'remote-user', trusted: ['10.0.0.1', '172.18.0.0/16', 'loopback', 'fd00::/8'] });
  t.equal(config.trustProxy, '10.0.0.1, 172.18.0.0/16,loopback, fd00::/8', 'Fastify gets TRUST_PROXY as before');
  t.ok(Object.isFrozen(config.authProxy));
});

t.test('AUTH_PROXY_HEADER without TRUST_PROXY addresses is a start-up error', async (t) => {
  t.match(problemsOf({ AUTH_PROXY_HEADER: 'Remote-User' }), [/AUTH_PROXY_HEADER needs TRUST_PROXY/]);
  t.match(problemsOf({ AUTH_PROXY_HEADER: 'Remote-User', TRUST_PROXY: 'false' }), [/AUTH_PROXY_HEADER needs TRUST_PROXY/]);
  t.match(problemsOf({ AUTH_PROXY_HEADER: 'Remote-User', TRUST_PROXY: 'true' }), [/not true: that would believe the header from any client/]);
  t.match(problemsOf({ AUTH_PROXY_HEADER: 'Remote-User', TRUST_PROXY: '2' }), [/not 2/]);
  t.match(problemsOf({ AUTH_PROXY_HEADER: 'Remote-User', TRUST_PROXY: '10.0.0.1,proxy.lan,10.0.0.0/33' }), [/"proxy\.lan" is not an IP address/, /"10\.0\.0\.0\/33" is not/]);
  t.match(problemsOf({ AUTH_PROXY_HEADER: 'Remote-User', TRUST_PROXY: ' , ' }), [/at least one address/]);
});

t.test('a header name that is no name, or one Storyshelf reads itself, is refused', async (t) => {
  for (const header of ['Remote User', 'Remote-User:', 'Rémote']) {
    t.match(problemsOf({ AUTH_PROXY_HEADER: header, TRUST_PROXY: '10.0.0.1' }), [/must be a header name/], header);
  }
  for (const header of ['Authorization', 'cookie', 'X-Forwarded-For', 'x-auth-user', 'Host']) {
    t.match(problemsOf({ AUTH_PROXY_HEADER: header, TRUST_PROXY: '10.0.0.1' }), [/reads that header for something else/], header);
  }
});

t.test('the matcher: addresses, ranges, presets, IPv4 seen through an IPv6 socket', async (t) => {
  const parsed = parseTrustedProxies('10.0.0.1,172.18.0.0/16,loopback,fd00::/8');
  t.same(parsed.problems, []);
  const trusted = trustedProxyMatcher(parsed.entries);
  for (const address of ['10.0.0.1', '::ffff:10.0.0.1', '172.18.4.2', '127.0.0.1', '127.1.2.3', '::1', 'fd00::5']) t.ok(trusted(address), address);
  for (const address of ['10.0.0.2', '172.19.0.1', '192.168.1.1', '::2', 'fe80::1', '', 'not an address', undefined]) t.notOk(trusted(address), String(address));
});

t.test('an entry Fastify would refuse when the app is built is a start-up problem, not a crash', async (t) => {
  // Fastify compiles TRUST_PROXY itself: its preset names are lower-case only.
  t.match(problemsOf({ AUTH_PROXY_HEADER: 'Remote-User', TRUST_PROXY: 'LOOPBACK' }), [/"LOOPBACK" is not an IP address/]);
});
