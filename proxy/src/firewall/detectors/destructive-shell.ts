// The shell catalogue: which argument vectors destroy data or systems in a
// way an agent should never do unasked. The line drawn: the target must be
// the root, a home directory, a system directory (or its direct children),
// a block device, a cwd-wide wildcard, or a whole account/cluster/cloud
// resource. Removing one relative file or directory is ordinary work.
import type { ShellCommand } from './shell-words.js';
import { isShell } from './shell-words.js';

export interface Finding {
  factor: string;
  risk: number;
}

const SYSTEM_DIRS = new Set(['bin', 'boot', 'dev', 'etc', 'home', 'lib', 'lib32', 'lib64', 'libx32', 'opt', 'proc', 'root', 'run', 'sbin', 'srv', 'sys', 'usr', 'var', 'mnt', 'media', 'snap', 'system', 'library', 'applications', 'users', 'volumes', 'private']);
const HOME_SECRETS = new Set(['.ssh', '.gnupg', '.aws', '.kube', '.config', '.git']);
const CRITICAL_FILES = new Set(['/etc/passwd', '/etc/shadow', '/etc/sudoers', '/etc/fstab', '/etc/group', '/etc/hosts', '/boot/vmlinuz', '/boot/grub/grub.cfg']);
const BLOCK_DEVICE = /^\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|mapper\/|loop|mem$|kmem$|port$)/;

/** Is this path one whose recursive removal (or mode change) is a catastrophe? */
export function isDangerousPath(raw: string): boolean {
  let p = raw.toLowerCase().replace(/\/{2,}/g, '/');
  if (p === '*' || p === '.' || p === '..' || p === './*' || p === '../*' || p === '.*' || p === './' || p === '../') return true;
  p = p.replace(/\$\{?home\}?/g, '~');
  while (p.length > 1 && (p.endsWith('/') || p.endsWith('/.') || p.endsWith('/*'))) p = p.endsWith('/') ? p.slice(0, -1) : p.slice(0, -2);
  if (p === '/' || p === '' || p === '/*' || p === '~' || /^~[a-z0-9_-]*$/.test(p)) return true;
  if (CRITICAL_FILES.has(p)) return true;
  if (p.startsWith('~/')) return HOME_SECRETS.has(p.slice(2)) || p === '~/*';
  if (p === '.git' || p === './.git') return true;
  if (!p.startsWith('/')) return false;
  const parts = p.slice(1).split('/');
  const top = parts[0] ?? '';
  if (top === '*' || top === 'tmp') return false;
  // /etc, /usr/*, /home/alice, /var/lib: a system directory or its child.
  return SYSTEM_DIRS.has(top) && (parts.length <= 2 || (parts.length <= 3 && parts.slice(1).some((x) => x.includes('*'))));
}

const flags = (args: string[]): string[] => args.filter((a) => a.startsWith('-'));
const operands = (args: string[]): string[] => {
  const dd = args.indexOf('--');
  const before = dd === -1 ? args : args.slice(0, dd);
  return [...before.filter((a) => !a.startsWith('-')), ...(dd === -1 ? [] : args.slice(dd + 1))];
};
const hasShort = (args: string[], letters: string): boolean =>
  flags(args).some((f) => !f.startsWith('--') && [...letters].some((l) => f.includes(l)));
const recursive = (args: string[]): boolean => hasShort(args, 'rR') || args.includes('--recursive');

const PROTECTED_BRANCH = /^(?:\+)?(?:[^:]*:)?(?:refs\/heads\/)?(?:main|master|trunk|develop|production|prod|release(?:\/.*)?|live)$/;
const FIND_FILTERS = new Set(['-name', '-iname', '-path', '-ipath', '-wholename', '-regex', '-iregex', '-newer', '-mtime', '-mmin', '-atime', '-amin', '-ctime', '-cmin', '-size', '-empty', '-user', '-group', '-perm', '-links', '-inum', '-samefile']);
const AWS_DESTROY = new Set(['terminate-instances', 'delete-db-instance', 'delete-db-cluster', 'delete-table', 'delete-bucket', 'delete-stack', 'delete-cluster', 'delete-file-system', 'delete-volume', 'delete-vpc', 'delete-repository', 'delete-function', 'schedule-key-deletion', 'delete-hosted-zone', 'delete-db-snapshot', 'delete-backup-vault']);
const KUBE_CLUSTER_KINDS = new Set(['namespace', 'namespaces', 'ns', 'node', 'nodes', 'no', 'pv', 'persistentvolume', 'persistentvolumes', 'crd', 'crds', 'customresourcedefinition', 'customresourcedefinitions']);

