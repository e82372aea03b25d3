// Checksums and statistics that turn "looks like" into "is": a 16-digit run
// is a card only if Luhn holds, an IBAN only if mod-97 holds.

export function luhnValid(digits: string): boolean {
  let sum = 0
  let double = false
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48
    if (d < 0 || d > 9) return false
    if (double) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
    double = !double
  }
  return digits.length > 0 && sum % 10 === 0
}

/** ISO 13616 check: move the first four characters to the end, letters to 10..35, mod 97 === 1. */
export function ibanMod97Valid(iban: string): boolean {
  const s = iban.slice(4) + iban.slice(0, 4)
  let rem = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 48 && c <= 57) rem = (rem * 10 + (c - 48)) % 97
    else if (c >= 65 && c <= 90) rem = (rem * 100 + (c - 55)) % 97
    else return false
  }
  return rem === 1
}

/** Shannon entropy in bits per character. */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0
  const counts = new Map<string, number>()
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1)
  let h = 0
  for (const n of counts.values()) {
    const p = n / s.length
    h -= p * Math.log2(p)
  }
  return h
}

export function distinctChars(s: string): number {
  return new Set(s).size
}

/** Decode base64url (or base64) to a string; null when the alphabet is wrong. */
export function decodeBase64Url(s: string): string | null {
  if (!/^[A-Za-z0-9_\-+/]*={0,2}$/.test(s)) return null
  return Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8')
}

// Placeholders people paste into docs and config templates; they are not secrets.
const PLACEHOLDER = /x{4}|\*{3}|\.{3}|<[^>]{0,40}>|\$\{|\{\{|%s|your[_-]?|changeme|change_me|example|placeholder|redacted|dummy|sample|replace[_-]?me|insert[_-]?here|todo|fixme|secret_here|not[_-]?a[_-]?real/i

export function isPlaceholder(value: string): boolean {
  return PLACEHOLDER.test(value) || distinctChars(value) <= 3
}
