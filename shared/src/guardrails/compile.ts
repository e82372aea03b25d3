// Compile guardrails once per bundle: validate every rule, split by stage,
// build one keyword automaton and one regex set per stage, and route each
// built-in entity to the rules that asked for it. Evaluation then only walks
// the text, never the rule list.

import type { RE2Set } from 're2js'
import type { Action, AsyncRule, GuardrailInput, Rule, RuleType, Stage } from './types.js'
import { STAGES } from './types.js'
import { validateRules } from './validate.js'
import { canonicalize } from './canonical.js'
import { buildKeywordAutomaton, type KeywordAutomaton, type KeywordPattern } from './detectors/keyword.js'
import { buildRegexSet, compileUserRegex, inlinePattern, userRegex, type UserRegex } from './detectors/regex.js'
import { PII_DETECTORS, PII_ENTITIES, type PiiEntity } from './detectors/pii.js'
import { SECRET_DETECTORS, SECRET_ENTITIES, type SecretEntity } from './detectors/secret.js'

export interface RuleRef {
  readonly guardrail_id: string
  readonly guardrail_name: string
  readonly rule_id: string
  readonly type: RuleType
  /** Entity reported for keyword/regex findings (rule entity, else rule name, else the type). */
  readonly entity: string
  /** Action of keyword/regex rules; pii/secret actions are per entity. */
  readonly action: Action
}

export interface EntityRoute {
  readonly ref: number
  readonly action: Action
}

export interface StagePlan {
  readonly refs: readonly RuleRef[]
  readonly keywords: KeywordAutomaton | null
  readonly regexes: readonly UserRegex[]
  readonly regexSet: RE2Set | null
  readonly pii: ReadonlyMap<PiiEntity, readonly EntityRoute[]>
  readonly secrets: ReadonlyMap<SecretEntity, readonly EntityRoute[]>
  /** Longest match any rule of this stage can report, in canonical characters. */
  readonly maxMatch: number
  readonly empty: boolean
}

export interface AsyncRuleRef {
  readonly guardrail_id: string
  readonly guardrail_name: string
  readonly rule_id: string
  readonly rule: AsyncRule
}

export interface CompiledGuardrails {
  readonly stages: Readonly<Record<Stage, StagePlan>>
  /** llm_judge and grounding rules, for the asynchronous judge (judge.ts). */
  readonly asyncRules: Readonly<Record<Stage, readonly AsyncRuleRef[]>>
}

export class GuardrailCompileError extends Error {
  constructor(readonly errors: readonly string[]) {
    super(`invalid guardrail rules: ${errors.join('; ')}`)
    this.name = 'GuardrailCompileError'
  }
}

interface Entry {
  g: GuardrailInput
  rule: Rule
  ruleId: string
}

function entityRoutes<E extends string>(known: readonly E[], map: Record<string, Action>, ref: number, into: Map<E, EntityRoute[]>): void {
  for (const entity of known) {
    const action = map[entity] ?? map['*']
    if (action === undefined) continue
    const list = into.get(entity) ?? []
    list.push({ ref, action })
    into.set(entity, list)
  }
}

function compileStage(entries: readonly Entry[]): StagePlan {
  const refs: RuleRef[] = []
  const keywordPatterns: KeywordPattern[] = []
  const regexes: UserRegex[] = []
  const regexSources: string[] = []
  const pii = new Map<PiiEntity, EntityRoute[]>()
  const secrets = new Map<SecretEntity, EntityRoute[]>()
  for (const { g, rule, ruleId } of entries) {
    const ref = refs.length
    const label = rule.type === 'keyword' || rule.type === 'regex' ? (rule.entity ?? rule.name ?? rule.type) : rule.type
    refs.push({ guardrail_id: g.id, guardrail_name: g.name, rule_id: ruleId, type: rule.type, entity: label, action: rule.action ?? 'block' })
    if (rule.type === 'keyword') {
      for (const k of rule.keywords) keywordPatterns.push({ text: canonicalize(k).folded, word: rule.match === 'word', owner: ref })
    } else if (rule.type === 'regex') {
      regexes.push(userRegex(compileUserRegex(rule.pattern, rule.flags), ref))
      regexSources.push(inlinePattern(rule.pattern, rule.flags))
    } else if (rule.type === 'pii') entityRoutes(PII_ENTITIES, rule.entities, ref, pii)
    else if (rule.type === 'secret') entityRoutes(SECRET_ENTITIES, rule.entities, ref, secrets)
  }
  const keywords = keywordPatterns.length > 0 ? buildKeywordAutomaton(keywordPatterns) : null
  const maxMatch = Math.max(
    0,
    keywords?.maxLength ?? 0,
    ...regexes.map((r) => r.bound),
    ...[...pii.keys()].map((e) => PII_DETECTORS[e].maxLength),
    ...[...secrets.keys()].map((e) => SECRET_DETECTORS[e].maxLength),
  )
  return {
    refs,
    keywords,
    regexes,
    regexSet: regexSources.length > 0 ? buildRegexSet(regexSources) : null,
    pii,
    secrets,
    maxMatch,
    empty: keywords === null && regexes.length === 0 && pii.size === 0 && secrets.size === 0,
  }
}

/** Throws GuardrailCompileError (naming guardrail, rule and field) when any rule is invalid: fail closed. */
export function compileGuardrails(guardrails: readonly GuardrailInput[]): CompiledGuardrails {
  const errors: string[] = []
  const byStage: Record<Stage, Entry[]> = { input: [], output: [] }
  const asyncRules: Record<Stage, AsyncRuleRef[]> = { input: [], output: [] }
  for (const g of guardrails) {
    const checked = validateRules(g.rules)
    if (!checked.ok) {
      errors.push(...checked.errors.map((e) => `guardrail ${g.id}: ${e}`))
      continue
    }
    checked.rules.forEach((rule, index) => {
      const ruleId = rule.id ?? `rules[${index}]`
      for (const stage of STAGES) {
        if (rule.stage !== stage && rule.stage !== 'both') continue
        if (rule.type === 'llm_judge' || rule.type === 'grounding') {
          asyncRules[stage].push({ guardrail_id: g.id, guardrail_name: g.name, rule_id: ruleId, rule })
        } else byStage[stage].push({ g, rule, ruleId })
      }
    })
  }
  if (errors.length > 0) throw new GuardrailCompileError(errors)
  return {
    stages: { input: compileStage(byStage.input), output: compileStage(byStage.output) },
    asyncRules,
  }
}