type Check = (args: string[]) => Finding | undefined;
const hit = (factor: string, risk: number): Finding => ({ factor, risk });

function rm(args: string[]): Finding | undefined {
  if (args.includes('--no-preserve-root')) return hit('rm_no_preserve_root', 1);
  const targets = operands(args);
  if (recursive(args) && targets.some(isDangerousPath)) return hit('rm_recursive_system_path', 1);
  if (targets.some((t) => CRITICAL_FILES.has(t))) return hit('rm_critical_file', 0.95);
  return undefined;
}

function find(args: string[]): Finding | undefined {
  const deletes = args.includes('-delete') || ['-exec', '-execdir', '-ok', '-okdir'].some((x) => {
    const i = args.indexOf(x);
    return i !== -1 && /^(?:rm|shred|unlink)$/.test((args[i + 1] ?? '').split('/').pop() ?? '');
  });
  if (!deletes) return undefined;
  const firstExpr = args.findIndex((a) => a.startsWith('-') || a === '!' || a === '(');
  const starts = (firstExpr === -1 ? args : args.slice(0, firstExpr)).filter((a) => a.length > 0);
  const filtered = args.some((a) => FIND_FILTERS.has(a));
  const root = (s: string): boolean => isDangerousPath(s) && !['.', './', '..', '*', '~'].includes(s) && !s.startsWith('~');
  if (starts.some(root)) return hit('find_delete_system_path', 0.95);
  if (!filtered && (starts.length === 0 || starts.some(isDangerousPath))) return hit('find_delete_everything', 0.9);
  return undefined;
}

const git: Check = (args) => {
  let i = 0;
  while (i < args.length && (args[i] as string).startsWith('-')) i += args[i] === '-C' || args[i] === '-c' ? 2 : 1;
  const sub = args[i];
  const rest = args.slice(i + 1);
  if (sub === 'push') {
    const refs = operands(rest).slice(1);
    const force = hasShort(rest, 'f') || rest.some((a) => a.startsWith('--force')) || refs.some((r) => r.startsWith('+'));
    if (rest.includes('--mirror')) return hit('git_push_mirror', 0.9);
    if (force && (rest.includes('--all') || refs.some((r) => PROTECTED_BRANCH.test(r)))) return hit('git_force_push_protected_branch', 0.85);
    const del = rest.includes('--delete') || hasShort(rest, 'd');
    if ((del && refs.some((r) => PROTECTED_BRANCH.test(r))) || refs.some((r) => /^:(?:refs\/heads\/)?(?:main|master|production|prod)$/.test(r))) return hit('git_delete_protected_branch', 0.85);
  }
  if (sub === 'clean' && hasShort(rest, 'f') && hasShort(rest, 'xX') && hasShort(rest, 'd')) return hit('git_clean_ignored_files', 0.8);
  return undefined;
};

const blockTarget = (args: string[]): boolean => args.some((a) => BLOCK_DEVICE.test(a) || a.startsWith('$'));

