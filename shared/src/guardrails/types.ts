// Guardrail rule shapes (CONTRACT §9, §10): rule fields sit flat on the rule.
// Entity names come from the detector registries, never a parallel list.

import { z } from 'zod'
import { PII_ENTITIES } from './detectors/pii.js'
import { SECRET_ENTITIES } from './detectors/secret.js'

export const STAGES = ['input', 'output'] as const
export type Stage = (typeof STAGES)[number]

const action = z.enum(['block', 'mask', 'flag'])
export type Action = z.infer<typeof action>

const base = {
  id: z.string().min(1).max(128).optional(),
  name: z.string().min(1).max(128).optional(),
  stage: z.enum(['input', 'output', 'both']),
}

// `entity` names the redaction label of keyword/regex rules: [REDACTED:<ENTITY>].
const entityLabel = z.string().regex(/^[A-Za-z0-9_]{1,64}$/, 'letters, digits and _ only (1–64)')

const keywordRule = z.strictObject({
  ...base,
  type: z.literal('keyword'),
  action,
  keywords: z.array(z.string().min(1).max(256)).min(1).max(10_000),
  match: z.enum(['word', 'substring']).default('word'),
  entity: entityLabel.optional(),
})

const regexRule = z.strictObject({
  ...base,
  type: z.literal('regex'),
  action,
  pattern: z.string().min(1).max(4096),
  flags: z.string().regex(/^[imsgu]{0,5}$/, 'only i, m, s (g and u are accepted and ignored)').optional(),
  entity: entityLabel.optional(),
})

const entityMap = (names: readonly string[]) =>
  z
    .record(z.string(), action)
    .refine((m) => Object.keys(m).length > 0, 'at least one entity')
    .superRefine((m, ctx) => {
      for (const key of Object.keys(m)) {
        if (key !== '*' && !names.includes(key)) {
          ctx.addIssue({ code: 'custom', path: [key], message: `unknown entity "${key}" (known: ${names.join(', ')}, *)` })
        }
      }
    })

const piiRule = z.strictObject({
  ...base,
  type: z.literal('pii'),
  action: action.optional(), // the per-entity actions decide; kept for symmetry with other rules
  entities: entityMap(PII_ENTITIES),
})

const secretRule = z.strictObject({
  ...base,
  type: z.literal('secret'),
  action: action.optional(),
  entities: entityMap(SECRET_ENTITIES),
})

const failureMode = z.enum(['closed', 'open']).default('closed')

const llmJudgeRule = z.strictObject({
  ...base,
  type: z.literal('llm_judge'),
  action: action.default('block'),
  model: z.string().min(1),
  criteria: z.string().min(1).max(8000),
  threshold: z.number().min(0).max(1).default(0.5),
  failure_mode: failureMode,
})

const groundingRule = z.strictObject({
  ...base,
  type: z.literal('grounding'),
  action: action.default('block'),
  model: z.string().min(1),
  min_score: z.number().min(0).max(1).default(0.5),
  failure_mode: failureMode,
})

export const ruleSchema = z.discriminatedUnion('type', [keywordRule, regexRule, piiRule, secretRule, llmJudgeRule, groundingRule])
export const ruleListSchema = z.array(ruleSchema).max(500)

export type Rule = z.infer<typeof ruleSchema>
export type KeywordRule = z.infer<typeof keywordRule>
export type RegexRule = z.infer<typeof regexRule>
export type PiiRule = z.infer<typeof piiRule>
export type SecretRule = z.infer<typeof secretRule>
export type LlmJudgeRule = z.infer<typeof llmJudgeRule>
export type GroundingRule = z.infer<typeof groundingRule>
export type AsyncRule = LlmJudgeRule | GroundingRule
export type RuleType = Rule['type']

export type Verdict = 'allow' | 'block' | 'mask' | 'flag'

/** One match. Never carries the matched text (CONTRACT §9). Offsets are UTF-16, in the original text. */
export interface Finding {
  guardrail_id: string
  rule_id: string
  type: RuleType
  entity: string
  start: number
  end: number
  action: Action
}

/** `guardrail_blocked` metadata (CONTRACT §9). */
export interface BlockInfo {
  guardrail_id: string
  guardrail_name: string
  rule_id: string
  stage: Stage
  entity?: string
}

export interface EvaluateResult {
  verdict: Verdict
  findings: Finding[]
  /** The original text with every mask span redacted (identical to the input when nothing is masked). */
  masked_text: string
  blocked?: BlockInfo
}

export interface GuardrailInput {
  id: string
  name: string
  rules: unknown
}
