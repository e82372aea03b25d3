// Public surface of the guardrail engine; named exports only.
export { validateRules } from './validate.js'
export type { ValidateResult } from './validate.js'
export { compileGuardrails, GuardrailCompileError } from './compile.js'
export type { CompiledGuardrails, AsyncRuleRef } from './compile.js'
export { evaluate, maskLabel } from './engine.js'
export { createStreamScanner } from './stream.js'
export type { StreamScanner, StreamStep } from './stream.js'
export { createJudge, createOpenAICompatibleComplete } from './judge.js'
export type { Complete, CompletionRequest, CompletionResponse, Judge, JudgeContext, JudgeResult, JudgeUsage } from './judge.js'
export { canonicalize, toOriginal } from './canonical.js'
export type { CanonicalText } from './canonical.js'
export { PII_ENTITIES } from './detectors/pii.js'
export { SECRET_ENTITIES } from './detectors/secret.js'
export { REGEX_MATCH_CAP } from './detectors/regex.js'
export { STAGES, ruleSchema, ruleListSchema } from './types.js'
export type {
  Action, AsyncRule, BlockInfo, EvaluateResult, Finding, GuardrailInput, Rule, RuleType, Stage, Verdict,
} from './types.js'
