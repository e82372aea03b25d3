// destructive_command detector: shell or SQL that destroys data, anywhere
// in the arguments (JSON inside strings is already walked by args.ts).
// Each string is judged as written and as decoded (URL, \x escapes,
// base64/hex fed to a decoder), up to three decoding layers deep.
//
// Command names are matched case-insensitively: `RM` is not found on a
// Linux shell, but case-insensitive file systems (macOS) run it, and no
// harmless call spells a destructive command in capitals.
import type { StringLeaf } from '../args.js';
import type { DetectorResult } from './ssrf.js';
import { canonical, decodedReadings } from './decode.js';
import { checkCommands, checkText, type Finding } from './destructive-shell.js';
import { checkSql } from './destructive-sql.js';
import { normaliseShell, splitCommands } from './shell-words.js';

const MAX_DEPTH = 3;
// Only texts naming a program we judge (or a redirect / function
// definition) go through command splitting; the rest is prose or data.
const SHELL_TRIGGER = /\b(?:rm|find|git|shred|dd|wipefs|blkdiscard|mkswap|mke2fs|mkfs[\w.]*|sgdisk|parted|chmod|chown|chgrp|mv|truncate|crontab|kill|dropdb|kubectl|oc|terraform|tofu|terragrunt|pulumi|cdk|docker|podman|aws|gcloud|gsutil|az|sh|bash|zsh|dash|ksh|fish|echo|printf|perl|python3?)\b|\(\)|>/;

function shellFindings(text: string, depth: number): Finding[] {
  const norm = normaliseShell(text).toLowerCase();
  if (!SHELL_TRIGGER.test(norm)) return [];
  const again = (fed: string): Finding[] => (depth < MAX_DEPTH ? analyse(fed, depth + 1) : []);
  return [...checkText(norm), ...checkCommands(splitCommands(norm), again)];
}

function analyse(s: string, depth: number): Finding[] {
  const text = canonical(s);
  const out = [...shellFindings(text, depth), ...checkSql(text)];
  if (depth < MAX_DEPTH) {
    for (const d of decodedReadings(text)) {
      for (const f of analyse(d, depth + 1)) out.push({ factor: f.factor.startsWith('decoded:') ? f.factor : `decoded:${f.factor}`, risk: f.risk });
    }
  }
  return out;
}

/** Findings for one string; exported for corpus tests. */
export const analyseCommandText = (s: string): Finding[] => analyse(s, 0);

export function detectDestructive(strings: readonly StringLeaf[]): DetectorResult {
  const factors = new Set<string>();
  let risk = 0;
  for (const leaf of strings) {
    if (leaf.fromNumber || leaf.value.length < 2) continue;
    for (const f of analyse(leaf.value, 0)) {
      factors.add(f.factor);
      if (f.risk > risk) risk = f.risk;
    }
  }
  return { fired: factors.size > 0, risk, factors: [...factors] };
}
