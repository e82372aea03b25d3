// SQL (and a few NoSQL) statements that destroy data: DROP, TRUNCATE,
// DELETE/UPDATE without a WHERE (or with an always-true one), ALTER TABLE …
// DROP. Prose that merely names a statement ("DROP TABLE is dangerous") is
// not a statement: the table name must be followed by the end of the
// statement (`;`, a closing quote or bracket, end of text).
import type { Finding } from './destructive-shell.js';

const TRIGGER = /\b(?:drop|truncate|delete|update|alter|flushall|flushdb)\b|dropdatabase|deletemany|\.drop\(|\.remove\(/i;
const IDENT = String.raw`[\w$.]+`;
const END = String.raw` ?(?:;|$|['")\x60\\])`;
const DROP = new RegExp(String.raw`\bdrop (?:table|database|schema|keyspace|tablespace)(?: if exists)? ${IDENT}(?: ?, ?${IDENT})*(?: cascade| restrict| purge)?${END}`);
const TRUNCATE = new RegExp(String.raw`\btruncate (?:table )?(?:only )?${IDENT}(?: ?, ?${IDENT})*(?: restart identity| continue identity| cascade| restrict)*${END}`);
const ALTER_DROP = new RegExp(String.raw`\balter table (?:if exists )?(?:only )?${IDENT} drop\b`);
const DELETE = new RegExp(String.raw`\bdelete from (${IDENT})([^;]*)`, 'g');
const UPDATE = new RegExp(String.raw`\bupdate (?:only )?(${IDENT})(?: (?:as )?\w+)? set ([^;]*)`, 'g');
// What may follow the table of a DELETE that has no WHERE and still be SQL.
const DELETE_TAIL = /^(?: (?:as )?\w+)?(?: using [^;]*)?(?: returning [^;]*)?(?: limit \d+)? ?$/;
const WHERE = /\bwhere\b(.*)$/;
// WHERE clauses true for every row.
const TAUTOLOGY = /^ ?(?:\(? ?(?:1|true|not false|(\w+) ?= ?\1|'(\w*)' ?= ?'\2'|(\d+) ?(?:<>|!=) ?(?!\3\b)\d+|\w+ is not null or \w+ is null) ?\)?) ?(?:limit \d+ ?)?$|\bor (?:1 ?= ?1|true|'(\w*)' ?= ?'\4')\b/;
const NOSQL = /\bflushall\b|\bflushdb\b|\.dropdatabase\(\)|\bdb\.[\w$]+\.drop\(\)|\.deletemany\(\{ ?\}\)|\.remove\(\{ ?\}\)/;

function stripComments(s: string): string {
  let out = s;
  for (let i = out.indexOf('/*'); i !== -1; i = out.indexOf('/*', i)) {
    const end = out.indexOf('*/', i + 2);
    out = `${out.slice(0, i)} ${end === -1 ? '' : out.slice(end + 2)}`;
  }
  // `-- ` to end of line is a comment; `--flag` is a CLI option, kept.
  return out.replace(/--(?![a-z])[^\n]*/gi, ' ');
}

/** Comments and identifier quotes removed, whitespace collapsed (input already lower-cased). */
export function normaliseSql(s: string): string {
  return stripComments(s)
    .replace(/"([\w$.]+)"|`([\w$.]+)`|\[([\w$.]+)\]/g, (_m, a?: string, b?: string, c?: string) => a ?? b ?? c ?? '')
    .replace(/\s+/g, ' ');
}

// The WHERE text ends where an enclosing shell quote or bracket closes.
function tautology(where: string): boolean {
  let w = where.split(/["\x60]/)[0] ?? '';
  if ((w.match(/'/g) ?? []).length % 2 === 1) w = w.slice(0, w.lastIndexOf("'"));
  w = w.replace(/[)\s]+$/, '').trim();
  return TAUTOLOGY.test(w === '' ? '' : ` ${w}`);
}
const beforeQuote = (s: string): string => s.split(/['"\x60)\\]/)[0] ?? '';

// Keyword pairs every pattern needs, checked with indexOf before any
// regex runs: most text mentions "update" or "delete" without "set"/"from".
const KEYWORDS = /drop|truncate|delete|update|flush|\.remove\(/g;

// One regex pass lists the keywords present; only then are the words each
// statement also needs looked for. Most text has no keyword at all.
function gates(l: string): { drop: boolean; truncate: boolean; del: boolean; upd: boolean; alter: boolean; nosql: boolean } | undefined {
  let drop = false, truncate = false, del = false, upd = false, flush = false;
  KEYWORDS.lastIndex = 0;
  for (let m = KEYWORDS.exec(l); m; m = KEYWORDS.exec(l)) {
    const k = m[0];
    if (k === 'drop') drop = true;
    else if (k === 'truncate') truncate = true;
    else if (k === 'delete') del = true;
    else if (k === 'update') upd = true;
    else flush = true;
  }
  if (!(drop || truncate || del || upd || flush)) return undefined;
  return {
    drop: drop && (l.includes('table') || l.includes('database') || l.includes('schema') || l.includes('keyspace')),
    truncate,
    del: del && hasWord(l, 'from'),
    upd: upd && hasWord(l, 'set'),
    alter: drop && l.includes('alter'),
    nosql: flush || (drop && l.includes('(')) || (del && l.includes('deletemany')),
  };
}

const isWordChar = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f;

/** new RegExp(`\\b${word}\\b`).test(l) for a word of \w characters, by indexOf: a \b-led regex cannot skip ahead. */
function hasWord(l: string, word: string): boolean {
  for (let i = l.indexOf(word); i !== -1; i = l.indexOf(word, i + 1)) {
    if ((i === 0 || !isWordChar(l.charCodeAt(i - 1))) && !isWordChar(l.charCodeAt(i + word.length))) return true;
  }
  return false;
}

/** Pushes the findings for `raw` (already lower-cased) onto `out`. */
export function checkSql(raw: string, out: Finding[]): void {
  const g = gates(raw);
  if (!g || !(g.drop || g.truncate || g.del || g.upd || g.alter || g.nosql)) return;
  if (!TRIGGER.test(raw)) return;
  const t = normaliseSql(raw);
  if (g.drop && DROP.test(t)) out.push({ factor: 'sql_drop', risk: 0.95 });
  if (g.truncate && TRUNCATE.test(t)) out.push({ factor: 'sql_truncate', risk: 0.9 });
  if (g.alter && ALTER_DROP.test(t)) out.push({ factor: 'sql_alter_drop', risk: 0.8 });
  if (g.nosql && NOSQL.test(t)) out.push({ factor: 'nosql_wipe', risk: 0.9 });
  if (g.del) {
    for (const m of t.matchAll(DELETE)) {
      const tail = m[2] ?? '';
      const w = WHERE.exec(tail);
      if (w ? tautology(w[1] ?? '') : DELETE_TAIL.test(beforeQuote(tail))) out.push({ factor: w ? 'sql_delete_always_true' : 'sql_delete_without_where', risk: 0.9 });
    }
  }
  if (g.upd) {
    for (const m of t.matchAll(UPDATE)) {
      const w = WHERE.exec(m[2] ?? '');
      if (!w || tautology(w[1] ?? '')) out.push({ factor: w ? 'sql_update_always_true' : 'sql_update_without_where', risk: 0.85 });
    }
  }
}
