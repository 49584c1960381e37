/**
 * The proxies `TRUST_PROXY` names, as a set of addresses a connection's peer can be checked
 * against (docs/decisions.md, "Proxy login"). Fastify reads the same list for `request.ip` and
 * `X-Forwarded-*`; the proxy login asks the narrower question "did this connection come straight
 * from one of them", which Fastify does not expose. The names `loopback`, `linklocal` and
 * `uniquelocal` mean what they mean to Fastify (its proxy-addr presets).
 */
import net from 'node:net';
import { isCidr } from './allow-hosts.js';

const PRESETS: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/**
 * The entries of a comma-separated address list (IP addresses, CIDR ranges, the preset names),
 * and a sentence for each entry that is none of those.
 */
export function parseTrustedProxies(raw: string): { entries: string[]; problems: string[] } {
  const entries: string[] = [];
  const problems: string[] = [];
  for (const entry of raw.split(',').map((item) => item.trim().toLowerCase()).filter((item) => item !== '')) {
    if (PRESETS[entry] !== undefined || net.isIP(entry) !== 0 || isCidr(entry)) entries.push(entry);
    else problems.push(`"${entry}" is not an IP address, a CIDR range, loopback, linklocal or uniquelocal`);
  }
  return { entries, problems };
}

/** `::ffff:10.0.0.2`, how a dual-stack socket reports an IPv4 peer, as the IPv4 address. */
function unmapped(address: string): string {
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address;
}

/** A test of a peer address against entries {@link parseTrustedProxies} accepted. */
export function trustedProxyMatcher(entries: readonly string[]): (address: string | undefined) => boolean {
  const list = new net.BlockList();
  for (const entry of entries.flatMap((item) => PRESETS[item] ?? [item])) {
    const slash = entry.indexOf('/');
    const address = slash < 0 ? entry : entry.slice(0, slash);
    const family = net.isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (slash < 0) list.addAddress(address, family);
    else list.addSubnet(address, Number(entry.slice(slash + 1)), family);
  }
  return (address) => {
    if (address === undefined) return false;
    const peer = unmapped(address);
    const family = net.isIP(peer);
    return family !== 0 && list.check(peer, family === 6 ? 'ipv6' : 'ipv4');
  };
}
