// Finds URL-shaped strings and bare hosts in walked arguments, and the hosts
// each one could reach. A fetcher's parser may disagree with WHATWG's (curl
// and Python split userinfo and backslashes differently), so every plausible
// reading of the authority is returned and checkers judge them all.
import type { StringLeaf } from '../args.js';

export interface UrlCandidate {
  /** The text as found. */
  raw: string;
  /** Lower-case scheme without ':' ("http"); "" for a bare host. */
  scheme: string;
  /** Normalised hosts of every reading, deduplicated, never empty strings. */
  hosts: string[];
  /** Found in a host-like field (url, host, endpoint…) rather than in free text. */
  fromField: boolean;
}

// Keys whose whole value names a destination.
const URL_KEYS = new Set([
  'url', 'uri', 'href', 'link', 'host', 'hostname', 'endpoint', 'address', 'addr', 'target', 'server',
  'domain', 'origin', 'proxy', 'webhook', 'callback', 'redirect', 'redirect_uri', 'location', 'ip',
  'base_url', 'baseurl', 'api_url', 'src', 'dest', 'destination', 'remote', 'upstream', 'connect',
]);
const URL_KEY_SUFFIXES = ['url', '_uri', '_host', '_endpoint', '_addr', '_address'];
if (URL_KEY_SUFFIXES.some((x) => !'lirst'.includes(x.slice(-1)))) throw new Error('isUrlKey: update the last-letter filter');
export function isUrlKey(key: string | undefined): boolean {
  if (key === undefined) return false;
  if (URL_KEYS.has(key)) return true;
  // Every suffix ends in one of "lirst": most keys are rejected on their last letter.
  const last = key.charCodeAt(key.length - 1);
  if (last !== 0x6c && last !== 0x69 && last !== 0x72 && last !== 0x73 && last !== 0x74) return false;
  for (const x of URL_KEY_SUFFIXES) if (key.endsWith(x)) return true;
  return false;
}