const CHECKS: Record<string, Check> = {
  rm,
  find,
  git,
  shred: (a) => (operands(a).some((t) => BLOCK_DEVICE.test(t) || isDangerousPath(t)) ? hit('shred_system_target', 0.95) : undefined),
  dd: (a) => (a.some((x) => /^of=/i.test(x) && BLOCK_DEVICE.test(x.slice(3))) ? hit('dd_to_block_device', 1) : undefined),
  wipefs: (a) => (blockTarget(a) ? hit('wipefs', 1) : undefined),
  blkdiscard: (a) => (blockTarget(a) ? hit('blkdiscard', 1) : undefined),
  mkswap: (a) => (blockTarget(a) ? hit('mkswap_device', 0.95) : undefined),
  mke2fs: (a) => (blockTarget(a) ? hit('mkfs', 1) : undefined),
  sgdisk: (a) => (a.some((x) => x === '-z' || x === '--zap-all' || x === '-o') ? hit('partition_table_wipe', 1) : undefined),
  parted: (a) => (a.some((x) => x === 'mklabel' || x === 'rm') ? hit('partition_table_wipe', 0.95) : undefined),
  chmod: (a) => perms(a, 'chmod'),
  chown: (a) => perms(a, 'chown'),
  chgrp: (a) => perms(a, 'chgrp'),
  mv: (a) => {
    const ops = operands(a);
    return ops.slice(0, -1).some(isDangerousPath) || (ops.length > 1 && ops[ops.length - 1] === '/dev/null') ? hit('mv_system_path', 0.9) : undefined;
  },
  truncate: (a) => (operands(a).some((t) => CRITICAL_FILES.has(t) || BLOCK_DEVICE.test(t)) ? hit('truncate_critical_file', 0.9) : undefined),
  crontab: (a) => (a.includes('-r') ? hit('crontab_remove_all', 0.7) : undefined),
  kill: (a) => (a.includes('-1') && a.some((x) => x === '-9' || x === '-kill') ? hit('kill_all_processes', 0.8) : undefined),
  dropdb: (a) => (operands(a).length > 0 ? hit('dropdb', 0.9) : undefined),
  kubectl: (a) => kube(a),
  oc: (a) => kube(a),
  terraform: (a) => (a.includes('destroy') || a.includes('-destroy') ? hit('terraform_destroy', 0.95) : undefined),
  tofu: (a) => (a.includes('destroy') || a.includes('-destroy') ? hit('terraform_destroy', 0.95) : undefined),
  terragrunt: (a) => (a.includes('destroy') ? hit('terraform_destroy', 0.95) : undefined),
  pulumi: (a) => (a[0] === 'destroy' || a[0] === 'down' ? hit('pulumi_destroy', 0.95) : undefined),
  cdk: (a) => (a[0] === 'destroy' ? hit('cdk_destroy', 0.9) : undefined),
  docker: (a) => docker(a),
  podman: (a) => docker(a),
  aws: (a) => {
    const ops = operands(a);
    if (ops[0] === 's3' && ops[1] === 'rm' && a.includes('--recursive')) return hit('aws_s3_recursive_delete', 0.95);
    if (ops[0] === 's3' && ops[1] === 'rb' && a.includes('--force')) return hit('aws_s3_bucket_delete', 0.95);
    return ops.some((o) => AWS_DESTROY.has(o)) ? hit('aws_resource_destroy', 0.95) : undefined;
  },
  gcloud: (a) => (operands(a).includes('delete') || (a.includes('rm') && recursive(a)) ? hit('gcloud_delete', 0.9) : undefined),
  gsutil: (a) => ((a.includes('rm') && recursive(a)) || a.includes('rb') ? hit('gsutil_recursive_delete', 0.9) : undefined),
  az: (a) => (a.includes('delete') && ['group', 'vm', 'aks', 'sql', 'storage', 'cosmosdb', 'keyvault', 'webapp'].includes(a[0] ?? '') ? hit('azure_delete', 0.9) : undefined),
};

function perms(a: string[], cmd: string): Finding | undefined {
  const ops = operands(a).slice(1);
  if (recursive(a) && ops.some(isDangerousPath)) return hit(`${cmd}_recursive_system_path`, 0.9);
  if (ops.some((t) => t === '/' || CRITICAL_FILES.has(t))) return hit(`${cmd}_system_path`, 0.85);
  return undefined;
}

function kube(a: string[]): Finding | undefined {
  if (a[0] !== 'delete') return undefined;
  if (a.some((x) => x === '--all' || x === '-A' || x === '--all-namespaces')) return hit('kubectl_delete_all', 0.95);
  const kinds = operands(a.slice(1)).flatMap((o) => o.split('/')[0]?.split(' ') ?? []);
  return kinds.some((k) => KUBE_CLUSTER_KINDS.has(k.toLowerCase())) ? hit('kubectl_delete_cluster_resource', 0.95) : undefined;
}

