// Secret detectors: vendor token formats with literal prefixes. A scan runs
// a pattern only when one of its literals occurs in the text (a native
// substring search), and every pattern uses bounded quantifiers only, so the
// cost per start position is constant and a scan is linear.

import type { BuiltinDetector, Hit } from './types.js'
import type { CanonicalText } from '../canonical.js'
import { decodeBase64Url, distinctChars, isPlaceholder, shannonEntropy } from './validators.js'
import { CREDENTIAL_DETECTORS } from './credentials.js'

type Accept = (m: RegExpExecArray) => { start: number; end: number } | null

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')

function prefixed(entity: string, maxLength: number, literals: readonly string[], pattern: RegExp, accept: Accept): BuiltinDetector {
  // One literal alternation is a faster prefilter than several String#includes.
  const prefilter = new RegExp(literals.map(escapeRegExp).join('|'))
  return {
    maxLength,
    scan(c: CanonicalText, out: Hit[]) {
      const t = c.cased
      if (!prefilter.test(t)) return
      pattern.lastIndex = 0
      for (let m = pattern.exec(t); m !== null; m = pattern.exec(t)) {
        const span = accept(m)
        if (span !== null) out.push({ ...span, entity })
      }
    },
  }
}

const whole = (m: RegExpExecArray) => ({ start: m.index, end: m.index + m[0].length })

/**
 * The random part of a token: not a placeholder, enough distinct characters,
 * and mixed (letters with digits, or both cases) — `sk-this-is-my-slug` is prose.
 */
function randomBody(body: string, minDistinct: number, needDigit: boolean): boolean {
  if (isPlaceholder(body) || distinctChars(body) < minDistinct) return false
  const letters = /[A-Za-z]/.test(body)
  const digits = /\d/.test(body)
  if (needDigit) return letters && digits
  return (letters && digits) || (/[A-Z]/.test(body) && /[a-z]/.test(body))
}

const tokenBody = (prefixLength: number, minDistinct = 8, needDigit = false): Accept => (m) =>
  randomBody(m[0].slice(prefixLength), minDistinct, needDigit) ? whole(m) : null

/** Value of capture group 1 (needs the `d` flag). */
const group1 = (check: (v: string) => boolean): Accept => (m) => {
  const span = m.indices?.[1]
  const v = m[1]
  return span !== undefined && v !== undefined && check(v) ? { start: span[0], end: span[1] } : null
}

const AWS_PREFIXES = ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'AGPA', 'AIDA', 'AROA', 'AIPA', 'ANPA', 'ANVA', 'APKA']
const AWS_KEY_ID = new RegExp(`(?<![A-Za-z0-9])(?:${AWS_PREFIXES.join('|')})[A-Z0-9]{16}(?![A-Za-z0-9])`, 'g')
// AWS's own documentation key (…EXAMPLE) and all-X placeholders are not secrets.
const awsKeyId: Accept = (m) => (isPlaceholder(m[0].slice(4)) || m[0].endsWith('EXAMPLE') ? null : whole(m))

const AWS_SECRET = /(?<![A-Za-z0-9])(?:aws_?)?secret_?(?:access_?)?key["']?\s{0,4}(?::|=|=>|:=)\s{0,4}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/dgi
const highEntropyBase64 = (v: string) => !isPlaceholder(v) && !/EXAMPLEKEY/i.test(v) && shannonEntropy(v) >= 4

const GCP_API_KEY = /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g
const AZURE_KEY = /(?<![A-Za-z0-9])(?:AccountKey|SharedAccessKey)\s{0,2}=\s{0,2}([A-Za-z0-9+/]{40,86}={0,2})(?![A-Za-z0-9+/=])/dgi
const GITHUB = /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})(?![A-Za-z0-9_])/g
const GITLAB = /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,50}(?![A-Za-z0-9_-])/g
const SLACK_TOKEN = /(?<![A-Za-z0-9-])xox[abprs]-(?:[0-9A-Za-z]{1,40}-){1,5}[0-9A-Za-z]{6,64}(?![A-Za-z0-9-])/g
const SLACK_WEBHOOK = /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{20,120}/g
const STRIPE = /(?<![A-Za-z0-9_])[sr]k_(?:live|test)_[0-9A-Za-z]{16,247}(?![A-Za-z0-9_])/g
const ANTHROPIC = /(?<![A-Za-z0-9_-])sk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_-]{32,150}(?![A-Za-z0-9_-])/g
const OPENAI = /(?<![A-Za-z0-9_-])sk-(?!ant-)(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{20,200}(?![A-Za-z0-9_-])/g
const HUGGINGFACE = /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,40}(?![A-Za-z0-9_])/g
const NPM = /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/g
const JWT = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,800}\.[A-Za-z0-9_-]{2,2400}\.[A-Za-z0-9_-]{0,700}(?![A-Za-z0-9_-])/g

// A JWT is three base64url parts whose header decodes to JSON naming an `alg`.
const jwtHeader: Accept = (m) => {
  const header = decodeBase64Url(m[0].slice(0, m[0].indexOf('.')))
  if (header === null) return null
  try {
    const parsed: unknown = JSON.parse(header)
    const alg = typeof parsed === 'object' && parsed !== null ? (parsed as { alg?: unknown }).alg : undefined
    return typeof alg === 'string' ? whole(m) : null
  } catch {
    return null
  }
}

