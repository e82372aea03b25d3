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
const URL_KEY_SUFFIX = /(?:_url|url|_uri|_host|_endpoint|_addr|_address)$/;
export const isUrlKey = (key: string | undefined): boolean =>
  key !== undefined && (URL_KEYS.has(key) || URL_KEY_SUFFIX.test(key));

// scheme ":" then 1-3 slashes or backslashes (WHATWG treats "\" as "/").
const URL_IN_TEXT = /[a-z][a-z0-9+.-]{0,31}:[/\\]{1,3}[^\s"'<>`{}|^]+/gi;
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
export function normaliseHost(host: string): string {
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

export function urlCandidate(raw: string, fromField: boolean): UrlCandidate | undefined {
  const m = /^([a-z][a-z0-9+.-]{0,31}):/i.exec(raw);
  let text = raw;
  let scheme = '';
  if (m) scheme = (m[1] as string).toLowerCase();
  else if (fromField) {
    if (!BARE_HOST.test(raw) && !raw.startsWith('//')) return undefined;
    text = `http://${raw.replace(/^\/\//, '')}`;
  } else return undefined;
  const hosts = new Set<string>();
  try {
    const u = new URL(text);
    if (u.hostname) hosts.add(normaliseHost(u.hostname));
  } catch {
    // Unparseable for WHATWG; the manual readings below still apply.
  }
  const rest = text.slice(text.indexOf(':') + 1).replace(/^[/\\]+/, '');
  for (const stop of [/[/?#]/, /[/?#\\]/]) {
    const end = rest.search(stop);
    const authority = end === -1 ? rest : rest.slice(0, end);
    const h = normaliseHost(hostOfAuthority(authority));
    if (h) hosts.add(h);
  }
  return { raw, scheme: m ? scheme : '', hosts: [...hosts], fromField };
}

/** Every URL and destination host in the arguments. */
export function extractUrls(strings: readonly StringLeaf[]): UrlCandidate[] {
  const out: UrlCandidate[] = [];
  for (const leaf of strings) {
    const s = leaf.value;
    if (!leaf.isKey && isUrlKey(leaf.key)) {
      const t = s.trim();
      if (t && t.length <= 4096 && !/\s/.test(t)) {
        const c = urlCandidate(t, true);
        if (c) out.push(c);
      }
    }
    if (leaf.fromNumber) continue;
    scanText(s, out, 0);
  }
  return out;
}

function scanText(s: string, out: UrlCandidate[], depth: number): void {
  if (s.includes(':/') || s.includes(':\\')) {
    // Resume just after each match's scheme so a URL nested in another's
    // query (`?next=http://…`) is found as well.
    const re = URL_IN_TEXT;
    re.lastIndex = 0;
    for (let m = re.exec(s); m; m = re.exec(s)) {
      const c = urlCandidate(m[0], false);
      if (c) out.push(c);
      re.lastIndex = m.index + m[0].indexOf(':') + 1;
    }
  }
  // A URL passed percent-encoded inside another (`?next=http%3A%2F%2F…`).
  if (depth === 0 && /%3a/i.test(s)) {
    const d = tryDecode(s);
    if (d !== s) scanText(d, out, 1);
  }
}
