// Skill detector: named groups of tools with a mode. A call whose tool
// matches a skill in `block` mode fires (`skill_blocked`); `audit` mode
// asks for an audit record; `allow` mode is an explicit no-op. Block wins
// over audit when several skills claim the tool.
import type { Skill } from '@agentwall/shared/schemas/firewall';
import { compileGlobs, type GlobMatcher } from '../glob.js';
import type { DetectorResult } from './ssrf.js';

export interface CompiledSkill {
  name: string;
  mode: Skill['mode'];
  match: GlobMatcher;
}

export interface SkillResult extends DetectorResult {
  /** Names of matching skills in audit mode (set even when nothing fired). */
  audit: string[];
}

export const compileSkills = (skills: readonly Skill[]): CompiledSkill[] =>
  skills.map((s) => ({ name: s.name, mode: s.mode, match: compileGlobs(s.tools) }));

/** `tool` is the lower-cased tool name. */
export function detectSkill(skills: readonly CompiledSkill[], tool: string): SkillResult {
  const factors: string[] = [];
  const audit: string[] = [];
  for (const s of skills) {
    if (s.mode === 'allow' || !s.match(tool)) continue;
    if (s.mode === 'block') factors.push(`skill_blocked:${s.name}`);
    else audit.push(s.name);
  }
  return { fired: factors.length > 0, risk: factors.length > 0 ? 0.7 : 0, factors, audit };
}
