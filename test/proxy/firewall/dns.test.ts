import t from 'tap';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { createPinnedLookup, resolveAndCheck, type LookupAll } from '../../../proxy/src/firewall/dns.js';

const fake = (answers: Record<string, LookupAddress[]>): LookupAll => async (host) => {
  const a = answers[host];
  if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return a;
};

t.test('pins the first address of a public name', async (t) => {
  const r = await resolveAndCheck('api.example.com', fake({ 'api.example.com': [{ address: '93.184.216.34', family: 4 }, { address: '2606:2800::1', family: 6 }] }));
  t.same(r, { ok: true, address: '93.184.216.34', family: 4 });
});

t.test('denies a name with any internal address (DNS rebinding)', async (t) => {
  const r = await resolveAndCheck('rebind.example', fake({ 'rebind.example': [{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }] }));
  t.match(r, { ok: false, reason: 'internal_address' });
});

t.test('denies names resolving to metadata, mapped or link-local IPv6', async (t) => {
  for (const address of ['169.254.169.254', '::ffff:10.0.0.1', 'fe80::1', 'fd00:ec2::254']) {
    const r = await resolveAndCheck('x.example', fake({ 'x.example': [{ address, family: address.includes(':') ? 6 : 4 }] }));
    t.match(r, { ok: false, reason: 'internal_address' }, address);
  }
});

t.test('denies internal names and literals without resolving', async (t) => {
  const never: LookupAll = async () => { throw new Error('must not resolve'); };
  t.match(await resolveAndCheck('localhost', never), { ok: false, reason: 'internal_host' });
  t.match(await resolveAndCheck('metadata.google.internal.', never), { ok: false, reason: 'internal_host' });
  t.match(await resolveAndCheck('2130706433', never), { ok: false, reason: 'internal_address' });
  t.same(await resolveAndCheck('8.8.8.8', never), { ok: true, address: '8.8.8.8', family: 4 });
});

t.test('denies when resolution fails or is empty', async (t) => {
  t.match(await resolveAndCheck('nx.example', fake({})), { ok: false, reason: 'resolve_failed' });
  t.match(await resolveAndCheck('empty.example', fake({ 'empty.example': [] })), { ok: false, reason: 'no_address' });
});

t.test('the pinned lookup connects to the pinned address whatever the name', async (t) => {
  const server = http.createServer((_req, res) => res.end('pinned'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const { port } = server.address() as AddressInfo;
  const body = await new Promise<string>((resolve, reject) => {
    const req = http.request({ host: 'name-that-does-not-resolve.invalid', port, lookup: createPinnedLookup('127.0.0.1') }, (res) => {
      let b = '';
      res.on('data', (c: Buffer) => (b += c.toString()));
      res.on('end', () => resolve(b));
    });
    req.on('error', reject);
    req.end();
  });
  t.equal(body, 'pinned');
});

t.test('the pinned lookup answers both call forms', async (t) => {
  const l = createPinnedLookup('2001:db8::1');
  await new Promise<void>((done) => l('x', { all: true }, ((err: unknown, addrs: unknown) => { t.same(addrs, [{ address: '2001:db8::1', family: 6 }]); done(); }) as never));
  await new Promise<void>((done) => l('x', {}, ((err: unknown, addr: unknown, fam: unknown) => { t.equal(addr, '2001:db8::1'); t.equal(fam, 6); done(); }) as never));
});
