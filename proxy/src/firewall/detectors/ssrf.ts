// SSRF detector: does any URL or destination host in the arguments point at
// this machine, a private network, or a cloud metadata service? WHATWG
// parsing normalises most IPv4 spellings; the rest (non-special schemes,
// zone ids, the hosts other parsers would pick) goes through our own
// inet_aton-style parser and ipaddr.js range classification.
import ipaddr from 'ipaddr.js';
import type { StringLeaf } from '../args.js';
import { extractUrls } from './urls.js';

export interface DetectorResult {
  fired: boolean;
  risk: number;
  factors: string[];
}

export type HostClass = { internal: false } | { internal: true; kind: string; risk: number };

// Schemes that reach local files or speak raw protocols to internal services.
const DANGEROUS_SCHEMES = new Set(['file', 'gopher', 'dict', 'ldap', 'ldaps', 'tftp', 'jar', 'netdoc', 'expect', 'php', 'phar', 'smb']);

const METADATA_V4 = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192', '169.254.169.253']);
const METADATA_NAMES = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal', 'metadata.azure.internal']);
const LOCAL_NAMES = new Set(['localhost', 'ip6-localhost', 'ip6-loopback', 'localhost.localdomain', 'kubernetes', 'kubernetes.default']);
// Private-use and special-use suffixes; a public fetcher has no business there.
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa', '.lan', '.intranet', '.corp', '.svc'];
// Wildcard DNS that resolves names with an embedded address to that address.
const ALWAYS_LOOPBACK = ['localtest.me', 'lvh.me', 'vcap.me'];
const EMBEDDING_DNS = ['nip.io', 'sslip.io', 'xip.io', 'traefik.me', '1u.ms', 'nip.direct'];

// Schemes whose authority is a network host; elsewhere (s3://bucket,
// gs://bucket) a one-label authority is a bucket or repo name, not a host.
const HOST_SCHEMES = new Set(['', 'http', 'https', 'ws', 'wss', 'ftp', 'ftps', 'gopher', 'dict', 'ldap', 'ldaps', 'tftp', 'smb', 'telnet', 'ssh', 'sftp', 'redis', 'rediss', 'mongodb', 'postgres', 'postgresql', 'mysql', 'amqp', 'mqtt', 'git']);

const V4_PUBLIC_RANGES = new Set(['unicast', 'as112', 'amt']);
const V6_PUBLIC_RANGES = new Set(['unicast', 'amt', 'as112v6', 'orchid2', 'droneRemoteIdProtocolEntityTags']);
const RISK = { metadata: 1, loopback: 0.95, unspecified: 0.95, private: 0.9, link_local: 0.9, internal: 0.85 } as const;

/** inet_aton: 1-4 dot-separated parts, each decimal, 0x-hex or 0-octal. */
export function parseIPv4Loose(host: string): string | undefined {
  const c = host.charCodeAt(0);
  if (!(c >= 0x30 && c <= 0x39)) return undefined; // every IPv4 spelling starts with a digit
  const parts = host.split('.');
  if (parts.length > 4 || parts.length === 0) return undefined;
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/i.test(p)) n = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]+$/.test(p)) n = parseInt(p, 8);
    else if (/^(0|[1-9][0-9]*)$/.test(p)) n = Number(p);
    else return undefined;
    if (!Number.isSafeInteger(n)) return undefined;
    nums.push(n);
  }
  const last = nums.pop() as number;
  if (nums.some((n) => n > 255) || last >= 256 ** (4 - nums.length)) return undefined;
  let value = last;
  for (let i = 0; i < nums.length; i++) value += (nums[i] as number) * 256 ** (3 - i);
  return [24, 16, 8, 0].map((s) => Math.floor(value / 2 ** s) % 256).join('.');
}

function classifyV4(v4: ipaddr.IPv4): HostClass {
  const s = v4.toString();
  if (METADATA_V4.has(s)) return { internal: true, kind: 'metadata', risk: RISK.metadata };
  const range: string = v4.range();
  if (V4_PUBLIC_RANGES.has(range)) return { internal: false };
  const kind = range === 'loopback' ? 'loopback' : range === 'unspecified' ? 'unspecified' : range === 'linkLocal' ? 'link_local' : range === 'private' || range === 'carrierGradeNat' ? 'private' : 'reserved';
  return internal(kind);
}