function docker(a: string[]): Finding | undefined {
  const [obj, verb] = operands(a);
  const all = hasShort(a, 'a') || a.includes('--all') || a.includes('--volumes');
  if (obj === 'system' && verb === 'prune' && all) return hit('docker_system_prune_all', 0.85);
  if (obj === 'volume' && verb === 'prune') return hit('docker_volume_prune', 0.85);
  return undefined;
}

// A pipeline that feeds text to a shell runs that text: judge it as a command.
function fedToShell(text: string, cmds: ShellCommand[], i: number): string | undefined {
  const c = cmds[i] as ShellCommand;
  if (!isShell(c.name) || operands(c.args).some((x) => x !== '-' && x !== '-s')) {
    const here = c.args.indexOf('<<<');
    return isShell(c.name) && here !== -1 ? c.args.slice(here + 1).join(' ') : undefined;
  }
  const prev = cmds[i - 1];
  // Adjacent stages of one pipeline: "echo … | sh" (a single bar between them).
  if (!prev || text[prev.end] !== '|' || text[prev.end + 1] === '|' || text.slice(prev.end + 1, c.start).replaceAll(',', ' ').trim() !== '') return undefined;
  if (prev.name === 'echo' || prev.name === 'printf') return prev.args.filter((x, j) => j > 0 || !/^-[neE]+$/.test(x)).join(' ');
  return undefined;
}

/** Programs the catalogue judges, plus echo/printf that may feed a shell. */
export const JUDGED_NAMES: readonly string[] = [...Object.keys(CHECKS), 'echo', 'printf'];

/** Findings for one normalised shell text; text fed to a shell is added to `fed` for re-checking. */
export function checkCommands(text: string, cmds: ShellCommand[], out: Finding[], fed: string[]): void {
  for (let i = 0; i < cmds.length; i++) {
    const c = cmds[i] as ShellCommand;
    const name = c.name.startsWith('mkfs') ? 'mke2fs' : c.name;
    const check = Object.prototype.hasOwnProperty.call(CHECKS, name) ? CHECKS[name] : undefined;
    const f = check?.(c.args);
    if (f) out.push(f);
    const piped = fedToShell(text, cmds, i);
    if (piped) fed.push(piped);
  }
}

const FORK_BOMB = /([\w:.]{1,32})\s*\(\)\s*\{\s*\1\s*\|\s*\1\s*&?\s*;?\s*\}\s*;?\s*\1/;
const REDIRECT_TO_DEVICE = />{1,2}\s*(\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|mapper\/|mem\b|kmem\b|port\b)\S*|\/etc\/(?:passwd|shadow|sudoers|fstab|group)\b|\/boot\/\S*)/;

/** Checks on the whole normalised text that do not fit one command. */
export function checkText(norm: string, out: Finding[]): void {
  // includes() is far cheaper than a regex pass; most text has none of these.
  if (!(norm.includes('>') || norm.includes('()') || norm.includes('fork') || norm.includes('tee'))) return;
  // The regex only runs on a window around each "()": on a whole text it
  // would try every word as the function name.
  for (let i = norm.indexOf('()'); i !== -1; i = norm.indexOf('()', i + 2)) {
    if (FORK_BOMB.test(norm.slice(Math.max(0, i - 34), i + 120))) {
      out.push(hit('fork_bomb', 0.9));
      break;
    }
  }
  if (norm.includes('fork') && /\bfork\s+while\s+fork\b|while\s*(?:true|1)\s*:?\s*os\.fork\(\)/i.test(norm)) out.push(hit('fork_bomb', 0.9));
  // Both remaining checks need a path; "/dev/" is looked for once, and before
  // "tee", whose first letter is common in prose.
  if (!norm.includes('/')) return;
  const dev = norm.includes('/dev/');
  if (norm.includes('>') && (dev || norm.includes('/etc/') || norm.includes('/boot/')) && REDIRECT_TO_DEVICE.test(norm)) out.push(hit('overwrite_device_or_system_file', 1));
  if (dev && norm.includes('tee') && /\btee\s+(?:-a\s+)?\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk)/.test(norm)) out.push(hit('overwrite_device_or_system_file', 1));
}
