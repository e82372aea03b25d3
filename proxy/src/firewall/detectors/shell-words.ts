// Shell text to commands: undo the obfuscations an interpreter would undo
// (quotes, backslashes, $IFS, brace lists, empty expansions), split on every
// chaining operator, and strip the wrappers that run another command
// (sudo, env, xargs, sh -c, ssh host…). What is left is a list of
// argument vectors whose first word is the command actually run.

export interface ShellCommand {
  /** Lower-cased basename of the program ("/bin/RM" → "rm"). */
  name: string;
  args: string[];
  /** Index of the pipeline this command belongs to, and its place in it. */
  pipeline: number;
  stage: number;
}

const IFS = /\$\{IFS[^}]*\}|\$IFS\b/g;
const EMPTY_EXPANSIONS = /\$\{?[@*0-9]\}?|\$\(\)|``|\$''|\$""/g;
const BRACE_LIST = /\{([^{}\s]*,[^{}\s]*)\}/g;
const ANSI_C = /\$'((?:[^'\\]|\\.)*)'/g;
// Splits commands; `|` alone marks a new stage of the same pipeline.
const SEPARATORS = /(\|\||&&|;|\n|&|`|\$\(|\(|\)|\|)/;
const SEPARATOR_SET = new Set(['||', '&&', ';', '\n', '&', '`', '$(', '(', ')', '|']);
const DOCKER_EXEC_OPTS = new Set(['-u', '--user', '-w', '--workdir', '-e', '--env', '--env-file']);

/** The text as the shell sees it before word splitting. */
export function normaliseShell(s: string): string {
  return s
    .replace(/\\\r?\n/g, '')
    .replace(ANSI_C, (_m, body: string) => body)
    .replace(IFS, ' ')
    .replace(EMPTY_EXPANSIONS, '')
    .replace(BRACE_LIST, (_m, body: string) => body.replace(/,/g, ' '))
    .replace(/['"\\]/g, '')
    .replace(/[\t\r\v\f[\],]/g, ' ');
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

/** Commands in order, each unwrapped. */
export function splitCommands(normalised: string): ShellCommand[] {
  const out: ShellCommand[] = [];
  let pipeline = 0;
  let stage = 0;
  for (const piece of normalised.split(SEPARATORS)) {
    if (piece === undefined) continue;
    if (SEPARATOR_SET.has(piece)) {
      if (piece === '|') stage++;
      else {
        pipeline++;
        stage = 0;
      }
      continue;
    }
    const words = unwrap(piece.split(' ').filter((x) => x.length > 0));
    const first = words[0];
    if (first === undefined) continue;
    out.push({ name: basename(first), args: words.slice(1), pipeline, stage });
  }
  return out;
}

export const isShell = (name: string): boolean => SHELLS.has(name);
