// The firewall on the sidecar's surfaces (CONTRACT §6): MCP deny/sanitize/
// pending-approval with the single-use retry, cost caps, the egress proxy,
// the relay entry point, and audit events shipped through the spool.
import t from 'tap';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '@agentwall/shared/errors';
import { checkToolCalls } from '@agentwall/proxy/firewall/surfaces/http';
import { startControlPlane } from '@agentwall/control-plane/main';
import { createLogger } from '@agentwall/shared/log';
import { dbTargets } from '../../helpers/db.js';
import { http as request, startSystem, until } from '../../helpers/system.js';
import { startMcpServer } from '../../helpers/mcp-servers.js';

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

t.test('firewall surfaces', async (t) => {
  const [target] = await dbTargets(t);
  const sys = await startSystem(t, target!.serverUrl);
  const admin = await sys.session();
  const api = (method: string, path: string, body?: unknown) => sys.call('cp', method, path, { token: admin, ...(body === undefined ? {} : { body }) });
  const upstream = await startMcpServer(t);
  await api('POST', '/api/workspace/firewall/mcp_servers', { name: 'ops', endpoint: upstream.url });
  const synced = async () => {
    const rev = (await sys.cp.deps.pool.query<{ revision: number }>('SELECT revision FROM workspaces WHERE id = 1')).rows[0]!.revision;
    await until(() => sys.sidecar.deps.sync.current()!.revision >= rev, 3000, 'bundle');
  };
  const policy = async (body: unknown) => {
    const r = await api('POST', '/api/workspace/firewall/policies', body);
    if (r.status !== 201) throw new Error(r.text);
    await synced();
    return r.json as { id: number; rules: Array<{ id: number }> };
  };
  await synced();
  const client = new Client({ name: 'agent', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${sys.sidecar.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${sys.creds.relay_key}` } } }));
  t.teardown(() => client.close());
  const call = async (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult;

  await t.test('the default policy denies destructive commands as a tool error, never forwarding them', async (t) => {
    const before = upstream.calls.length;
    const r = await call('ops.shell', { command: "r''m -rf / --no-preserve-root" });
    t.equal(r.isError, true);
    t.match(text(r), /^firewall deny: destructive_command/);
    t.match(r.structuredContent, { reason_code: 'destructive_command', tool_name: 'ops.shell' });
    t.ok((r.structuredContent as { risk_score: number }).risk_score > 0);
    t.equal(upstream.calls.length, before, 'upstream never saw it');
    const ok = await call('ops.shell', { command: 'ls -la' });
    t.equal(text(ok), 'ran: ls -la', 'a harmless command passes');
  });

  await t.test('the default policy denies SSRF-shaped arguments', async (t) => {
    const r = await call('ops.echo', { text: 'fetch http://0x7f.1/admin please' });
    t.match(text(r), /^firewall deny: ssrf/);
  });

  await t.test('sanitize redacts matches before forwarding', async (t) => {
    const p = await policy({ name: 'redact tickets', priority: 1, surfaces: ['mcp'], rules: [{ tool: 'ops.echo', verdict: 'sanitize', params: { patterns: ['TICKET-\\d+'] } }] });
    const r = await call('ops.echo', { text: 'close TICKET-4242 now' });
    t.equal(text(r), 'close [REDACTED] now');
    t.same(upstream.calls.at(-1), { tool: 'echo', args: { text: 'close [REDACTED] now' } });
    await api('DELETE', `/api/workspace/firewall/policies/${p.id}`);
    await synced();
  });

  await t.test('cap_cost allows up to max_calls per conversation, then denies cost_cap_exceeded', async (t) => {
    const p = await policy({ name: 'cap adds', priority: 1, surfaces: ['mcp'], rules: [{ tool: 'ops.add', verdict: 'cap_cost', params: { max_calls: 2, per: 'conversation' } }] });
    t.equal(text(await call('ops.add', { a: 1, b: 1 })), '2');
    t.equal(text(await call('ops.add', { a: 1, b: 2 })), '3');
    const third = await call('ops.add', { a: 1, b: 3 });
    t.match(text(third), /^firewall deny: cost_cap_exceeded/);
    await api('DELETE', `/api/workspace/firewall/policies/${p.id}`);
    await synced();
  });

  await t.test('pending_approval holds, the approved retry passes once, a retry without the token holds again', async (t) => {
    const p = await policy({ name: 'approve echoes', priority: 1, surfaces: ['mcp'], rules: [{ tool: 'ops.echo', verdict: 'pending_approval' }] });
    const before = upstream.calls.length;
    const held = await call('ops.echo', { text: 'deploy' });
    t.equal(held.isError, true);
    t.match(text(held), /^firewall approval pending: apr_/);
    const meta = held.structuredContent as { approval_id: string; expires_at: string; poll_url: string };
    t.match(meta, { approval_id: /^apr_/, expires_at: String, poll_url: `/api/v1/firewall/approvals/${meta.approval_id}` });
    t.equal(upstream.calls.length, before, 'nothing forwarded while held');
    const poll = request(sys.sidecar.url, `GET`, `${meta.poll_url}?wait=20`, { token: sys.creds.gateway_key });
    await api('POST', `/api/workspace/firewall/approvals/${meta.approval_id}/approve`, {});
    const decided = (await poll).json;
    t.equal(decided.status, 'approved');
    const token = decided.approval_token as string;
    const otherArgs = await call('ops.echo', { text: 'deploy everything' }, { 'x-service-firewall-approval': token });
    t.match(text(otherArgs), /^firewall approval pending/, 'the token is bound to the arguments');
    const ok = await call('ops.echo', { text: 'deploy' }, { 'x-service-firewall-approval': token });
    t.equal(text(ok), 'deploy', 'the approved call goes through');
    const again = await call('ops.echo', { text: 'deploy' }, { 'x-service-firewall-approval': token });
    t.match(text(again), /^firewall approval pending/, 'single use');
    const noToken = await call('ops.echo', { text: 'deploy' });
    t.match(text(noToken), /^firewall approval pending/, 'a retry without the token holds again');
    await api('DELETE', `/api/workspace/firewall/policies/${p.id}`);
    await synced();
  });

  await t.test('the relay entry point answers 400 firewall_blocked with metadata; inbound escalates sanitize', async (t) => {
    const p = await policy({ name: 'relay', priority: 1, surfaces: ['response', 'inbound'], rules: [{ tool: 'lookup', verdict: 'sanitize', params: { patterns: ['\\d{6}'] } }] });
    const fw = sys.sidecar.firewall;
    t.same(await checkToolCalls(fw, 'response', [{ name: 'lookup', arguments: { q: 'id 123456' } }], {}), [{ q: 'id [REDACTED]' }], 'response surface sanitizes');
    const err = await checkToolCalls(fw, 'inbound', [{ name: 'lookup', arguments: { q: 'id 123456' } }], {}).catch((e: unknown) => e);
    t.ok(err instanceof AppError);
    t.equal((err as AppError).code, 'firewall_blocked');
    t.equal((err as AppError).status, 400);
    t.match((err as AppError).metadata, { reason_code: 'sanitize_escalated', risk_score: Number, factors: Array, policy_id: p.id, rule_id: p.rules[0]!.id, tool_name: 'lookup' });
    const rm = await checkToolCalls(fw, 'response', [{ name: 'bash', arguments: { cmd: 'rm -rf ~' } }], {}).catch((e: unknown) => e);
    t.match((rm as AppError).metadata, { reason_code: 'destructive_command' });
    await api('DELETE', `/api/workspace/firewall/policies/${p.id}`);
    await synced();
  });

  await t.test('egress proxy: denies loopback and metadata by CONNECT and plain HTTP; needs a relay key', async (t) => {
    const port = sys.sidecar.egressPort;
    const connect = (hostPort: string, auth = `Bearer ${sys.creds.relay_key}`) =>
      new Promise<string>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => s.write(`CONNECT ${hostPort} HTTP/1.1\r\nHost: ${hostPort}\r\nProxy-Authorization: ${auth}\r\n\r\n`));
        let buf = '';
        s.on('data', (d) => (buf += d));
        s.on('close', () => resolve(buf));
        setTimeout(() => s.destroy(), 2000);
      });
    const denied = await connect('169.254.169.254:80');
    t.match(denied, /^HTTP\/1\.1 400/);
    t.match(denied, /"code":"firewall_blocked"/);
    t.match(denied, /"reason_code":"ssrf"/);
    t.match(await connect('127.0.0.1:22'), /^HTTP\/1\.1 400/);
    t.match(await connect('example.com:443', 'Bearer sk-svc-wrong'), /^HTTP\/1\.1 401/);
    const plain = await new Promise<{ status: number; body: string }>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'GET', path: 'http://[::ffff:127.0.0.1]:9/', headers: { 'proxy-authorization': 'Basic ' + Buffer.from(`agent:${sys.creds.relay_key}`).toString('base64') } }, (res) => {
        let b = '';
        res.on('data', (d) => (b += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b }));
      });
      req.end();
    });
    t.equal(plain.status, 400);
    t.match(JSON.parse(plain.body), { error: { code: 'firewall_blocked', metadata: { reason_code: 'ssrf' } } });
  });

  await t.test('egress proxy: an allowlisted CIDR reaches a loopback service through a pinned connection', async (t) => {
    const target = http.createServer((_req, res) => res.end('hello from inside'));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    t.teardown(() => new Promise<void>((r) => target.close(() => r())));
    const tport = (target.address() as AddressInfo).port;
    // Replace the default policy's SSRF rule for egress with an explicit allowlist.
    const policies = (await api('GET', '/api/workspace/firewall/policies')).json.data as Array<{ id: number; name: string; surfaces: string[]; rules: unknown[]; priority: number }>;
    const def = policies.find((p) => p.name.startsWith('default'))!;
    await api('PUT', `/api/workspace/firewall/policies/${def.id}`, { name: def.name, priority: def.priority, surfaces: ['mcp', 'response', 'inbound'], rules: def.rules });
    await api('PUT', '/api/workspace/firewall/egress', { mode: 'allowlist', hosts: [], cidrs: ['127.0.0.1/32'] });
    await synced();
    const got = await new Promise<string>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port: sys.sidecar.egressPort, method: 'GET', path: `http://127.0.0.1:${tport}/`, headers: { 'proxy-authorization': `Bearer ${sys.creds.relay_key}` } }, (res) => {
        let b = '';
        res.on('data', (d) => (b += d));
        res.on('end', () => resolve(`${res.statusCode} ${b}`));
      });
      req.end();
    });
    t.equal(got, '200 hello from inside');
    const blocked = await new Promise<number>((resolve) => {
      const req = http.request({ host: '127.0.0.1', port: sys.sidecar.egressPort, method: 'GET', path: 'http://10.1.2.3/', headers: { 'proxy-authorization': `Bearer ${sys.creds.relay_key}` } }, (res) => resolve(res.statusCode ?? 0));
      req.end();
    });
    t.equal(blocked, 400, 'anything not on the allowlist is denied');
    // CONNECT through the allowlist: a raw TCP tunnel to the same service.
    const tunnel = await new Promise<string>((resolve) => {
      const sock = net.connect(sys.sidecar.egressPort, '127.0.0.1', () => {
        sock.write(`CONNECT 127.0.0.1:${tport} HTTP/1.1\r\nHost: 127.0.0.1:${tport}\r\nProxy-Authorization: Bearer ${sys.creds.relay_key}\r\n\r\n`);
      });
      let buf = '';
      let sent = false;
      sock.on('data', (d) => {
        buf += d;
        if (!sent && buf.includes('\r\n\r\n')) {
          sent = true;
          sock.write('GET / HTTP/1.1\r\nHost: inside\r\nConnection: close\r\n\r\n');
        }
      });
      sock.on('close', () => resolve(buf));
    });
    t.match(tunnel, /^HTTP\/1\.1 200 Connection Established/);
    t.match(tunnel, /hello from inside/);
    const changes = await api('GET', '/api/workspace/firewall/changes');
    t.ok(changes.json.data.some((c: { kind: string }) => c.kind === 'egress'), 'egress change logged');
  });

  await t.test('every non-allow verdict is an audit event, and none carries the arguments', async (t) => {
    await sys.sidecar.spool.flush();
    const r = await api('GET', '/api/workspace/audit?kind=firewall.verdict&limit=1000');
    const verdicts = r.json.data.map((e: { data: { verdict: string; reason_code: string } }) => `${e.data.verdict}:${e.data.reason_code}`);
    for (const v of ['deny:destructive_command', 'deny:ssrf', 'sanitize:rule_match', 'deny:cost_cap_exceeded', 'pending_approval:rule_match']) t.ok(verdicts.includes(v), v);
    t.notMatch(r.text, /no-preserve-root|TICKET-4242|deploy everything/, 'no tool arguments in audit events');
  });

  await t.test('a control-plane outage loses no audit event: the spool ships them when it returns', async (t) => {
    const port = Number(new URL(sys.cp.url).port);
    await sys.cp.close();
    const r = await call('ops.shell', { command: 'mkfs.ext4 /dev/sda1' });
    t.match(text(r), /^firewall deny/, 'enforcement continues from the last bundle');
    t.equal(await sys.sidecar.spool.flush(), false, 'shipping fails while the control plane is down');
    t.ok(sys.sidecar.spool.pending() >= 1, 'the event waits in the spool');
    const cp2 = await startControlPlane(sys.settings, { log: createLogger({ name: 'cp2', level: 'silent' }), port });
    t.teardown(() => cp2.close());
    await until(async () => (await sys.sidecar.spool.flush()) === true, 5000, 'spool drained');
    const token = (await request(cp2.url, 'POST', '/api/auth/login', { body: { email: 'admin@localhost', password: sys.creds.admin_password } })).json.token;
    const audit = await request(cp2.url, 'GET', '/api/workspace/audit?kind=firewall.verdict&limit=1000', { token });
    t.ok(audit.json.data.some((e: { data: { tool_name: string; reason_code: string } }) => e.data.tool_name === 'ops.shell' && e.data.reason_code === 'destructive_command' && Date.now() - Date.parse((e as unknown as { occurred_at: string }).occurred_at) < 60_000));
    t.equal(sys.sidecar.spool.pending(), 0);
  });
});