// IPv6 forms that carry an IPv4 destination: mapped, translated (NAT64),
// 6to4, Teredo (client address inverted) and the deprecated ::a.b.c.d.
function embeddedV4(v6: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined {
  const p = v6.parts;
  const v4 = (hi: number, lo: number): ipaddr.IPv4 => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') return v4(p[6] ?? 0, p[7] ?? 0);
  if (range === '6to4') return v4(p[1] ?? 0, p[2] ?? 0);
  if (range === 'teredo') return v4((p[6] ?? 0) ^ 0xffff, (p[7] ?? 0) ^ 0xffff);
  if (range === 'unicast' && p.slice(0, 6).every((x) => x === 0)) return v4(p[6] ?? 0, p[7] ?? 0);
  return undefined;
}

function internal(kind: string): HostClass {
  return { internal: true, kind, risk: kind in RISK ? RISK[kind as keyof typeof RISK] : RISK.internal };
}

/** Classify an IP literal (any spelling); undefined when it is not one. */
export function classifyAddress(address: string): HostClass | undefined {
  const h = address.startsWith('[') ? address.slice(1, -1) : address;
  if (h.includes(':')) {
    if (!ipaddr.IPv6.isValid(h)) return undefined;
    const v6 = ipaddr.IPv6.parse(h);
    const p = v6.parts;
    if (p[0] === 0xfd00 && p[1] === 0x0ec2) return internal('metadata');
    const range: string = v6.range();
    // 64:ff9b:1::/48 is NAT64 for local use: internal whatever it embeds.
    if (range === 'rfc6052' && p[2] === 1) return internal('private');
    const inner = embeddedV4(v6, range);
    if (inner) return classifyV4(inner);
    if (V6_PUBLIC_RANGES.has(range)) return { internal: false };
    const kind = range === 'loopback' ? 'loopback' : range === 'unspecified' ? 'unspecified' : range === 'linkLocal' ? 'link_local' : range === 'uniqueLocal' || range === 'deprecatedSiteLocal' ? 'private' : 'reserved';
    return internal(kind);
  }
  const dotted = parseIPv4Loose(h);
  return dotted ? classifyV4(ipaddr.IPv4.parse(dotted)) : undefined;
}

// The ".name" suffixes, built once rather than per host.
const ALWAYS_LOOPBACK_DOTTED = ALWAYS_LOOPBACK.map((d) => `.${d}`);
const EMBEDDING_DNS_DOTTED = EMBEDDING_DNS.map((d) => `.${d}`);
function hasSuffix(host: string, suffixes: readonly string[]): boolean {
  for (const s of suffixes) if (host.endsWith(s)) return true;
  return false;
}

const EMBEDDED_V4 = /(?:^|[.-])(\d{1,3})[.-](\d{1,3})[.-](\d{1,3})[.-](\d{1,3})(?:$|[.-])/;

/** Classify a normalised host name or literal. */
export function classifyHost(host: string): HostClass {
  const ip = classifyAddress(host);
  if (ip) return ip;
  // Numbers and dots that are not a valid address: parsers disagree on
  // what they mean (overflow, five parts), so treat them as internal.
  if (/^[0-9a-fx.]+$/i.test(host) && /\d/.test(host) && /^(0x|\d)/i.test(host)) return { internal: true, kind: 'ambiguous_ip', risk: RISK.internal };
  if (METADATA_NAMES.has(host)) return { internal: true, kind: 'metadata', risk: RISK.metadata };
  if (LOCAL_NAMES.has(host) || hasSuffix(host, LOCAL_SUFFIXES)) return { internal: true, kind: 'internal_name', risk: RISK.loopback };
  for (let i = 0; i < ALWAYS_LOOPBACK.length; i++) if (host === ALWAYS_LOOPBACK[i] || host.endsWith(ALWAYS_LOOPBACK_DOTTED[i] as string)) return { internal: true, kind: 'loopback', risk: RISK.loopback };
  for (let i = 0; i < EMBEDDING_DNS.length; i++) {
    const d = EMBEDDING_DNS[i] as string;
    if (!host.endsWith(EMBEDDING_DNS_DOTTED[i] as string)) continue;
    const m = EMBEDDED_V4.exec(host.slice(0, -d.length - 1));
    if (m) {
      const c = classifyAddress(m.slice(1, 5).join('.'));
      if (c?.internal) return c;
    }
  }
  // A single-label name resolves through search domains to an internal
  // service (http://redis:6379, http://metadata/).
  if (!host.includes('.') && host.length > 0) return { internal: true, kind: 'single_label_host', risk: 0.6 };
  return { internal: false };
}

export function detectSsrf(strings: readonly StringLeaf[]): DetectorResult {
  const factors = new Set<string>();
  let risk = 0;
  for (const c of extractUrls(strings)) {
    if (DANGEROUS_SCHEMES.has(c.scheme)) {
      factors.add(`ssrf_scheme:${c.scheme}`);
      risk = Math.max(risk, 0.9);
    }
    for (const h of c.hosts) {
      const cls = classifyHost(h);
      if (!cls.internal || (cls.kind === 'single_label_host' && !HOST_SCHEMES.has(c.scheme))) continue;
      factors.add(`ssrf_${cls.kind}:${h.slice(0, 64)}`);
      risk = Math.max(risk, cls.risk);
    }
  }
  return { fired: factors.size > 0, risk, factors: [...factors] };
}
