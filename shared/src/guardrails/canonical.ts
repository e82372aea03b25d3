// Canonical text (CONTRACT §9): every rule sees text after NFKC, case folding,
// removal of invisible controls and folding of look-alike letters, so that
// `pаsswоrd` with Cyrillic а/о or a zero-width space inside still matches.
// Findings must point at the ORIGINAL text, so the pass keeps an offset map.

export interface CanonicalText {
  readonly original: string
  /** NFKC + confusables folded + invisibles removed; case kept (secrets are case-significant). */
  readonly cased: string
  /** `cased` lower-cased; always the same length as `cased`, so one offset map serves both. */
  readonly folded: string
  /** For canonical unit i, the original offset where its source starts; null means identity. */
  readonly starts: Int32Array | null
  /** For canonical unit i, the original offset just after its source. */
  readonly ends: Int32Array | null
}

// Zero-width, bidi controls, word joiners, BOM, soft hyphen: invisible, so an
// attacker can sprinkle them inside a word without changing what a reader sees.
function isIgnorable(cp: number): boolean {
  return (
    cp === 0x00ad ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x2064) ||
    (cp >= 0x2066 && cp <= 0x2069) ||
    cp === 0xfeff
  )
}

// Letters that render like ASCII in common fonts. NFKC does not fold these
// (they are distinct scripts), so the table is ours. U+0130 (İ) is here
// because its lower case is two code units and would break the shared map.
const CONFUSABLES: ReadonlyMap<number, string> = new Map<number, string>([
  // Cyrillic lower
  [0x0430, 'a'], [0x0435, 'e'], [0x043e, 'o'], [0x0440, 'p'], [0x0441, 'c'], [0x0443, 'y'],
  [0x0445, 'x'], [0x0456, 'i'], [0x0458, 'j'], [0x0455, 's'], [0x0501, 'd'], [0x04bb, 'h'],
  [0x04cf, 'l'], [0x051b, 'q'], [0x051d, 'w'], [0x0457, 'i'],
  // Cyrillic upper
  [0x0410, 'A'], [0x0412, 'B'], [0x0415, 'E'], [0x041a, 'K'], [0x041c, 'M'], [0x041d, 'H'],
  [0x041e, 'O'], [0x0420, 'P'], [0x0421, 'C'], [0x0422, 'T'], [0x0425, 'X'], [0x0406, 'I'],
  [0x0408, 'J'], [0x0405, 'S'], [0x04ae, 'Y'], [0x04c0, 'I'],
  // Greek
  [0x0391, 'A'], [0x0392, 'B'], [0x0395, 'E'], [0x0396, 'Z'], [0x0397, 'H'], [0x0399, 'I'],
  [0x039a, 'K'], [0x039c, 'M'], [0x039d, 'N'], [0x039f, 'O'], [0x03a1, 'P'], [0x03a4, 'T'],
  [0x03a5, 'Y'], [0x03a7, 'X'], [0x03bf, 'o'], [0x03b9, 'i'], [0x03bd, 'v'], [0x03c1, 'p'],
  [0x03b1, 'a'], [0x03ba, 'k'], [0x03c5, 'u'], [0x03c7, 'x'],
  // Latin look-alikes outside ASCII
  [0x0261, 'g'], [0x0251, 'a'], [0x0131, 'i'], [0x0130, 'I'], [0x0269, 'i'],
  // Dashes and quotes, so `api_key = “…”` or `415–555–2671` still parse
  [0x2010, '-'], [0x2011, '-'], [0x2012, '-'], [0x2013, '-'], [0x2014, '-'], [0x2015, '-'],
  [0x2212, '-'], [0x2018, "'"], [0x2019, "'"], [0x201c, '"'], [0x201d, '"'],
])

const ASCII_ONLY = /^[\x00-\x7f]*$/

export function canonicalize(text: string): CanonicalText {
  if (ASCII_ONLY.test(text)) {
    // ASCII is NFKC-stable and has no invisibles or confusables: identity map.
    return { original: text, cased: text, folded: text.toLowerCase(), starts: null, ends: null }
  }
  return canonicalizeSlow(text)
}

const COMBINING_MARK = /^\p{M}$/u

function canonicalizeSlow(text: string): CanonicalText {
  // Whole-text NFKC check is native and cheap; per-cluster NFKC only when needed.
  const needNfkc = text.normalize('NFKC') !== text
  const parts: string[] = []
  const starts: number[] = []
  const ends: number[] = []
  let i = 0
  while (i < text.length) {
    const cp = text.codePointAt(i) ?? 0
    const width = cp > 0xffff ? 2 : 1
    if (isIgnorable(cp)) {
      i += width
      continue
    }
    let clusterEnd = i + width
    if (needNfkc) {
      // A base character and its combining marks normalise together (e + ◌́ → é).
      while (clusterEnd < text.length && text.charCodeAt(clusterEnd) >= 0x300) {
        const next = text.codePointAt(clusterEnd) ?? 0
        if (!COMBINING_MARK.test(String.fromCodePoint(next))) break
        clusterEnd += next > 0xffff ? 2 : 1
      }
    }
    const source = text.slice(i, clusterEnd)
    const piece = needNfkc && (cp >= 0x80 || clusterEnd > i + width) ? source.normalize('NFKC') : source
    for (const ch of piece) {
      const c = ch.codePointAt(0) ?? 0
      if (isIgnorable(c)) continue
      const out = CONFUSABLES.get(c) ?? ch
      parts.push(out)
      for (let k = 0; k < out.length; k++) {
        starts.push(i)
        ends.push(clusterEnd)
      }
    }
    i = clusterEnd
  }
  const cased = parts.join('')
  const folded = cased.toLowerCase()
  if (folded.length !== cased.length) {
    // Only U+0130 lower-cases to two units and the table folds it; guard anyway.
    throw new Error('canonical: case folding changed the text length')
  }
  return { original: text, cased, folded, starts: Int32Array.from(starts), ends: Int32Array.from(ends) }
}

/** Map a canonical [start,end) back to the original text's UTF-16 offsets. */
export function toOriginal(c: CanonicalText, start: number, end: number): { start: number; end: number } {
  if (c.starts === null || c.ends === null) return { start, end }
  if (end <= start) {
    const at = start < c.starts.length ? (c.starts[start] ?? c.original.length) : c.original.length
    return { start: at, end: at }
  }
  return { start: c.starts[start] ?? 0, end: c.ends[end - 1] ?? c.original.length }
}

/** Original offset where canonical unit `index` starts (text length when past the end). */
export function originalOffset(c: CanonicalText, index: number): number {
  if (c.starts === null) return index
  return index < c.starts.length ? (c.starts[index] ?? c.original.length) : c.original.length
}
