import type { CanonicalText } from '../canonical.js'

/** A built-in detector's match, in canonical offsets. */
export interface Hit {
  start: number
  end: number
  entity: string
}

// Every built-in detector declares the longest stretch of text it reads to
// decide one match — from its earliest look-behind (a URL's scheme, a key
// name) to the match's end — so the streaming scanner knows how much output
// to hold back and how much emitted text to keep as context (CONTRACT §9).
export interface BuiltinDetector {
  readonly maxLength: number
  scan(text: CanonicalText, out: Hit[]): void
}
