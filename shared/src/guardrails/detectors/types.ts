import type { CanonicalText } from '../canonical.js'

/** A built-in detector's match, in canonical offsets. */
export interface Hit {
  start: number
  end: number
  entity: string
}

// Every built-in detector declares the longest match it can report so the
// streaming scanner knows how much output to hold back (CONTRACT §9 Streams).
export interface BuiltinDetector {
  readonly maxLength: number
  scan(text: CanonicalText, out: Hit[]): void
}
