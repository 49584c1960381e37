/**
 * The proxies `TRUST_PROXY` names, as a test a connection's peer can be put to (docs/decisions.md,
 * "Proxy login"). Fastify reads the same list for `request.ip` and `X-Forwarded-*`; the proxy
 * login asks the narrower question "did this connection come straight from one of them", which
 * Fastify does not expose. Both questions go to Fastify's own `@fastify/proxy-addr`, so an entry
 * (an address, a CIDR range, `loopback`, `linklocal`, `uniquelocal`) means here exactly what it
 * means to Fastify, IPv4 peers seen through an IPv6 socket (`::ffff:a.b.c.d`) included.
 */
import proxyAddr from '@fastify/proxy-addr';

/**
 * The entries of a comma-separated address list, and a sentence for each entry Fastify would
 * refuse (it throws on them when the app is built).
 */
export function parseTrustedProxies(raw: string): { entries: string[]; problems: string[] } {
  const entries: string[] = [];
  const problems: string[] = [];
  for (const entry of raw.split(',').map((item) => item.trim()).filter((item) => item !== '')) {
    try {
      proxyAddr.compile(entry);
      entries.push(entry);
    } catch {
      problems.push(`"${entry}" is not an IP address, a CIDR range, loopback, linklocal or uniquelocal`);
    }
  }
  return { entries, problems };
}

/** A test of a peer address against entries {@link parseTrustedProxies} accepted. */
export function trustedProxyMatcher(entries: readonly string[]): (address: string | undefined) => boolean {
  const trust = proxyAddr.compile([...entries]);
  return (address) => address !== undefined && trust(address, 0);
}
