// Credentials that are not vendor tokens: passwords in URLs and connection
// strings, and generic `api_key = "…"` assignments judged by entropy. Each
// is anchored on a rare character (`://`, `=`/`:`) and walks a bounded
// distance from it, so a scan is linear.

import type { BuiltinDetector } from './types.js'
import { distinctChars, isPlaceholder, shannonEntropy } from './validators.js'

const SCHEME_CHAR = /[A-Za-z0-9+.-]/
const USERINFO_STOP = /[\s/?#@"'<>`]/

// scheme://user:pass@host — the password is the secret; the span covers it only.
const urlCredentials: BuiltinDetector = {
  maxLength: 24 + 3 + 512, // scheme, "://", userinfo

  scan(c, out) {
    const t = c.cased
    for (let at = t.indexOf('://'); at !== -1; at = t.indexOf('://', at + 3)) {
      let s = at
      while (s > 0 && at - s < 24 && SCHEME_CHAR.test(t.charAt(s - 1))) s--
      if (s === at || !/[A-Za-z]/.test(t.charAt(s))) continue
      const from = at + 3
      let e = from
      while (e < t.length && e - from < 512 && !USERINFO_STOP.test(t.charAt(e))) e++
      if (t.charAt(e) !== '@') continue
      const colon = t.indexOf(':', from)
      if (colon === -1 || colon >= e) continue
      const password = t.slice(colon + 1, e)
      if (password.length === 0 || password.length > 256 || isPasswordPlaceholder(password)) continue
      out.push({ start: colon + 1, end: e, entity: 'url_credentials' })
    }
  },
}

function isPasswordPlaceholder(v: string): boolean {
  return (
    isPlaceholder(v) ||
    /passw(?:or)?d/i.test(v) ||
    /^(?:pass(?:word)?|pwd|secret|user(?:name)?|\*+|null|none|undefined|string|\$\w{1,64}|%[\w()]{1,64}|\{\w{0,64}\})$/i.test(v)
  )
}

// ADO/ODBC: `Server=…;User ID=…;Password=…;` — only inside a string that
// names a server or database, so a lone `password=` is left to the generic rule.
const ADO_PASSWORD = /(?<![A-Za-z0-9_])(?:password|pwd)\s{0,3}=\s{0,3}([^;"'\s]{1,128})/dgi
const ADO_CONTEXT = /(?:server|data source|host|user id|uid|database|initial catalog|provider|driver)\s{0,3}=/i

const connectionString: BuiltinDetector = {
  maxLength: 200 + 16 + 128, // context read before the key, the key, the value

  scan(c, out) {
    const t = c.cased
    if (!c.folded.includes('=')) return
    ADO_PASSWORD.lastIndex = 0
    for (let m = ADO_PASSWORD.exec(t); m !== null; m = ADO_PASSWORD.exec(t)) {
      const span = m.indices?.[1]
      const value = m[1]
      if (span === undefined || value === undefined || isPasswordPlaceholder(value)) continue
      const lineStart = t.lastIndexOf('\n', m.index) + 1
      const context = t.slice(Math.max(lineStart, m.index - 200), Math.min(t.length, span[1] + 200))
      if (!context.includes(';') || !ADO_CONTEXT.test(context)) continue
      out.push({ start: span[0], end: span[1], entity: 'connection_string' })
    }
  },
}

// Generic assignments: a key that names a secret, then `=`, `:`, `=>` or
// `:=`, then a value. Keys are identifiers of at most 64 characters.
const SECRET_KEY = /(?:secret|token|passw(?:or)?d|pwd|api[_.-]?key|access[_.-]?key|auth[_.-]?key|private[_.-]?key|credential|(?:^|[_.-])key$)/
const NOT_SECRET_KEY = /(?:public|_id$|[_.-]ids?$|tokens$|token_?(?:type|count|limit|usage|url|uri|endpoint)|max_|_length|_len$|_file$|_path$|_name$|_env$|_header$|_ur[li]$|_endpoint$|reset|_hint$|_policy$|_expir|_at$)/
const VALUE_CHAR = /[A-Za-z0-9_\-+/=.~!@#$%^&*?]/
const PASSWORD_KEY = /passw(?:or)?d|pwd/
const CODE_WORD = /^(?:string|number|boolean|str|int|bool|none|null|nil|true|false|undefined|required|optional|bearer|basic|self|this|env|os|process)$/i

// Identifiers made of words (`oauth2_client_credentials`, `MyServiceName`,
// `prod-db-2`) are not random. Split on separators and case changes, then
// every piece must be a short letter run with at most two trailing digits.
// Hand-written rather than one nested-quantifier regex, which would backtrack.
function isWordy(v: string): boolean {
  const pieces = v.split(/[_.\-/]/).flatMap((p) => p.split(/(?=[A-Z][a-z])/))
  return pieces.every((p) => p === '' || /^[A-Za-z][a-z]{0,15}\d{0,2}$/.test(p) || /^[A-Z]{1,5}\d{0,2}$/.test(p) || /^\d{1,4}$/.test(p))
}

export function looksRandom(v: string): boolean {
  if (v.length < 8 || isPlaceholder(v)) return false
  const classes = [/[a-z]/, /[A-Z]/, /\d/].filter((r) => r.test(v)).length
  if (classes < 2) return false
  if (isWordy(v)) return false
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v)) return true
  return shannonEntropy(v) >= Math.min(3.5, Math.log2(v.length) - 0.3) && distinctChars(v) >= 7
}

function isKeyCode(c: number): boolean {
  // [A-Za-z0-9_.-]
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45
}

// Words a secret-bearing key contains; a text without any of them has no generic secret.
const KEY_WORDS = ['secret', 'token', 'passw', 'pwd', 'key', 'credential']
const ASSIGN = /[=:]/g

const genericSecret: BuiltinDetector = {
  maxLength: 64 + 8 + 256,
  scan(c, out) {
    const t = c.cased
    if (!KEY_WORDS.some((w) => c.folded.includes(w))) return
    ASSIGN.lastIndex = 0
    for (let m = ASSIGN.exec(t); m !== null; m = ASSIGN.exec(t)) {
      const i = m.index
      // key: skip a closing quote and spaces, then read the identifier backwards
      if (t.charCodeAt(i) === 61 && (t.charAt(i - 1) === ':' || t.charAt(i - 1) === '!')) continue
      let k = i
      while (k > 0 && i - k < 8 && t.charCodeAt(k - 1) === 32) k--
      if (t.charAt(k - 1) === '"' || t.charAt(k - 1) === "'") k--
      let ks = k
      while (ks > 0 && k - ks < 64 && isKeyCode(t.charCodeAt(ks - 1))) ks--
      if (ks === k) continue
      const key = c.folded.slice(ks, k)
      if (!SECRET_KEY.test(key) || NOT_SECRET_KEY.test(key)) continue
      // value: skip `>`/`=` of `=>`/`:=`, spaces, an opening quote
      let v = i + 1
      if (t.charAt(v) === '>' || t.charAt(v) === '=') v++
      while (v < t.length && v - i < 8 && t.charAt(v) === ' ') v++
      const quote = t.charAt(v) === '"' || t.charAt(v) === "'" ? t.charAt(v) : ''
      if (quote !== '') v++
      let e = v
      while (e < t.length && e - v < 256 && VALUE_CHAR.test(t.charAt(e))) e++
      if (quote !== '' && t.charAt(e) !== quote) continue
      // a trailing sentence full stop or comma is punctuation, not part of the value
      while (quote === '' && e > v && /[.,!?]/.test(t.charAt(e - 1))) e--
      const value = t.slice(v, e)
      // unquoted `reader.readString(` or `config.db.password` is code, not a literal
      if (quote === '' && (t.charAt(e) === '(' || /^[A-Za-z_$][\w$]{0,63}(?:\.[A-Za-z_$][\w$]{0,63}){1,8}$/.test(value))) continue
      // A bare `key:` also labels fingerprints and digests: hex alone is not enough there.
      const bareKey = !/secret|token|passw|pwd|api|access|auth|private|credential/.test(key)
      const ok = PASSWORD_KEY.test(key)
        ? value.length >= 6 && !isPasswordPlaceholder(value) && !CODE_WORD.test(value) && !/^[a-z]{1,12}[!?.]?$/i.test(value)
        : looksRandom(value) && !(bareKey && /^[0-9a-f]+$/i.test(value))
      if (!ok) continue
      out.push({ start: v, end: e, entity: 'generic_secret' })
      ASSIGN.lastIndex = Math.max(e, i + 1)
    }
  },
}

export const CREDENTIAL_DETECTORS = {
  url_credentials: urlCredentials,
  connection_string: connectionString,
  generic_secret: genericSecret,
} satisfies Record<string, BuiltinDetector>
