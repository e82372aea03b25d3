// Fake, format-valid secrets built at run time from a seeded PRNG, so the
// repository never holds a token literal that push protection would flag.

export type Rng = () => number

/** mulberry32: tiny, deterministic, good enough to look random. */
export function seeded(seed: number): Rng {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const LOWER = 'abcdefghijklmnopqrstuvwxyz'
const DIGITS = '0123456789'
const BASE62 = UPPER + LOWER + DIGITS
const BASE64 = BASE62 + '+/'
const BASE64URL = BASE62 + '-_'

export function pick(rng: Rng, alphabet: string, n: number): string {
  let s = ''
  for (let i = 0; i < n; i++) s += alphabet.charAt(Math.floor(rng() * alphabet.length))
  return s
}

// Random strings of a few characters can by chance miss a class; real tokens
// of these lengths practically never do. Regenerate until mixed.
function mixed(rng: Rng, alphabet: string, n: number): string {
  for (;;) {
    const s = pick(rng, alphabet, n)
    if (/[A-Z]/.test(s) && /[a-z]/.test(s) && /\d/.test(s)) return s
  }
}

const b64url = (s: string) => Buffer.from(s).toString('base64url')

function pem(rng: Rng, label: string, escaped: boolean): string {
  const body = pick(rng, BASE64, 64 * (8 + Math.floor(rng() * 6))).match(/.{1,64}/g) ?? []
  const nl = escaped ? '\\n' : '\n'
  return [`-----BEGIN ${label}-----`, ...body, `-----END ${label}-----`].join(nl) + (escaped ? nl : '')
}

function jwt(rng: Rng, alg: string): string {
  const header = b64url(JSON.stringify({ alg, typ: 'JWT' }))
  const payload = b64url(JSON.stringify({ sub: pick(rng, DIGITS, 10), name: 'Test User', iat: 1700000000 + Math.floor(rng() * 1e6) }))
  const sig = alg === 'none' ? '' : pick(rng, BASE64URL, alg === 'RS256' ? 342 : 43)
  return `${header}.${payload}.${sig}`
}

type Generator = (rng: Rng, variant: string) => string

export const FAKES: Record<string, Generator> = {
  aws_access_key_id: (r, v) => (v === 'asia' ? 'ASIA' : 'AKIA') + pick(r, UPPER + '234567', 16),
  aws_secret_access_key: (r) => mixed(r, BASE64, 40),
  gcp_api_key: (r) => 'AI' + 'za' + mixed(r, BASE64URL, 35),
  gcp_service_account_key: (r) => pem(r, 'PRIVATE KEY', true),
  azure_storage_key: (r, v) => (v === 'sas' ? mixed(r, BASE64, 43) + '=' : mixed(r, BASE64, 86) + '=='),
  github_token: (r, v) =>
    v === 'pat'
      ? 'github' + '_pat_' + mixed(r, BASE62, 22) + '_' + mixed(r, BASE62, 59)
      : ['ghp', 'gho', 'ghu', 'ghs', 'ghr'][Math.floor(r() * 5)] + '_' + mixed(r, BASE62, 36),
  gitlab_token: (r) => 'gl' + 'pat-' + mixed(r, BASE62 + '_-', 20),
  slack_token: (r, v) => `xox${v === 'user' ? 'p' : 'b'}-${pick(r, DIGITS, 11)}-${pick(r, DIGITS, 13)}-${mixed(r, BASE62, 24)}`,
  slack_webhook: (r) => `https://hooks.slack.com/services/T${pick(r, UPPER + DIGITS, 8)}/B${pick(r, UPPER + DIGITS, 10)}/${mixed(r, BASE62, 24)}`,
  stripe_key: (r, v) => (v === 'restricted' ? 'rk' : 'sk') + (v === 'test' ? '_test_' : '_live_') + mixed(r, BASE62, 24 + Math.floor(r() * 76)),
  openai_key: (r, v) => (v === 'proj' ? 'sk-' + 'proj-' + mixed(r, BASE64URL, 120) : 'sk-' + mixed(r, BASE62, 48)),
  anthropic_key: (r) => 'sk-' + 'ant-api03-' + mixed(r, BASE64URL, 93) + 'AA',
  huggingface_token: (r) => 'hf' + '_' + pick(r, UPPER + LOWER, 34),
  npm_token: (r) => 'npm' + '_' + mixed(r, BASE62, 36),
  private_key: (r, v) =>
    pem(
      r,
      { rsa: 'RSA PRIVATE KEY', ec: 'EC PRIVATE KEY', openssh: 'OPENSSH PRIVATE KEY', pkcs8: 'PRIVATE KEY', pgp: 'PGP PRIVATE KEY BLOCK', encrypted: 'ENCRYPTED PRIVATE KEY' }[v] ?? 'PRIVATE KEY',
      false,
    ),
  jwt: (r, v) => jwt(r, v === 'rs256' ? 'RS256' : v === 'none' ? 'none' : 'HS256'),
  url_credentials: (r, v) => (v === 'human' ? 'Tr0ub4dor' + pick(r, '&!%', 1) + pick(r, DIGITS, 2) : mixed(r, BASE62, 12 + Math.floor(r() * 12))),
  connection_string: (r, v) => (v === 'human' ? 'Summer' + pick(r, DIGITS, 4) + '!' : mixed(r, BASE62, 20)),
  generic_secret: (r, v) => {
    if (v === 'human') return 'Correct' + pick(r, DIGITS, 3) + 'Horse!'
    if (v === 'uuid') {
      const h = (n: number) => pick(r, '0123456789abcdef', n)
      return `${h(8)}-${h(4)}-4${h(3)}-a${h(3)}-${h(12)}`
    }
    if (v === 'hex') {
      for (;;) {
        const hex = pick(r, '0123456789abcdef', 64)
        if (/[a-f]/.test(hex) && /\d/.test(hex)) return hex
      }
    }
    return mixed(r, BASE62 + '_-', 32)
  },
}
