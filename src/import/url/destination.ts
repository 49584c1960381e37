/**
 * Which hosts an import may connect to (docs/decisions.md, "URL import"). Every hop of every fetch
 * gets its own request-filtering agent: it checks the address the host name *resolves to*, at
 * connect time, so a name that resolves to 127.0.0.1 (or is re-pointed there between two
 * lookups) is refused like the literal, and nothing is sent to it. Refused: every address that
 * is not public unicast (loopback, private, link-local with the cloud metadata address
 * 169.254.169.254, carrier-grade NAT, unique-local IPv6, IPv4-mapped IPv6, 0.0.0.0...), unless
 * `IMPORT_ALLOW_HOSTS` lists it (src/lib/allow-hosts.ts).
 */
import type { Agent } from 'node:http';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { hostOf, type ImportAllowList } from '../../lib/allow-hosts.js';
import { blockedDestination } from './errors.js';

/** A fresh agent for one hop to `url`: no connection is ever reused for another host's check. */
export function agentFor(url: URL, allow: ImportAllowList): Agent {
  const options = {
    keepAlive: false,
    allowIPAddressList: [...allow.addresses],
    allowPrivateIPAddress: allow.names.includes(hostOf(url)),
  };
  return url.protocol === 'https:' ? new RequestFilteringHttpsAgent(options) : new RequestFilteringHttpAgent(options);
}

/**
 * The agent's refusal, turned into the import's 403; any other error is returned unchanged.
 * request-filtering-agent 3.x reports a refused address only by its message ("... is not allowed.
 * Because, It is private IP address." and the like), before any connection is made.
 */
export function asBlocked(error: unknown, url: URL): unknown {
  const message = error instanceof Error ? error.message : '';
  return /is not allowed\. Because/.test(message) ? blockedDestination(hostOf(url)) : error;
}
