// urlCandidate's parser-free path for plain `scheme://name/` URLs must give
// exactly the hosts the WHATWG parser gives: checked against a copy of the
// parser-only version on edge cases and on random URLs.
import t from 'tap';
import { normaliseHost, urlCandidate, type UrlCandidate } from '../../../proxy/src/firewall/detectors/urls.js';
import { detectSsrf } from '../../../proxy/src/firewall/detectors/ssrf.js';
import { walkArguments } from '../../../proxy/src/firewall/args.js';

const BARE_HOST = /^(?:\[[0-9a-f:.%a-z]+\]|[^\s/@\\?#"'<>]+?)(?::\d{1,5})?$/i;
function hostOfAuthority(authority: string): string {
  const at = authority.lastIndexOf('@');
  const hp = at === -1 ? authority : authority.slice(at + 1);
  if (hp.startsWith('[')) {
    const end = hp.indexOf(']');
    return end === -1 ? hp : hp.slice(0, end + 1);
  }
  const colon = hp.lastIndexOf(':');
  return colon === -1 || hp.indexOf(':') !== colon ? hp : hp.slice(0, colon);
}
// urlCandidate as it was before the parser-free path.
function reference(raw: string, fromField: boolean): UrlCandidate | undefined {
  const m = /^([a-z][a-z0-9+.-]{0,31}):/i.exec(raw);
  let text = raw;
  let scheme = '';
  if (m) scheme = (m[1] as string).toLowerCase();
  else if (fromField) {
    if (!BARE_HOST.test(raw) && !raw.startsWith('//')) return undefined;
    text = `http://${raw.replace(/^\/\//, '')}`;
  } else return undefined;
  let whatwg: string | undefined;
  let parsed = false;
  try {
    const u = new URL(text);
    if (u.hostname) whatwg = normaliseHost(u.hostname);
    parsed = true;
  } catch {
    // as the detector
  }
  if (parsed && !text.includes('@') && !text.includes('\\')) return { raw, scheme, hosts: whatwg === undefined ? [] : [whatwg], fromField };
  const hosts = new Set<string>();
  if (whatwg !== undefined) hosts.add(whatwg);
  const rest = text.slice(text.indexOf(':') + 1).replace(/^[/\\]+/, '');
  for (const stop of [/[/?#]/, /[/?#\\]/]) {
    const end = rest.search(stop);
    const authority = end === -1 ? rest : rest.slice(0, end);
    const h = normaliseHost(hostOfAuthority(authority));
    if (h) hosts.add(h);
  }
  return { raw, scheme, hosts: [...hosts], fromField };
}

const show = (s: string): string => JSON.stringify(s).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const CASES = [
  'http://github.com/a', 'https://docs.github.com/en/actions', 'http://127.0.0.1/', 'http://127.1/', 'http://0x7f.1/', 'http://0x7f/', 'http://a.0x/',
  'http://a.0xg/', 'http://a.0x7g/', 'http://2130706433/', 'http://a.b.123/', 'http://a.123b/', 'http://localhost/', 'http://LOCALHOST/', 'http://localhost./',
  'http://a..b/', 'http://.a/', 'http://a./', 'http:///a/', 'http:/a/', 'http:a', 'http://', 'http://a', 'http://a?x', 'http://a#x', 'http://a:80/',
  'http://xn--nxasmq6b.com/', 'http://a.xn--p1ai/', 'http://xn--a/', 'http://a-.-b/', 'http://-a/', 'http://a_b/', 'http://a%2eb/', 'http://a\tb/',
  'http://a.com\\@127.0.0.1/', 'http://a.com@127.0.0.1/', 'http://a.com/@x', 'http://a.com/\\x', 'ws://metadata/', 'wss://a.internal/', 'ftp://10.0.0.1/',
  'gopher://a.com/', 's3://bucket/', 'file:///etc/passwd', 'HTTP://A.COM/', 'http://a.com\u3002evil/', 'http://0/', 'http://00/', 'http://a.09/', 'http://1.2.3.4.5/',
  'http://169.254.169.254/latest', 'http://metadata.google.internal/', 'http://a.b.c.d.nip.io/', 'http://127.0.0.1.nip.io/', 'http://ab/',
];

t.test('same hosts as the parser on edge cases', async (t) => {
  for (const c of CASES) {
    t.same(urlCandidate(c, false), reference(c, false), show(c));
    t.same(urlCandidate(c.replace(/^[a-z]+:\/\//i, ''), true), reference(c.replace(/^[a-z]+:\/\//i, ''), true), `field ${show(c)}`);
  }
});

t.test('same hosts as the parser on random URLs', async (t) => {
  const schemes = ['http://', 'https://', 'ws://', 'ftp://', 'HTTP://', 'git://', 'http:/', '//', ''];
  const atoms = ['a', 'b', 'z', '0', '1', '9', '127', '0x', '0x7f', 'f', 'g', 'xn--', '-', '.', '..', '_', '%2e', '@', '\\', ':', ':80', '/', '?', '#', 'A', '\t', '\u00e9', '\uff0e', 'localhost', 'internal', 'nip.io'];
  let seed = 4242;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  let bad = 0;
  for (let i = 0; i < 20000; i++) {
    let s = schemes[rand(schemes.length)] as string;
    const len = 1 + rand(8);
    for (let j = 0; j < len; j++) s += atoms[rand(atoms.length)];
    for (const field of [false, true]) {
      const a = JSON.stringify(urlCandidate(s, field));
      const b = JSON.stringify(reference(s, field));
      if (a !== b && bad++ < 5) t.fail(`differs on ${show(s)} (field ${field}): ${a} vs ${b}`);
    }
  }
  t.equal(bad, 0, 'no differences in 40000 readings');
});

t.test('loopback spellings that look like plain names still fire', async (t) => {
  for (const u of ['http://127.1/', 'http://0x7f.1/', 'http://2130706433/', 'http://localhost/x', 'http://0/', 'http://app.localhost/', 'http://metadata/', 'http://127.0.0.1.nip.io/']) {
    const w = walkArguments({ text: `see ${u} now`, url: u });
    t.ok(w.ok && detectSsrf(w.strings).fired, u);
  }
});
