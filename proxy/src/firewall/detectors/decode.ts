// Decoded readings of a string for the destructive-command detector: the
// text an interpreter would see after URL-decoding, escape processing or a
// base64/hex decode step. Each reading is checked like the original.

const PERCENT = /%[0-9a-f]{2}/i;
const ESCAPES = /\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|[0-7]{3})/i;
const ESCAPES_G = /\\(?:x([0-9a-f]{2})|u([0-9a-f]{4})|([0-7]{3}))/gi;
const B64_WHOLE = /^[A-Za-z0-9+/_-]{12,}={0,2}$/;
const B64_TOKEN = /[A-Za-z0-9+/_-]{8,}={0,2}/g;
const HEX_TOKEN = /\b(?:[0-9a-f]{2}){6,}\b/gi;
// A decode step in a pipeline: `base64 -d`, `base64 --decode`, `openssl enc -d -base64`, `xxd -r -p`.
const B64_STEP = /\bbase64\b[^|;&\n]*(?:\s-[a-z]*d|--decode|\s-D\b)|\bopenssl\b[^|;&\n]*base64/i;
const HEX_STEP = /\bxxd\b[^|;&\n]*-r/i;
const ZERO_WIDTH = /[\u00ad\u200b-\u200f\u2060\ufeff]/g;

// Printable text, not binary noise: decoded garbage is not worth checking.
function printable(s: string): boolean {
  if (s.length === 0) return false;
  let ok = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c === 0x0a || c === 0x09 || c === 0x0d) ok++;
  }
  return ok / s.length > 0.9;
}

export function percentDecode(s: string): string {
  return s.replace(/%([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
}

export function unescapeBackslashes(s: string): string {
  return s.replace(ESCAPES_G, (_m, x?: string, u?: string, o?: string) =>
    String.fromCharCode(parseInt(x ?? u ?? o ?? '0', x || u ? 16 : 8)),
  );
}

// Base64 digit values; "-" and "_" (URL-safe) count as "+" and "/", as b64 reads them.
const B64_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64_VALUE['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;
B64_VALUE[0x2d] = 62;
B64_VALUE[0x5f] = 63;

/**
 * printable() of the token's decoding, decoded here without allocating:
 * Buffer.from costs about a microsecond even for a short token, and most
 * candidates (identifiers such as "needs-triage") decode to binary noise.
 * Same bytes as Buffer's decoder: each full 6-bit digit group, trailing
 * "=" ignored, leftover bits of a partial group dropped.
 */
export function base64Printable(token: string): boolean {
  let end = token.length;
  while (end > 0 && token.charCodeAt(end - 1) === 0x3d) end--;
  let ok = 0;
  let n = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < end; i++) {
    const ch = token.charCodeAt(i);
    const v = ch < 128 ? (B64_VALUE[ch] as number) : -1;
    if (v < 0) return true; // not a plain token: let the exact decode decide
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      const c = (acc >> bits) & 0xff;
      n++;
      if ((c >= 0x20 && c < 0x7f) || c === 0x0a || c === 0x09 || c === 0x0d) ok++;
    }
  }
  return n > 0 && ok / n > 0.9;
}

function b64(token: string): string | undefined {
  if (!base64Printable(token)) return undefined;
  const t = token.replace(/-/g, '+').replace(/_/g, '/');
  const d = Buffer.from(t, 'base64').toString('latin1');
  return printable(d) ? d : undefined;
}

/** NFKC (fullwidth letters), zero-width characters removed. */
export function canonical(s: string): string {
  // Pure ASCII (/[^\x00-\x7f]/ finds nothing) iff its UTF-8 takes one byte a
  // character: every other code unit, lone surrogates included, takes two or
  // more. byteLength runs natively, far faster than a regex class scan.
  return Buffer.byteLength(s, 'utf8') !== s.length ? s.normalize('NFKC').replace(ZERO_WIDTH, '') : s;
}

/** A whole string that is base64 of printable text, decoded. */
export function wholeBase64(s: string): string | undefined {
  return s.length >= 12 && s.length <= 65536 && s.length % 4 !== 1 && B64_WHOLE.test(s) ? b64(s) : undefined;
}

/** Decoded readings of `s`, not including `s` itself; `lower` is `s` lower-cased (for cheap gating). */
const NONE: readonly string[] = [];

export function decodedReadings(s: string, lower: string): readonly string[] {
  const whole = wholeBase64(s);
  // includes() checks decide whether any decoder applies; most strings need none.
  // "penssl" first: its first letter is rarer in prose than the "o" of "openssl".
  const steps = lower.includes('base64') || lower.includes('xxd') || (lower.includes('penssl') && lower.includes('openssl'));
  if (!(s.includes('%') || s.includes('\\') || steps)) return whole ? [whole] : NONE;
  const out: string[] = whole ? [whole] : [];
  if (PERCENT.test(s)) {
    const d = percentDecode(s);
    out.push(d);
    if (!/\s/.test(d) && d.includes('+')) out.push(d.replace(/\+/g, ' '));
  }
  if (ESCAPES.test(s)) out.push(unescapeBackslashes(s));
  if (s.length <= 65536) {
    if (steps && B64_STEP.test(s)) {
      for (const m of s.matchAll(B64_TOKEN)) {
        const d = b64(m[0]);
        if (d) out.push(d);
      }
    }
    if (steps && HEX_STEP.test(s)) {
      for (const m of s.matchAll(HEX_TOKEN)) {
        const d = Buffer.from(m[0], 'hex').toString('latin1');
        if (printable(d)) out.push(d);
      }
    }
  }
  return out;
}