const slackWebhook: Accept = (m) => (isPlaceholder(m[0].slice(30)) || /x{6}|0{8}/i.test(m[0]) ? null : whole(m))

// PEM private keys: the header anchors; the block runs to its footer, or over
// the base64 body when the footer is missing, never past PEM_MAX characters.
const PEM_MAX = 4096
const PEM_BEGIN = /-----BEGIN (?:[A-Z0-9]{1,12} ){0,3}PRIVATE KEY(?: BLOCK)?-----/g
const PEM_END = /-----END (?:[A-Z0-9]{1,12} ){0,3}PRIVATE KEY(?: BLOCK)?-----/y
const PEM_BODY = /[A-Za-z0-9+/=\s\\:,-]/

const privateKey: BuiltinDetector = {
  maxLength: PEM_MAX,
  scan(c, out) {
    const t = c.cased
    if (!t.includes('PRIVATE KEY')) return
    PEM_BEGIN.lastIndex = 0
    for (let m = PEM_BEGIN.exec(t); m !== null; m = PEM_BEGIN.exec(t)) {
      const start = m.index
      const limit = Math.min(t.length, start + PEM_MAX)
      let end = -1
      const footer = t.indexOf('-----END ', start + m[0].length)
      if (footer !== -1 && footer < limit) {
        PEM_END.lastIndex = footer
        const f = PEM_END.exec(t)
        if (f !== null) end = Math.min(limit, footer + f[0].length)
      }
      if (end === -1) {
        end = start + m[0].length
        while (end < limit && PEM_BODY.test(t.charAt(end))) end++
      }
      // `-----BEGIN PRIVATE KEY-----\nXXXX\n-----END…` in docs is not a key: the body must look like one.
      const body = t.slice(start + m[0].length, end).replace(/-----END[^]{0,60}$/, '').replace(/\\n|\s/g, '')
      if (body.length < 40 || isPlaceholder(body)) {
        PEM_BEGIN.lastIndex = end
        continue
      }
      // A key inside a service-account JSON (`"private_key": "-----BEGIN…`) is reported as such.
      const before = t.slice(Math.max(0, start - 40), start)
      const entity = /"private_key"\s{0,4}:\s{0,4}"$/.test(before) ? 'gcp_service_account_key' : 'private_key'
      out.push({ start, end, entity })
      PEM_BEGIN.lastIndex = end
    }
  },
}

const pemAs = (entity: string): BuiltinDetector => ({
  maxLength: PEM_MAX,
  scan(c, out) {
    const hits: Hit[] = []
    privateKey.scan(c, hits)
    for (const h of hits) if (h.entity === entity) out.push(h)
  },
})

// The registry: entity names accepted by `secret` rules come from these keys.
export const SECRET_DETECTORS = {
  aws_access_key_id: prefixed('aws_access_key_id', 20, AWS_PREFIXES, AWS_KEY_ID, awsKeyId),
  aws_secret_access_key: prefixed('aws_secret_access_key', 40, ['ecret', 'ECRET'], AWS_SECRET, group1(highEntropyBase64)),
  gcp_api_key: prefixed('gcp_api_key', 39, ['AIza'], GCP_API_KEY, tokenBody(4)),
  gcp_service_account_key: pemAs('gcp_service_account_key'),
  azure_storage_key: prefixed('azure_storage_key', 88, ['ccountKey', 'ccessKey', 'ccountkey', 'ccesskey'], AZURE_KEY, group1(highEntropyBase64)),
  github_token: prefixed('github_token', 93, ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'], GITHUB, tokenBody(4)),
  gitlab_token: prefixed('gitlab_token', 56, ['glpat-'], GITLAB, tokenBody(6)),
  slack_token: prefixed('slack_token', 300, ['xox'], SLACK_TOKEN, tokenBody(5, 6)),
  slack_webhook: prefixed('slack_webhook', 170, ['hooks.slack.com'], SLACK_WEBHOOK, slackWebhook),
  stripe_key: prefixed('stripe_key', 255, ['k_live_', 'k_test_'], STRIPE, tokenBody(8)),
  openai_key: prefixed('openai_key', 211, ['sk-'], OPENAI, tokenBody(3, 10, true)),
  anthropic_key: prefixed('anthropic_key', 170, ['sk-ant-'], ANTHROPIC, tokenBody(14, 10)),
  huggingface_token: prefixed('huggingface_token', 43, ['hf_'], HUGGINGFACE, tokenBody(3)),
  npm_token: prefixed('npm_token', 40, ['npm_'], NPM, tokenBody(4)),
  private_key: pemAs('private_key'),
  jwt: prefixed('jwt', 3910, ['eyJ'], JWT, jwtHeader),
  ...CREDENTIAL_DETECTORS,
} satisfies Record<string, BuiltinDetector>

export type SecretEntity = keyof typeof SECRET_DETECTORS
export const SECRET_ENTITIES = Object.keys(SECRET_DETECTORS) as SecretEntity[]

/** Exposed for the linear-time source check in tests. */
export const SECRET_PATTERNS: readonly RegExp[] = [
  AWS_KEY_ID, AWS_SECRET, GCP_API_KEY, AZURE_KEY, GITHUB, GITLAB, SLACK_TOKEN, SLACK_WEBHOOK, STRIPE,
  ANTHROPIC, OPENAI, HUGGINGFACE, NPM, JWT, PEM_BEGIN, PEM_END,
]
