// Keywords: one Aho–Corasick automaton for every keyword of every rule of a
// stage, so the text is walked once however many keywords a workspace saves.
// Patterns and text are both canonical (folded), hence case-insensitive.

export interface KeywordPattern {
  readonly text: string // already canonical and folded
  readonly word: boolean // match: word → both ends must sit on word boundaries
  readonly owner: number // caller's index (which rule)
}

export interface KeywordHit {
  readonly start: number
  readonly end: number
  readonly owner: number
}

export interface KeywordAutomaton {
  readonly patterns: readonly KeywordPattern[]
  readonly maxLength: number
  scan(folded: string, out: KeywordHit[]): void
}

const ASCII = 128

function isWordCode(c: number): boolean {
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95
  return /[\p{L}\p{N}]/u.test(String.fromCharCode(c))
}

export function buildKeywordAutomaton(patterns: readonly KeywordPattern[]): KeywordAutomaton {
  // Trie with a Map per node while building.
  const children: Array<Map<number, number>> = [new Map()]
  const outputs: number[][] = [[]]
  let maxLength = 0
  patterns.forEach((p, index) => {
    if (p.text.length === 0) return
    maxLength = Math.max(maxLength, p.text.length)
    let node = 0
    for (let i = 0; i < p.text.length; i++) {
      const c = p.text.charCodeAt(i)
      const map = children[node] as Map<number, number>
      let next = map.get(c)
      if (next === undefined) {
        next = children.length
        children.push(new Map())
        outputs.push([])
        map.set(c, next)
      }
      node = next
    }
    ;(outputs[node] as number[]).push(index)
  })
  // Breadth-first failure links; each node's outputs absorb its suffix's outputs.
  const fail = new Int32Array(children.length)
  const order: number[] = []
  for (const child of (children[0] as Map<number, number>).values()) order.push(child)
  for (let q = 0; q < order.length; q++) {
    const node = order[q] as number
    for (const [c, child] of children[node] as Map<number, number>) {
      let f = fail[node] as number
      while (f !== 0 && !(children[f] as Map<number, number>).has(c)) f = fail[f] as number
      const target = (children[f] as Map<number, number>).get(c)
      fail[child] = target !== undefined && target !== child ? target : 0
      ;(outputs[child] as number[]).push(...(outputs[fail[child] as number] as number[]))
      order.push(child)
    }
  }
  // Dense transition table for ASCII so the hot loop is one array read per char.
  const delta = new Int32Array(children.length * ASCII)
  for (const node of [0, ...order]) {
    for (let c = 0; c < ASCII; c++) {
      const direct = (children[node] as Map<number, number>).get(c)
      if (direct !== undefined) delta[node * ASCII + c] = direct
      else delta[node * ASCII + c] = node === 0 ? 0 : (delta[(fail[node] as number) * ASCII + c] as number)
    }
  }
  // One byte per state says whether any keyword ends there: the hot loop
  // reads it instead of an array's length.
  const ends = new Uint8Array(children.length)
  outputs.forEach((o, node) => {
    if (o.length > 0) ends[node] = 1
  })
  const slowStep = (node: number, c: number): number => {
    let s = node
    for (;;) {
      const next = (children[s] as Map<number, number>).get(c)
      if (next !== undefined) return next
      if (s === 0) return 0
      s = fail[s] as number
    }
  }

  return {
    patterns,
    maxLength,
    scan(folded, out) {
      let s = 0
      for (let i = 0; i < folded.length; i++) {
        const c = folded.charCodeAt(i)
        s = c < ASCII ? (delta[(s << 7) | c] as number) : slowStep(s, c)
        if (ends[s] === 0) continue
        for (const index of outputs[s] as number[]) {
          const p = patterns[index] as KeywordPattern
          const end = i + 1
          const start = end - p.text.length
          if (p.word && !onBoundaries(folded, p.text, start, end)) continue
          out.push({ start, end, owner: p.owner })
        }
      }
    },
  }
}

// A boundary is only required where the keyword itself starts/ends with a
// word character: `c++` should match in `use c++.`.
function onBoundaries(text: string, keyword: string, start: number, end: number): boolean {
  if (isWordCode(keyword.charCodeAt(0)) && start > 0 && isWordCode(text.charCodeAt(start - 1))) return false
  if (isWordCode(keyword.charCodeAt(keyword.length - 1)) && end < text.length && isWordCode(text.charCodeAt(end)))
    return false
  return true
}
