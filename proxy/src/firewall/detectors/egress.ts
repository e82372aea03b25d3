// Egress detector: every destination host in the arguments (and, on the
// egress surface, the CONNECT host) against the workspace's host globs and
// CIDRs. Allowlist mode fires on anything unlisted; denylist mode on
// anything listed. Names are matched by glob only: a name whose address
// falls in an allowed CIDR is not known to be allowed until it is resolved,
// so allowlist mode refuses it here (see egressAllowsAddress for after).
import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';
import type { EgressSettings } from '@agentwall/shared/schemas/firewall';
import type { StringLeaf } from '../args.js';
import { compileGlobs, type GlobMatcher } from '../glob.js';
import { parseIPv4Loose, type DetectorResult } from './ssrf.js';
import { extractUrls, normaliseHost } from './urls.js';

export interface CompiledEgress {
  mode: 'allowlist' | 'denylist';
  hosts: GlobMatcher;
  cidrs: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
}

export function compileEgress(settings: EgressSettings): CompiledEgress {
  const cidrs = settings.cidrs.map((c): [ipaddr.IPv4 | ipaddr.IPv6, number] => {
    if (c.includes('/')) return ipaddr.parseCIDR(c);
    const a = ipaddr.parse(c);
    return [a, a.kind() === 'ipv4' ? 32 : 128];
  });
  return { mode: settings.mode, hosts: compileGlobs(settings.hosts), cidrs };
}

// An IP literal in any spelling, IPv4-mapped IPv6 folded to IPv4.
function toAddress(host: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (host.includes(':')) {
    if (!ipaddr.IPv6.isValid(host)) return undefined;
    const a = ipaddr.IPv6.parse(host);
    return a.isIPv4MappedAddress() ? a.toIPv4Address() : a;
  }
  const v4 = parseIPv4Loose(host);
  return v4 ? ipaddr.IPv4.parse(v4) : undefined;
}

function inCidrs(eg: CompiledEgress, a: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return eg.cidrs.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits));
}

/** Is this host (name or literal, normalised) on the list? */
export function egressListed(eg: CompiledEgress, host: string): boolean {
  const addr = toAddress(host);
  if (addr) return inCidrs(eg, addr) || eg.hosts(addr.toString());
  // eslint-disable-next-line no-control-regex
  const ascii = /[^\x00-\x7f]/.test(host) ? domainToASCII(host) || host : host;
  return eg.hosts(ascii);
}

/** After DNS resolution: may the connection go to this address? */
export function egressAllowsAddress(eg: CompiledEgress, address: string): boolean {
  const a = toAddress(address);
  if (!a) return false;
  const listed = inCidrs(eg, a);
  return eg.mode === 'allowlist' ? listed : !listed;
}

// "host:443", "[::1]:443" or a bare IPv6 literal, without the port.
function withoutPort(hostPort: string): string {
  if (hostPort.startsWith('[')) return hostPort.slice(0, hostPort.indexOf(']') + 1 || undefined);
  const first = hostPort.indexOf(':');
  return first !== -1 && first === hostPort.lastIndexOf(':') ? hostPort.slice(0, first) : hostPort;
}

export function destinationHosts(strings: readonly StringLeaf[], connectHost?: string): string[] {
  const hosts = new Set<string>();
  if (connectHost !== undefined) hosts.add(normaliseHost(withoutPort(connectHost.trim())));
  for (const c of extractUrls(strings)) for (const h of c.hosts) hosts.add(h);
  return [...hosts];
}

export function detectEgress(eg: CompiledEgress, strings: readonly StringLeaf[], connectHost?: string): DetectorResult {
  const hosts = destinationHosts(strings, connectHost);
  const factors: string[] = [];
  // A CONNECT with no readable destination cannot be checked: refuse it.
  if (connectHost !== undefined && hosts.every((h) => h === '')) factors.push('egress_no_destination');
  for (const h of hosts) {
    if (!h) continue;
    const listed = egressListed(eg, h);
    if (eg.mode === 'allowlist' ? !listed : listed) factors.push(`egress_${eg.mode === 'allowlist' ? 'unlisted' : 'listed'}:${h.slice(0, 64)}`);
  }
  return { fired: factors.length > 0, risk: factors.length > 0 ? 0.8 : 0, factors };
}
