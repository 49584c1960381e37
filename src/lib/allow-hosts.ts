/**
 * `IMPORT_ALLOW_HOSTS` (docs/decisions.md, "URL import"): the hosts an import may reach although
 * they are private or local. A listed IP address (or CIDR range) is allowed whatever name leads
 * to it; a listed host name may resolve to a private address, but only when the URL names that
 * host (a redirect elsewhere is checked afresh). Parsed once by src/config.ts.
 */
import net from 'node:net';
export interface ImportAllowList {
  /** Lower-case host names that may resolve to a private address. */
  readonly names: readonly string[];
  /** IP addresses and CIDR ranges that are allowed whatever leads to them. */
  readonly addresses: readonly string[];
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*\.?$/;

/** An IPv6 literal may be written in brackets, as in a URL. */
function unbracket(text: string): string {
  return text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
}

/** True for `a.b.c.d/n` or `v6/n` with a prefix length in range. */
export function isCidr(text: string): boolean {
  const slash = text.lastIndexOf('/');
  if (slash < 0) return false;
  const family = net.isIP(text.slice(0, slash));
  const bits = text.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * Parses `IMPORT_ALLOW_HOSTS` (comma-separated host names, IP addresses or CIDR ranges; empty
 * allows nothing). Entries that are none of those are returned in `problems` for src/config.ts.
 */
export function parseAllowHosts(raw: string | undefined): { allow: ImportAllowList; problems: string[] } {
  const names: string[] = [];
  const addresses: string[] = [];
  const problems: string[] = [];
  for (const entry of (raw ?? '').split(',').map((item) => item.trim().toLowerCase()).filter((item) => item !== '')) {
    const bare = unbracket(entry);
    if (net.isIP(bare) !== 0 || isCidr(bare)) addresses.push(bare);
    else if (HOST_NAME.test(entry)) names.push(entry.replace(/\.$/, ''));
    else problems.push(`IMPORT_ALLOW_HOSTS must list host names, IP addresses or CIDR ranges, got "${entry}"`);
  }
  return { allow: Object.freeze({ names: Object.freeze(names), addresses: Object.freeze(addresses) }), problems };
}

/** The host of a URL as the resolver sees it: lower case, IPv6 without brackets. */
export function hostOf(url: URL): string {
  return unbracket(url.hostname.toLowerCase()).replace(/\.$/, '');
}

