// PII detectors. Each is a literal or character anchor plus bounded
// quantifiers (no `*`, `+` or `{n,}`), so each start position costs a
// constant and a scan is linear; a test checks the sources for that.
// Patterns run on folded text; validation code does the precise part.

import type { BuiltinDetector, Hit } from './types.js'
import type { CanonicalText } from '../canonical.js'
import { ibanMod97Valid, luhnValid } from './validators.js'
import { IBAN_LENGTHS } from './iban-lengths.js'

function regexDetector(
  entity: string,
  maxLength: number,
  pattern: RegExp,
  accept: (m: RegExpExecArray, text: string) => { start: number; end: number } | null,
  prefilter?: (folded: string) => boolean,
): BuiltinDetector {
  return {
    maxLength,
    scan(c: CanonicalText, out: Hit[]) {
      const text = c.folded
      if (prefilter !== undefined && !prefilter(text)) return
      // Shared instance: scans are synchronous, so resetting lastIndex is enough.
      const re = pattern
      re.lastIndex = 0
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        const span = accept(m, text)
        if (span !== null) out.push({ ...span, entity })
        if (m[0].length === 0) re.lastIndex++
      }
    },
  }
}

const whole = (m: RegExpExecArray) => ({ start: m.index, end: m.index + m[0].length })

// Email: anchor on '@', then walk out to the local part (≤64) and domain (≤253).
const LOCAL = /[a-z0-9._%+'-]/
const DOMAIN = /[a-z0-9.-]/
const FILE_TLDS = new Set(['png', 'jpg', 'jpeg', 'gif', 'svg', 'webp', 'ico', 'css', 'js', 'mjs', 'ts', 'tsx', 'jsx', 'json', 'lock', 'yaml', 'yml', 'txt', 'log', 'py', 'go', 'rs'])

// `scheme://user:pass@host` is a URL credential, not an email address.
function insideUrlUserinfo(t: string, s: number): boolean {
  const before = t.charAt(s - 1)
  if (before !== ':' && before !== '/') return false
  const tokenStart = Math.max(0, s - 300)
  const token = t.slice(tokenStart, s)
  const space = Math.max(token.lastIndexOf(' '), token.lastIndexOf('\n'))
  return token.slice(space + 1).includes('://')
}

const email: BuiltinDetector = {
  maxLength: 300 + 64 + 1 + 253, // URL look-behind, local part, @, domain
  scan(c, out) {
    const t = c.folded
    for (let at = t.indexOf('@'); at !== -1; at = t.indexOf('@', at + 1)) {
      let s = at
      while (s > 0 && at - s < 64 && LOCAL.test(t.charAt(s - 1))) s--
      while (s < at && (t.charAt(s) === '.' || t.charAt(s) === "'")) s++
      if (s === at || (s > 0 && LOCAL.test(t.charAt(s - 1)))) continue
      if (insideUrlUserinfo(t, s)) continue
      let e = at + 1
      while (e < t.length && e - at <= 253 && DOMAIN.test(t.charAt(e))) e++
      while (e > at + 1 && (t.charAt(e - 1) === '.' || t.charAt(e - 1) === '-')) e--
      const local = t.slice(s, at)
      const labels = t.slice(at + 1, e).split('.')
      const tld = labels[labels.length - 1] ?? ''
      if (local.includes('..') || local.endsWith('.')) continue
      if (labels.length < 2 || !/^[a-z]{2,24}$/.test(tld) || FILE_TLDS.has(tld)) continue
      if (labels.some((l) => l.length === 0 || l.length > 63 || l.startsWith('-') || l.endsWith('-'))) continue
      out.push({ start: s, end: e, entity: 'email' })
    }
  },
}

// Phone: international (+CC groups) or North American forms only; bare digit
// runs, dates (2024-01-15), versions and dotted numbers are not phones.
const PHONE = new RegExp(
  [
    String.raw`(?<![\w+.\/-])`,
    '(?:',
    // +CC then 2–6 groups: "+44 20 7946 0958", "+1 (415) 555-2671", "+33 1 23 45 67 89"
    String.raw`\+[1-9]\d{0,2}(?:[ .-]?\(\d{1,4}\)|[ .-]\d{1,5}){1,2}(?:[ .-]\d{2,8}){1,5}`,
    // E.164 written solid: "+442079460958"
    String.raw`|\+[1-9]\d{7,14}`,
    // NANP: "(415) 555-2671", "415-555-2671", "415.555.2671", "1-800-555-0199"
    String.raw`|(?:1[ .-])?(?:\([2-9]\d{2}\) ?|[2-9]\d{2}([ .-]))[2-9]\d{2}[ .-]\d{4}`,
    ')',
    String.raw`(?![\w-]|[.\/]\d)`,
  ].join(''),
  'g',
)

function acceptPhone(m: RegExpExecArray): { start: number; end: number } | null {
  const digits = m[0].replace(/\D/g, '')
  if (digits.length < 8 || digits.length > 15) return null
  // NANP with a separator after the area code must reuse it: 415-555.2671 is not a number.
  const sep = m[1]
  if (sep !== undefined && !m[0].endsWith(`${sep}${digits.slice(-4)}`)) return null
  return whole(m)
}

// Card: 13–19 digits, optionally in groups of spaces or dashes; Luhn and a
// known issuer prefix must both hold.
const CARD = /(?<![\w.+-])\d(?:[ -]?\d){12,18}(?![\d]|[.-]\d)/g
const IIN = /^(?:4|5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)|3[47]|3(?:0[0-5]|[689])|6(?:011|5|4[4-9]|2)|35(?:2[89]|[3-8]\d)|5[06-9]|6\d)/