const BARE_HOST = /^(?:\[[0-9a-f:.%a-z]+\]|[^\s/@\\?#"'<>]+?)(?::\d{1,5})?$/i;
const IDEOGRAPHIC_DOTS = /[\u3002\uff0e\uff61]/g;
const ZERO_WIDTH = /[\u00ad\u200b-\u200f\u2060\ufeff]/g;

function tryDecode(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Lower-case, percent-decoded, NFKC, no brackets, zone id or trailing dots. */
const PLAIN_HOST = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/;

export function normaliseHost(host: string): string {
  if (PLAIN_HOST.test(host)) return host;
  let h = tryDecode(host);
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(h)) h = h.normalize('NFKC').replace(IDEOGRAPHIC_DOTS, '.');
  h = h.replace(ZERO_WIDTH, '').toLowerCase();
  if (h.startsWith('[')) h = h.slice(1, h.endsWith(']') ? -1 : undefined);
  const zone = h.indexOf('%');
  if (zone !== -1 && h.includes(':')) h = h.slice(0, zone);
  while (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

// Host of an authority: after the last '@', without the port.
function hostOfAuthority(authority: string): string {
  const at = authority.lastIndexOf('@');
  const hp = at === -1 ? authority : authority.slice(at + 1);
  if (hp.startsWith('[')) {
    const end = hp.indexOf(']');
    return end === -1 ? hp : hp.slice(0, end + 1);
  }
  const colon = hp.lastIndexOf(':');
  return colon === -1 || hp.indexOf(':') !== colon ? hp : hp.slice(0, colon);
}

// Schemes WHATWG calls special (file aside): their host goes through its
// domain and IPv4 parsers.
const SPECIAL_SCHEMES = new Set(['http', 'https', 'ws', 'wss', 'ftp']);
const isHostChar = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d;
const isHexDigit = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66);

/**
 * The host `new URL(text).hostname` gives, found without the parser, for the
 * common shape `scheme://name.name/…` of a special scheme: the authority is
 * one or more non-empty labels of lower-case letters, digits and hyphens,
 * ended by "/", "?", "#" or the end. Then WHATWG's host is that text as it
 * stands: nothing to decode or case-fold, no userinfo or port, no IDNA
 * (no "xn--" label), and not an IPv4 address (the last label is neither all
 * digits nor 0x-hex, WHATWG's "ends in a number"). Anything else, undefined:
 * the parser decides.
 */
function plainSpecialHost(text: string, colon: number): string | undefined {
  if (text.charCodeAt(colon + 1) !== 0x2f || text.charCodeAt(colon + 2) !== 0x2f) return undefined;
  const start = colon + 3;
  let label = start;
  let i = start;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isHostChar(c)) continue;
    if (c === 0x2e) {
      if (i === label) return undefined;
      label = i + 1;
      continue;
    }
    if (c === 0x2f || c === 0x3f || c === 0x23) break;
    return undefined;
  }
  if (i === label) return undefined;
  const host = text.slice(start, i);
  if (host.startsWith('xn--') || host.includes('.xn--')) return undefined;
  let digits = true;
  for (let k = label; k < i && digits; k++) digits = text.charCodeAt(k) >= 0x30 && text.charCodeAt(k) <= 0x39;
  if (digits) return undefined;
  if (text.startsWith('0x', label)) {
    let hex = true;
    for (let k = label + 2; k < i && hex; k++) hex = isHexDigit(text.charCodeAt(k));
    if (hex) return undefined;
  }
  return host;
}

export function urlCandidate(raw: string, fromField: boolean): UrlCandidate | undefined {
  const m = /^([a-z][a-z0-9+.-]{0,31}):/i.exec(raw);
  let text = raw;
  let scheme = '';
  if (m) scheme = (m[1] as string).toLowerCase();
  else if (fromField) {
    if (!BARE_HOST.test(raw) && !raw.startsWith('//')) return undefined;
    text = `http://${raw.replace(/^\/\//, '')}`;
  } else return undefined;
  // Other parsers only disagree with WHATWG over userinfo and backslashes.
  const plain = !text.includes('@') && !text.includes('\\');
  if (plain && SPECIAL_SCHEMES.has(scheme === '' ? 'http' : scheme)) {
    const host = plainSpecialHost(text, text.indexOf(':'));
    if (host !== undefined) return { raw, scheme, hosts: [host], fromField };
  }
  let whatwg: string | undefined;
  let parsed = false;
  try {
    const u = new URL(text);
    if (u.hostname) whatwg = normaliseHost(u.hostname);
    parsed = true;
  } catch {
    // Unparseable for WHATWG; the manual readings below still apply.
  }
  if (parsed && plain) return { raw, scheme, hosts: whatwg === undefined ? [] : [whatwg], fromField };
  const hosts = new Set<string>();
  if (whatwg !== undefined) hosts.add(whatwg);
  const rest = text.slice(text.indexOf(':') + 1).replace(/^[/\\]+/, '');
  for (const stop of [/[/?#]/, /[/?#\\]/]) {
    const end = rest.search(stop);
    const authority = end === -1 ? rest : rest.slice(0, end);
    const h = normaliseHost(hostOfAuthority(authority));
    if (h) hosts.add(h);
  }
  return { raw, scheme, hosts: [...hosts], fromField };
}

/** Every URL and destination host in the arguments. */
export function extractUrls(strings: readonly StringLeaf[]): UrlCandidate[] {
  const out: UrlCandidate[] = [];
  for (const leaf of strings) {
    const s = leaf.value;
    let whole: string | undefined;
    if (!leaf.isKey && isUrlKey(leaf.key)) {
      const t = s.trim();
      if (t && t.length <= 4096 && !/\s/.test(t)) {
        const c = urlCandidate(t, true);
        if (c) out.push(c);
        whole = t;
      }
    }
    if (leaf.fromNumber) continue;
    scanText(s, out, 0, whole);
  }
  return out;
}

const isAlpha = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
const isSchemeChar = (c: number): boolean => isAlpha(c) || (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46;
// Characters that end a URL in running text: whitespace, quotes, brackets of markup.
function endsUrl(c: number): boolean {
  if (c <= 0x20 || c === 0x7f) return true;
  if (c < 0x80) return c === 0x22 || c === 0x27 || c === 0x3c || c === 0x3e || c === 0x60 || c === 0x7b || c === 0x7d || c === 0x7c || c === 0x5e;
  return c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

// URLs in running text: every "scheme:/" or "scheme:\\", including one nested
// in another's query (`?next=http://…`). A scanner, not a regex, because
// this runs over every string of every call.
function scanText(s: string, out: UrlCandidate[], depth: number, skip?: string): void {
  for (let i = s.indexOf(':'); i !== -1; i = s.indexOf(':', i + 1)) {
    const next = s.charCodeAt(i + 1);
    if (next !== 0x2f && next !== 0x5c) continue;
    let start = i;
    while (start > 0 && i - start < 32 && isSchemeChar(s.charCodeAt(start - 1))) start--;
    while (start < i && !isAlpha(s.charCodeAt(start))) start++;
    if (start === i) continue;
    let end = i + 1;
    while (end < s.length && !endsUrl(s.charCodeAt(end))) end++;
    const raw = s.slice(start, end);
    if (raw === skip) continue;
    const c = urlCandidate(raw, false);
    if (c) out.push(c);
  }
  // A URL passed percent-encoded inside another (`?next=http%3A%2F%2F…`).
  if (depth === 0 && s.includes('%') && /%3a/i.test(s)) {
    const d = tryDecode(s);
    if (d !== s) scanText(d, out, 1);
  }
}
