// Shell text to commands: undo the obfuscations an interpreter would undo
// (quotes, backslashes, $IFS, brace lists, empty expansions), split on every
// chaining operator, and strip the wrappers that run another command
// (sudo, env, xargs, sh -c, ssh host…). What is left is a list of
// argument vectors whose first word is the command actually run.

export interface ShellCommand {
  /** Lower-cased basename of the program ("/bin/RM" → "rm"). */
  name: string;
  args: string[];
  /** Where the command's text starts and ends in the normalised text. */
  start: number;
  end: number;
}

const IFS = /\$\{IFS[^}]*\}|\$IFS\b/gi;
const EMPTY_EXPANSIONS = /\$\{?[@*0-9]\}?|\$\(\)|``|\$''|\$""/g;
const BRACE_LIST = /\{([^{}\s]*,[^{}\s]*)\}/g;
const ANSI_C = /\$'((?:[^'\\]|\\.)*)'/g;
const DOCKER_EXEC_OPTS = new Set(['-u', '--user', '-w', '--workdir', '-e', '--env', '--env-file']);

// Every character some rewrite below acts on: without one, the text is returned as is.
const REWRITTEN = /[\\$`{'"\t\r\v\f[\],]/;

/** The text as the shell sees it before word splitting (commas, blanks to the splitter, are kept). */
export function normaliseShell(s: string): string {
  // Each rewrite is skipped when its trigger character is absent: this runs
  // over every string of every call.
  let t = s;
  // A short string is cleared by one class test rather than a dozen includes().
  if (t.length < 256 && !REWRITTEN.test(t)) return t;
  if (!(t.includes('\\') || t.includes('$') || t.includes('`') || t.includes('{'))) return blanked(unquoted(t));
  if (t.includes('\\')) t = t.replace(/\\\r?\n/g, '');
  if (t.includes("$'")) t = t.replace(ANSI_C, (_m, body: string) => body);
  if (t.includes('$')) t = t.replace(IFS, ' ').replace(EMPTY_EXPANSIONS, '');
  else if (t.includes('``')) t = t.replace(/``/g, '');
  if (t.includes('{')) t = t.replace(BRACE_LIST, (_m, body: string) => body.replace(/,/g, ' '));
  return blanked(unquoted(t).replaceAll('\\', ''));
}

// The character-class replaces /['"]/g → '' and /[\t\r\v\f[\]]/g → ' ',
// one character at a time: includes() and replaceAll() with a string
// pattern run natively, while a regex class scan costs ~1 ns a character.
function unquoted(t: string): string {
  let r = t;
  if (r.includes("'")) r = r.replaceAll("'", '');
  if (r.includes('"')) r = r.replaceAll('"', '');
  return r;
}
// Commas are blanks too ("[rm,-rf,/]" once quotes are gone), but a comma is
// common in prose and replacing it would copy every long text twice: the
// splitter and the command reader treat it as a blank instead.
const BLANKED = ['\t', '\r', '\v', '\f', '[', ']'];
function blanked(t: string): string {
  let r = t;
  for (const ch of BLANKED) if (r.includes(ch)) r = r.replaceAll(ch, ' ');
  return r;
}

const WRAPPERS = new Set(['sudo', 'doas', 'env', 'nohup', 'time', 'command', 'builtin', 'exec', 'nice', 'ionice', 'timeout', 'xargs', 'stdbuf', 'busybox', 'eval', 'watch', 'strace', 'chroot', 'ssh', 'su', 'nsenter', 'unbuffer', 'setsid', 'runuser', 'flock', '{', '!', 'then', 'do', 'else']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'fish', 'csh', 'tcsh']);
// Options of wrappers that take a value, so the value is not taken for the command.
const VALUE_OPTS: Record<string, Set<string>> = {
  sudo: new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T']),
  doas: new Set(['-u', '-C']),
  env: new Set(['-u', '-C', '-S']),
  nice: new Set(['-n']),
  ionice: new Set(['-c', '-n', '-p']),
  xargs: new Set(['-I', '-i', '-n', '-P', '-L', '-l', '-s', '-d', '-E', '-a']),
  stdbuf: new Set(['-i', '-o', '-e']),
  watch: new Set(['-n', '-d']),
  strace: new Set(['-e', '-o', '-p', '-s']),
  ssh: new Set(['-p', '-i', '-l', '-o', '-F', '-J', '-L', '-R', '-D', '-b', '-c', '-E', '-m', '-O', '-Q', '-S', '-W', '-w', '-B']),
  su: new Set(['-s', '-g', '-G']),
  runuser: new Set(['-u', '-g', '-G']),
  nsenter: new Set(['-t']),
};
// The text is lower-cased before splitting, so options are compared lower-cased.
for (const set of Object.values(VALUE_OPTS)) for (const o of [...set]) set.add(o.toLowerCase());
const POSITIONAL: Record<string, number> = { timeout: 1, chroot: 1, ssh: 1, flock: 1 };

export const basename = (word: string): string => {
  const w = word.toLowerCase();
  const i = w.lastIndexOf('/');
  return i === -1 ? w : w.slice(i + 1);
};