// Printed layouts: fours with a shorter tail, Amex/Diners 4-6-5 and 4-6-4, 13-digit 4-3-3-3.
const CARD_LAYOUT = /^(?:(?:4,)*[1-4]|4,6,[45]|4,3,3,3)$/

function acceptCard(m: RegExpExecArray, text: string): { start: number; end: number } | null {
  const raw = m[0]
  const seps = raw.replace(/\d/g, '')
  if (seps.length > 0) {
    if (new Set(seps).size !== 1) return null
    if (!CARD_LAYOUT.test(raw.split(seps.charAt(0)).map((g) => g.length).join(','))) return null
  }
  // "DE89 3704 0044 …" is an IBAN (valid or not), never a card.
  if (/[a-z]{2}\d{2} $/.test(text.slice(Math.max(0, m.index - 5), m.index))) return null
  const digits = raw.replace(/\D/g, '')
  if (!IIN.test(digits) || !luhnValid(digits)) return null
  return whole(m)
}

// US SSN, dashed or spaced; never area 000/666/9xx, group 00, serial 0000.
const SSN = /(?<![\w-])(\d{3})([ -])(\d{2})\2(\d{4})(?![\w-])/g

function acceptSsn(m: RegExpExecArray): { start: number; end: number } | null {
  const area = m[1] ?? ''
  if (area === '000' || area === '666' || area.startsWith('9')) return null
  if (m[3] === '00' || m[4] === '0000') return null
  return whole(m)
}

// IBAN: country + check digits, then exactly the country's length of
// alphanumerics, in groups of four or solid; mod-97 must hold.
const IBAN_START = /(?<![a-z0-9])([a-z]{2})(\d{2})/g

const iban: BuiltinDetector = {
  maxLength: 34 + 8,
  scan(c, out) {
    const t = c.folded
    const re = IBAN_START
    re.lastIndex = 0
    for (let m = re.exec(t); m !== null; m = re.exec(t)) {
      const want = IBAN_LENGTHS.get((m[1] ?? '').toUpperCase())
      if (want === undefined) continue
      let compact = m[0].toUpperCase()
      let e = m.index + 4
      while (compact.length < want && e < t.length) {
        const ch = t.charAt(e)
        if (/[a-z0-9]/.test(ch)) compact += ch.toUpperCase()
        else if (ch === ' ' && /[a-z0-9]/.test(t.charAt(e + 1)) && (compact.length % 4 === 0)) {
          /* group separator */
        } else break
        e++
      }
      if (compact.length !== want || /[a-z0-9]/.test(t.charAt(e))) continue
      if (!ibanMod97Valid(compact)) continue
      out.push({ start: m.index, end: e, entity: 'iban' })
      re.lastIndex = e
    }
  },
}

