// Save-time validation: every problem a rule list can have is reported here,
// with the rule's index, id and field, so nothing fails at request time.

import { RE2JSException } from 're2js'
import type { Rule } from './types.js'
import { ruleListSchema } from './types.js'
import { compileUserRegex } from './detectors/regex.js'
import { canonicalize } from './canonical.js'

export type ValidateResult = { ok: true; rules: Rule[] } | { ok: false; errors: string[] }

function where(input: unknown, index: number): string {
  const id = Array.isArray(input) ? (input[index] as { id?: unknown } | undefined)?.id : undefined
  return typeof id === 'string' ? `rules[${index}] (id "${id}")` : `rules[${index}]`
}

function pathText(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')
}

export function validateRules(input: unknown): ValidateResult {
  const parsed = ruleListSchema.safeParse(input)
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => {
      const [index, ...rest] = issue.path
      if (typeof index !== 'number') return `rules${pathText(issue.path)}: ${issue.message}`
      return `${where(input, index)}${pathText(rest)}: ${issue.message}`
    })
    return { ok: false, errors }
  }
  const errors: string[] = []
  const seen = new Set<string>()
  parsed.data.forEach((rule, index) => {
    if (rule.id !== undefined) {
      if (seen.has(rule.id)) errors.push(`${where(input, index)}.id: duplicate rule id`)
      seen.add(rule.id)
    }
    if (rule.type === 'regex') {
      try {
        compileUserRegex(rule.pattern, rule.flags)
      } catch (err) {
        const detail = err instanceof RE2JSException ? err.message : String(err)
        errors.push(`${where(input, index)}.pattern: unsupported by the linear-time engine: ${detail}`)
      }
    }
    if (rule.type === 'keyword') {
      rule.keywords.forEach((k, ki) => {
        // A keyword of only invisible characters canonicalises to nothing and would match nowhere.
        if (canonicalize(k).folded.trim().length === 0) errors.push(`${where(input, index)}.keywords[${ki}]: empty after normalisation`)
      })
    }
  })
  return errors.length > 0 ? { ok: false, errors } : { ok: true, rules: parsed.data }
}