/** Drop wrappers, assignments and `sh -c` until the real program leads. */
export function unwrap(words: string[]): string[] {
  let w = words;
  for (let guard = 0; guard < 16 && w.length > 0; guard++) {
    const first = w[0] as string;
    const name = basename(first);
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first)) {
      w = w.slice(1);
      continue;
    }
    if (SHELLS.has(name) || (name === 'su' && w.includes('-c'))) {
      const c = w.indexOf('-c');
      if (c === -1) return w;
      w = w.slice(c + 1);
      continue;
    }
    // `kubectl exec pod -- cmd`, `docker exec -it box cmd`: the command runs elsewhere, but it runs.
    if ((name === 'kubectl' || name === 'oc') && w[1] === 'exec' && w.includes('--')) {
      w = w.slice(w.indexOf('--') + 1);
      continue;
    }
    if ((name === 'docker' || name === 'podman') && w[1] === 'exec') {
      let i = 2;
      while (i < w.length && (w[i] as string).startsWith('-')) i += DOCKER_EXEC_OPTS.has(w[i] as string) ? 2 : 1;
      w = w.slice(i + 1);
      continue;
    }
    if (!WRAPPERS.has(name)) return w;
    let i = 1;
    const valued = VALUE_OPTS[name];
    while (i < w.length) {
      const a = w[i] as string;
      if (a === '--') {
        i++;
        break;
      }
      if (name === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) i++;
      else if (a.startsWith('-') && a.length > 1) i += valued?.has(a) ? 2 : 1;
      else break;
    }
    i += POSITIONAL[name] ?? 0;
    w = w.slice(i);
  }
  return w;
}

const RUNS_OTHERS = ['kubectl', 'oc', 'docker', 'podman'];
const escapeRe = (w: string): string => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// "a(?:ws|z)|b(?:ash|uiltin)|…": grouping by first letter lets the regex
// engine reject a position on one character instead of trying every word.
function factored(words: string[]): string {
  const groups = new Map<string, string[]>();
  for (const w of words) {
    const g = groups.get(w[0] as string) ?? [];
    g.push(w.slice(1));
    groups.set(w[0] as string, g);
  }
  return [...groups].map(([c, rest]) => `${escapeRe(c)}(?:${rest.sort((a, b) => b.length - a.length).map(escapeRe).join('|')})`).join('|');
}

const splitters = new Map<readonly string[], { first: RegExp; rest: RegExp }>();

// One regex pass finds only the commands worth reading: a judged program,
// a wrapper, a shell or an assignment, at the start of the text or after a
// separator (; & | newline ` ( )), possibly behind a path (/usr/bin/rm,
// ./bin/rm, ~/bin/rm).
// The start of text gets its own sticky regex so the main one begins with a
// character class, which V8 scans for quickly.
function commandStarts(names: readonly string[]): { first: RegExp; rest: RegExp } {
  let re = splitters.get(names);
  if (!re) {
    const words = factored([...new Set([...names, ...WRAPPERS, ...SHELLS, ...RUNS_OTHERS])]);
    const body = String.raw`([ ,]*)(?:[./~][^\s,;&|\n\x60()]*/)?(?:${words}|mkfs[\w.]*|[a-z_][a-z0-9_]*=[^\s,;&|\n\x60()]*)(?=[ ,;&|\n\x60()]|$)`;
    re = { first: new RegExp(body, 'y'), rest: new RegExp(String.raw`[;&|\n\x60()]${body}`, 'g') };
    splitters.set(names, re);
  }
  return re;
}

/** Commands worth judging, in order, each unwrapped (`names`: the judged programs). */
export function splitCommands(normalised: string, names: readonly string[]): ShellCommand[] {
  const out: ShellCommand[] = [];
  const { first, rest } = commandStarts(names);
  first.lastIndex = 0;
  const m0 = first.exec(normalised);
  let next = m0 ? readCommand(normalised, (m0[1] ?? '').length, out) : 0;
  rest.lastIndex = next;
  for (let m = rest.exec(normalised); m; m = rest.exec(normalised)) {
    next = readCommand(normalised, m.index + 1 + (m[1] ?? '').length, out);
    // The next command can only start at or after this one's separator.
    rest.lastIndex = Math.max(rest.lastIndex, next);
  }
  return out;
}

const SEPARATOR = /[;&|\n\x60()]/g;

// Reads the command starting at `start` up to the next separator; returns that separator's index.
function readCommand(text: string, start: number, out: ShellCommand[]): number {
  SEPARATOR.lastIndex = start;
  // test() rather than exec(): no match array to build.
  const end = SEPARATOR.test(text) ? SEPARATOR.lastIndex - 1 : text.length;
  let segment = text.slice(start, end);
  if (segment.includes(',')) segment = segment.replaceAll(',', ' ');
  const words = unwrap(segment.split(' ').filter((x) => x.length > 0));
  const head = words[0];
  if (head !== undefined) out.push({ name: basename(head), args: words.slice(1), start, end });
  return end;
}

export const isShell = (name: string): boolean => SHELLS.has(name);
