// Canonicalisation (CONTRACT §9): one pass, offsets map back to the original.
import t from 'tap'
import { canonicalize, toOriginal } from '../../../shared/src/guardrails/canonical.js'

t.test('ASCII text is its own canonical form with lower-cased fold', async (t) => {
  const c = canonicalize('Hello World')
  t.equal(c.cased, 'Hello World')
  t.equal(c.folded, 'hello world')
  t.same(toOriginal(c, 6, 11), { start: 6, end: 11 })
})

t.test('zero-width and bidi controls are removed and spans cover them', async (t) => {
  const text = 'se\u200bcr\u202eet\u2066 x\u00ad'
  const c = canonicalize(text)
  t.equal(c.folded, 'secret x')
  const span = toOriginal(c, 0, 6)
  t.equal(text.slice(span.start, span.end), 'se\u200bcr\u202eet')
})

t.test('Cyrillic and Greek look-alikes fold to ASCII', async (t) => {
  t.equal(canonicalize('раѕѕwоrd ΑΒΟ ɡіt').folded, 'password abo git')
})

t.test('fullwidth characters fold through NFKC with offsets per character', async (t) => {
  const text = 'key ＡＫＩＡ'
  const c = canonicalize(text)
  t.equal(c.cased, 'key AKIA')
  t.same(toOriginal(c, 4, 8), { start: 4, end: 8 })
})

t.test('a base letter and its combining mark compose and map to both', async (t) => {
  const text = 'cafe\u0301 ok'
  const c = canonicalize(text)
  t.equal(c.folded, 'café ok')
  t.same(toOriginal(c, 3, 4), { start: 3, end: 5 })
})

t.test('astral characters keep UTF-16 offsets', async (t) => {
  const text = '😀 𝐀𝐁 x'
  const c = canonicalize(text)
  t.equal(c.folded, '😀 ab x')
  const span = toOriginal(c, 3, 5)
  t.equal(text.slice(span.start, span.end), '𝐀𝐁')
})

t.test('dotted capital I keeps the folded text aligned', async (t) => {
  const c = canonicalize('İstanbul')
  t.equal(c.folded.length, c.cased.length)
  t.equal(c.folded, 'istanbul')
})
