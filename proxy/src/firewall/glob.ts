// Globs over dotted names: "<server>.<tool>" for tools, DNS names for hosts.
// `*` and `?` stay inside one dot-separated segment, `**` crosses segments.
// Matching is case-insensitive: a deny rule for `shell.exec` must not be
// dodged by `shell.EXEC` against a server that folds case.
//
// No regular expressions: user globs compiled to a backtracking RegExp can
// take exponential time, so the general case is a dynamic programme whose
// cost is bounded by pattern length × name length, and common shapes take a
// fast path.

export type GlobMatcher = (name: string) => boolean;

type Token = { kind: 'lit'; ch: string } | { kind: 'one' } | { kind: 'seg' } | { kind: 'any' };

const SEP = '.';

function tokenise(glob: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        out.push({ kind: 'any' });
        i++;
      } else out.push({ kind: 'seg' });
    } else if (ch === '?') out.push({ kind: 'one' });
    else out.push({ kind: 'lit', ch });
  }
  return out;
}

function dpMatch(tokens: readonly Token[], text: string): boolean {
  const n = text.length;
  let prev = new Uint8Array(n + 1);
  let next = new Uint8Array(n + 1);
  prev[0] = 1;
  for (const t of tokens) {
    next.fill(0);
    let any = false;
    for (let j = 0; j <= n; j++) {
      let v = 0;
      switch (t.kind) {
        case 'lit':
          v = j > 0 && prev[j - 1] === 1 && text[j - 1] === t.ch ? 1 : 0;
          break;
        case 'one':
          v = j > 0 && prev[j - 1] === 1 && text[j - 1] !== SEP ? 1 : 0;
          break;
        case 'seg':
          v = prev[j] === 1 || (j > 0 && next[j - 1] === 1 && text[j - 1] !== SEP) ? 1 : 0;
          break;
        case 'any':
          v = prev[j] === 1 || (j > 0 && next[j - 1] === 1) ? 1 : 0;
          break;
      }
      next[j] = v;
      if (v) any = true;
    }
    if (!any) return false;
    [prev, next] = [next, prev];
  }
  return prev[n] === 1;
}

const hasWild = (s: string): boolean => s.includes('*') || s.includes('?');

/** Compile a glob; the returned matcher expects a lower-cased name. */
export function compileGlob(glob: string): GlobMatcher {
  const g = glob.toLowerCase();
  if (!hasWild(g)) return (name) => name === g;
  if (g === '**') return () => true;
  if (g === '*') return (name) => !name.includes(SEP);
  // "github.*" / "github.**": the shapes almost every policy uses.
  if (g.endsWith('.**') && !hasWild(g.slice(0, -3))) {
    const prefix = g.slice(0, -2);
    return (name) => name.startsWith(prefix);
  }
  if (g.endsWith('.*') && !hasWild(g.slice(0, -2))) {
    const prefix = g.slice(0, -1);
    return (name) => name.startsWith(prefix) && !name.includes(SEP, prefix.length);
  }
  // "github.delete_*": a literal prefix, then anything up to the next dot.
  if (g.endsWith('*') && !g.endsWith('**') && !hasWild(g.slice(0, -1))) {
    const prefix = g.slice(0, -1);
    return (name) => name.startsWith(prefix) && !name.includes(SEP, prefix.length);
  }
  if (g.startsWith('**.') && !hasWild(g.slice(3))) {
    const suffix = g.slice(2);
    return (name) => name.endsWith(suffix);
  }
  if (g.startsWith('*.') && !hasWild(g.slice(2))) {
    const suffix = g.slice(1);
    return (name) => name.endsWith(suffix) && name.lastIndexOf(SEP, name.length - suffix.length - 1) === -1;
  }
  const tokens = tokenise(g);
  return (name) => dpMatch(tokens, name);
}

/** Any of several globs; an empty list matches nothing. */
export function compileGlobs(globs: readonly string[]): GlobMatcher {
  const ms = globs.map(compileGlob);
  return (name) => {
    for (const m of ms) if (m(name)) return true;
    return false;
  };
}
