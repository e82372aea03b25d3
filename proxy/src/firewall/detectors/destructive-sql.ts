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
function gates(l: string): { drop: boolean; truncate: boolean; del: boolean; upd: boolean; alter: boolean; nosql: boolean } | undefined {
  if (!GATE.test(l)) return undefined;
  const hasDrop = l.includes('drop');
  return {
    drop: hasDrop && (l.includes('table') || l.includes('database') || l.includes('schema') || l.includes('keyspace')),
    truncate: l.includes('truncate'),
    del: l.includes('delete') && /\bfrom\b/.test(l),
    upd: l.includes('update') && /\bset\b/.test(l),
    alter: hasDrop && l.includes('alter'),
    nosql: l.includes('flush') || (hasDrop && l.includes('(')) || l.includes('deletemany') || l.includes('.remove('),
  };
}
const GATE = /drop|truncate|delete|update|flush|\.remove\(/;

/** `raw` must already be lower-cased. */
export function checkSql(raw: string): Finding[] {
  const g = gates(raw);
  if (!g || !(g.drop || g.truncate || g.del || g.upd || g.alter || g.nosql)) return [];
  if (!TRIGGER.test(raw)) return [];
  const t = normaliseSql(raw);
  const out: Finding[] = [];
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
  return out;
}
