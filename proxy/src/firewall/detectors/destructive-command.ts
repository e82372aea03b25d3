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

// Findings are pushed onto `out`; nothing is allocated for a string with
// none, the common case (this runs over every string of every call).
function analyse(s: string, depth: number, out: Finding[]): void {
  if (isOneWord(s)) {
    if ((s.length === 7 || s.length === 8) && ONE_WORD_WIPE.test(s)) out.push({ factor: 'nosql_wipe', risk: 0.9 });
    const d = depth < MAX_DEPTH ? wholeBase64(s) : undefined;
    if (d) analyseDecoded(d, depth + 1, out);
    return;
  }
  const text = canonical(s);
  const lower = text.toLowerCase();
  const fed: string[] = [];
  const norm = normaliseShell(lower);
  checkText(norm, out);
  checkCommands(norm, splitCommands(norm, JUDGED_NAMES), out, fed);
  checkSql(lower, out);
  if (depth < MAX_DEPTH) {
    for (const t of fed) analyse(t, depth + 1, out);
    for (const d of decodedReadings(text, lower)) analyseDecoded(d, depth + 1, out);
  }
}

function analyseDecoded(s: string, depth: number, out: Finding[]): void {
  const found: Finding[] = [];
  analyse(s, depth, found);
  for (const f of found) out.push(decoded(f));
}

/** Findings for one string; exported for corpus tests. */
export function analyseCommandText(s: string): Finding[] {
  const out: Finding[] = [];
  analyse(s, 0, out);
  return out;
}

export function detectDestructive(strings: readonly StringLeaf[]): DetectorResult {
  const found: Finding[] = [];
  for (const leaf of strings) {
    if (leaf.fromNumber || leaf.value.length < 2) continue;
    analyse(leaf.value, 0, found);
  }
  if (found.length === 0) return { fired: false, risk: 0, factors: [] };
  const factors = new Set<string>();
  let risk = 0;
  for (const f of found) {
    factors.add(f.factor);
    if (f.risk > risk) risk = f.risk;
  }
  return { fired: true, risk, factors: [...factors] };
}
