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
import { canonical, decodedReadings, wholeBase64 } from './decode.js';
import { checkCommands, checkText, JUDGED_NAMES, type Finding } from './destructive-shell.js';
import { checkSql } from './destructive-sql.js';
import { normaliseShell, splitCommands } from './shell-words.js';

const MAX_DEPTH = 3;

// `lower` is the canonical text lower-cased: command names, SQL keywords
// and paths are compared case-insensitively. Decoding works on `text`,
// since base64 is case-sensitive.
// A single word of identifier characters cannot carry arguments, so it is
// no shell command; it may still be base64 or a one-word NoSQL wipe.
// ONE_WORD is /^[A-Za-z0-9_.@/:=-]*$/ as a table: a loop is cheaper than
// a regex call on the many short strings of every call.
const ONE_WORD_CHARS = new Uint8Array(128);
for (const r of ['AZ', 'az', '09']) for (let c = r.charCodeAt(0); c <= r.charCodeAt(1); c++) ONE_WORD_CHARS[c] = 1;
for (const ch of '_.@/:=-') ONE_WORD_CHARS[ch.charCodeAt(0)] = 1;
function isOneWord(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || ONE_WORD_CHARS[c] === 0) return false;
  }
  return true;
}
// A one-word string holds no "(", so only the anchored words can match
// (was /^(?:flushall|flushdb)$|dropdatabase\(/i).
const ONE_WORD_WIPE = /^(?:flushall|flushdb)$/i;

const decoded = (f: Finding): Finding => (f.factor.startsWith('decoded:') ? f : { factor: `decoded:${f.factor}`, risk: f.risk });

function analyse(s: string, depth: number): Finding[] {
  if (isOneWord(s)) {
    const out: Finding[] = (s.length === 7 || s.length === 8) && ONE_WORD_WIPE.test(s) ? [{ factor: 'nosql_wipe', risk: 0.9 }] : [];
    const d = depth < MAX_DEPTH ? wholeBase64(s) : undefined;
    if (d) for (const f of analyse(d, depth + 1)) out.push(decoded(f));
    return out;
  }
  const text = canonical(s);
  const lower = text.toLowerCase();
  const out: Finding[] = [];
  const fed: string[] = [];
  const norm = normaliseShell(lower);
  checkText(norm, out);
  checkCommands(norm, splitCommands(norm, JUDGED_NAMES), out, fed);
  for (const f of checkSql(lower)) out.push(f);
  if (depth < MAX_DEPTH) {
    for (const t of fed) for (const f of analyse(t, depth + 1)) out.push(f);
    for (const d of decodedReadings(text, lower)) for (const f of analyse(d, depth + 1)) out.push(decoded(f));
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