// IPv4 with valid octets, not inside a longer dotted run (versions, OIDs).
const OCTET = String.raw`(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`
// `node@10.2.154.26-node.26` is a version: a trailing `-word` rules it out.
const IPV4 = new RegExp(String.raw`(?<![\w.])${OCTET}(?:\.${OCTET}){3}(?![\w]|\.\d|-[a-z])`, 'g')

export function isIpv6(s: string): boolean {
  let v4 = 0
  let body = s
  const lastColon = s.lastIndexOf(':')
  if (s.includes('.')) {
    const tail = s.slice(lastColon + 1)
    if (!new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`).test(tail)) return false
    body = s.slice(0, lastColon + 1) + '0'
    v4 = 1
  }
  const halves = body.split('::')
  if (halves.length > 2) return false
  const groups = (h: string): string[] => (h === '' ? [] : h.split(':'))
  const left = groups(halves[0] ?? '')
  const right = halves.length === 2 ? groups(halves[1] ?? '') : []
  const all = [...left, ...right]
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return false
  const count = all.length + v4
  if (halves.length === 2 ? count > 7 : count !== 8) return false
  // "dead::beef" and "add:bad:…" read as words; real addresses carry digits.
  return /\d/.test(s)
}

// [0-9a-f:.] — the characters an IPv6 address (with an IPv4 tail) is made of.
function isV6Code(c: number): boolean {
  return (c >= 48 && c <= 58) || (c >= 97 && c <= 102) || c === 46
}
function isWordCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95
}

const ipAddress: BuiltinDetector = {
  maxLength: 45 + 2,
  scan(c, out) {
    const t = c.folded
    if (t.includes('.')) {
      const re = IPV4
      re.lastIndex = 0
      for (let m = re.exec(t); m !== null; m = re.exec(t)) out.push({ ...whole(m), entity: 'ip_address' })
    }
    // IPv6: every address holds a colon. Take the maximal run of address
    // characters around it; a run longer than 45 or glued to a word is not
    // an address. Trailing full stops are sentence punctuation.
    for (let colon = t.indexOf(':'); colon !== -1; ) {
      let s = colon
      while (s > 0 && colon - s <= 45 && isV6Code(t.charCodeAt(s - 1))) s--
      let e = colon + 1
      while (e < t.length && e - s <= 45 && isV6Code(t.charCodeAt(e))) e++
      const next = t.indexOf(':', e)
      while (e > colon + 1 && t.charCodeAt(e - 1) === 46) e--
      const glued = (s > 0 && (isV6Code(t.charCodeAt(s - 1)) || isWordCode(t.charCodeAt(s - 1)))) || isWordCode(t.charCodeAt(e))
      // the shortest address, "::1", has three characters and two colons
      const second = t.indexOf(':', colon + 1)
      const twoColons = (second !== -1 && second < e) || (s < colon && t.lastIndexOf(':', colon - 1) >= s)
      if (!glued && e - s >= 3 && e - s <= 45 && twoColons && isIpv6(t.slice(s, e))) out.push({ start: s, end: e, entity: 'ip_address' })
      colon = next
    }
  },
}

// The registry: entity names accepted by `pii` rules come from these keys.
export const PII_DETECTORS = {
  email,
  phone: regexDetector('phone', 32, PHONE, acceptPhone),
  credit_card: regexDetector('credit_card', 23, CARD, acceptCard),
  ssn: regexDetector('ssn', 11, SSN, acceptSsn),
  iban,
  ip_address: ipAddress,
} satisfies Record<string, BuiltinDetector>

export type PiiEntity = keyof typeof PII_DETECTORS
export const PII_ENTITIES = Object.keys(PII_DETECTORS) as PiiEntity[]

/** Exposed for the linear-time source check in tests. */
export const PII_PATTERNS: readonly RegExp[] = [PHONE, CARD, SSN, IBAN_START, IPV4]
