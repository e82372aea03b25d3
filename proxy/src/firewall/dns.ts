// Connect-time SSRF guard against DNS rebinding: resolve every address of a
// name, refuse if any is internal (a rebinding name can answer with a
// public and a private address, and the connection may pick either), and
// hand back one address to pin, so the connection cannot resolve again and
// get a different answer.
import { promises as dnsPromises, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { classifyAddress, classifyHost } from './detectors/ssrf.js';
import { normaliseHost } from './detectors/urls.js';

export type LookupAll = (hostname: string, options: { all: true; verbatim?: boolean }) => Promise<LookupAddress[]>;

export type ResolveResult =
  | { ok: true; address: string; family: 4 | 6 }
  | { ok: false; reason: 'internal_host' | 'internal_address' | 'no_address' | 'resolve_failed'; detail: string };

const defaultLookup: LookupAll = (hostname, options) => dnsPromises.lookup(hostname, options);

export async function resolveAndCheck(hostname: string, lookup: LookupAll = defaultLookup): Promise<ResolveResult> {
  const host = normaliseHost(hostname);
  const literal = classifyAddress(host);
  if (literal) {
    if (literal.internal) return { ok: false, reason: 'internal_address', detail: `${host} is ${literal.kind}` };
    return { ok: true, address: host, family: host.includes(':') ? 6 : 4 };
  }
  // Names that are internal whatever they resolve to (localhost, metadata…).
  const named = classifyHost(host);
  if (named.internal) return { ok: false, reason: 'internal_host', detail: `${host} is ${named.kind}` };
  let addresses: LookupAddress[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch (err) {
    return { ok: false, reason: 'resolve_failed', detail: err instanceof Error ? err.message : String(err) };
  }
  if (addresses.length === 0) return { ok: false, reason: 'no_address', detail: `${host} has no address` };
  for (const a of addresses) {
    const c = classifyAddress(a.address);
    // An answer we cannot classify is treated like an internal one.
    if (!c || c.internal) return { ok: false, reason: 'internal_address', detail: `${host} resolves to ${a.address}${c?.internal ? ` (${c.kind})` : ''}` };
  }
  const first = addresses[0] as LookupAddress;
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** A `lookup` for http.request / net.connect that always answers `address`. */
export function createPinnedLookup(address: string, family: 4 | 6 = address.includes(':') ? 6 : 4): LookupFunction {
  return (_hostname, options, callback) => {
    // Node asks for all addresses when autoSelectFamily is on.
    if (typeof options === 'object' && options !== null && options.all) {
      (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, [{ address, family }]);
    } else callback(null, address, family);
  };
}
