// Spec "Firewall approval" states, "Approval callback body", "Authentication"
// (signatures), "Events"; CONTRACT §7.
import t from 'tap';
import { verify } from '@octokit/webhooks-methods';
import { signCallback, signWebhook } from '@agentwall/shared/signatures';
import { canonicalHash } from '@agentwall/shared/canonical-json';
import { expireApprovals } from '@agentwall/control-plane/jobs/expire-approvals';
import { eachDatabase } from '../helpers/db.js';
import { http, startSystem, until } from '../helpers/system.js';
import { certificate, startReceiver } from '../helpers/https-receiver.js';

const SECRET = 'canary-webhook-secret-Qm7Rt2Vx9';

t.test('approvals, webhooks and callbacks', async (t) => {
  const tls = await certificate(t);
  await eachDatabase(t, async (t, server) => {
    const sys = await startSystem(t, server, { env: { AGENTWALL_WEBHOOK_CA_FILE: tls.caFile } });
    const admin = await sys.session();
    const gk = sys.creds.gateway_key;
    const receiver = await startReceiver(t, tls);
    const console_ = (method: string, path: string, body?: unknown) => sys.call('cp', method, path, { token: admin, ...(body === undefined ? {} : { body }) });
    const hold = async (tool = 'files.delete', args: unknown = { path: '/tmp/x' }) => {
      const r = await sys.call('cp', 'POST', '/api/v1/firewall/approvals', {
        token: gk,
        body: { surface: 'mcp', tool_name: tool, args_hash: canonicalHash(args), request_id: 'req_1', conversation_id: 'conv_1', policy_id: 7, rule_id: 9, relay_key_id: 1 },
      });
      if (r.status !== 201) throw new Error(r.text);
      return r.json as { id: string; status: string; expires_at: string };
    };
    const callbackReq = (id: string, raw: string, signature?: string) =>
      sys.call('cp', 'POST', `/api/v1/firewall/approvals/${id}/callback`, { raw, headers: { 'content-type': 'application/json', ...(signature ? { 'x-service-signature': signature } : {}) } });

    await t.test('settings: https only, secret write-only, ttl range', async (t) => {
      const plain = await console_('PUT', '/api/workspace/settings/approvals', { webhook_url: 'http://example.com/hook' });
      t.equal(plain.status, 400);
      t.match(plain.json.error.message, /^webhook_url: must use https/);
      t.equal((await console_('PUT', '/api/workspace/settings/approvals', { hold_ttl_seconds: 30 })).status, 400);
      const set = await console_('PUT', '/api/workspace/settings/approvals', { webhook_url: receiver.url });
      t.same(set.json, { webhook_url: receiver.url, webhook_secret_set: false, hold_ttl_seconds: 900 });
    });

    await t.test('with a URL but no secret nothing is sent, and the hold still works', async (t) => {
      const a = await hold();
      t.equal(a.status, 'pending');
      t.match(a.id, /^apr_/);
      await new Promise((r) => setTimeout(r, 300));
      t.equal(receiver.received.length, 0);
      t.ok((await console_('GET', '/api/workspace/firewall/approvals?status=pending')).json.data.some((x: { id: string }) => x.id === a.id), 'appears in the console');
    });

    await t.test('the pending webhook: headers, envelope, signature over the raw bytes, no arguments', async (t) => {
      const put = await console_('PUT', '/api/workspace/settings/approvals', { webhook_secret: SECRET });
      t.same(put.json, { webhook_url: receiver.url, webhook_secret_set: true, hold_ttl_seconds: 900 });
      t.notMatch(JSON.stringify((await console_('GET', '/api/workspace/settings/approvals')).json), SECRET);
      const a = await hold('files.delete', { path: '/etc/canary-argument-value' });
      await until(() => receiver.received.length > 0, 5000, 'webhook');
      const got = receiver.received[0]!;
      t.equal(got.headers['content-type'], 'application/json');
      t.equal(got.headers['x-service-event'], 'firewall.approval.pending');
      const signature = String(got.headers['x-service-signature']);
      t.ok(await verify(SECRET, got.raw.toString('utf8'), signature), 'a third-party verifier accepts the signature');
      t.equal(signature, signWebhook(SECRET, got.raw));
      const body = JSON.parse(got.raw.toString('utf8'));
      t.equal(body.event, 'firewall.approval.pending');
      t.equal(body.workspace_id, sys.creds.workspace_id);
      t.match(body.occurred_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/, 'RFC 3339 UTC with nanoseconds');
      t.same(body.data, { approval_id: a.id, tool_name: 'files.delete', request_id: 'req_1', conversation_id: 'conv_1', policy_id: 7, rule_id: 9 });
      t.notMatch(got.raw.toString('utf8'), /canary-argument-value|path/, 'no tool arguments anywhere');
      // The attempt is recorded once the receiver's answer is back.
      await until(async () => (await console_('GET', '/api/workspace/firewall/webhook_deliveries')).json.data.length > 0, 5000, 'delivery recorded');
      const deliveries = await console_('GET', '/api/workspace/firewall/webhook_deliveries');
      t.match(deliveries.json.data[0], { approval_id: a.id, attempt: 1, status_code: 200, error: null });
    });

    await t.test('denies a captured webhook signature replayed as a callback', async (t) => {
      const a = await hold();
      await until(() => receiver.received.some((r) => r.raw.includes(a.id)), 5000);
      const got = receiver.received.find((r) => r.raw.includes(a.id))!;
      const raw = JSON.stringify({ decision: 'approved' });
      const replay = await callbackReq(a.id, got.raw.toString('utf8'), String(got.headers['x-service-signature']));
      t.equal(replay.status, 401);
      t.equal(replay.json.error.code, 'invalid_signature');
      const sameBody = await callbackReq(a.id, raw, signWebhook(SECRET, raw));
      t.equal(sameBody.status, 401, 'the outbound construction is not accepted inbound');
    });

    await t.test('denies a callback signature replayed on another approval, a missing one and a bad one', async (t) => {
      const a = await hold();
      const b = await hold();
      const raw = JSON.stringify({ decision: 'approved', reason: 'ok' });
      const forA = signCallback(SECRET, a.id, raw);
      t.equal((await callbackReq(b.id, raw, forA)).status, 401, 'signature of A refused on B');
      t.equal((await callbackReq(a.id, raw)).status, 401, 'missing signature');
      t.equal((await callbackReq(a.id, raw, 'sha256=' + '0'.repeat(64))).status, 401, 'wrong signature');
      t.equal((await callbackReq(a.id, raw, signCallback('another-secret-entirely', a.id, raw))).status, 401, 'wrong key');
      t.equal((await http(sys.cp.url, 'GET', `/api/v1/firewall/approvals/${b.id}`, { token: gk })).json.status, 'pending', 'B untouched');
      const ok = await callbackReq(a.id, raw, forA);
      t.equal(ok.status, 200);
      t.equal(ok.json.status, 'approved');
      t.equal(ok.json.resolved_by, 'callback');
    });

    await t.test('callback errors: unknown id 404, bad body 400, duplicate or late 200 already_resolved', async (t) => {
      const raw = JSON.stringify({ decision: 'approved' });
      t.equal((await callbackReq('apr_doesnotexist', raw, signCallback(SECRET, 'apr_doesnotexist', raw))).status, 404);
      const a = await hold();
      for (const bad of ['{"decision":"maybe"}', '{"decision":"approved","extra":1}', '[]', '{not json']) {
        const r = await callbackReq(a.id, bad, signCallback(SECRET, a.id, bad));
        t.equal(r.status, 400, bad);
        t.equal(r.json.error.code, 'invalid_request');
      }
      const rej = JSON.stringify({ decision: 'rejected', reason: 'no' });
      t.equal((await callbackReq(a.id, rej, signCallback(SECRET, a.id, rej))).json.status, 'rejected');
      const dup = await callbackReq(a.id, raw, signCallback(SECRET, a.id, raw));
      t.equal(dup.status, 200);
      t.equal(dup.json.already_resolved, true);
      t.equal(dup.json.status, 'rejected', 'the original decision stands');
      const late = await console_('POST', `/api/workspace/firewall/approvals/${a.id}/approve`, {});
      t.equal(late.status, 200);
      t.equal(late.json.already_resolved, true);
      t.equal(late.json.status, 'rejected');
    });

    await t.test('console and callback deciding the same approval at once, 50 times: exactly one decision each time', async (t) => {
      const raw = JSON.stringify({ decision: 'rejected' });
      let consoleWins = 0;
      for (let i = 0; i < 50; i++) {
        const a = await hold();
        const [c, cb] = await Promise.all([console_('POST', `/api/workspace/firewall/approvals/${a.id}/approve`, {}), callbackReq(a.id, raw, signCallback(SECRET, a.id, raw))]);
        t.equal(c.status, 200);
        t.equal(cb.status, 200);
        const winners = [c, cb].filter((r) => r.json.already_resolved !== true);
        t.equal(winners.length, 1, `round ${i}: one writer won`);
        const final = (await http(sys.cp.url, 'GET', `/api/v1/firewall/approvals/${a.id}`, { token: gk })).json;
        t.equal(final.status, winners[0]!.json.status, 'the stored decision is the winner\'s');
        t.equal(c.json.status, cb.json.status, 'both answers report the same decision');
        if (final.status === 'approved') consoleWins++;
      }
      t.comment(`console won ${consoleWins} of 50 races`);
      const audit = await console_('GET', '/api/workspace/audit?kind=approval.approved&limit=1000');
      const rejected = await console_('GET', '/api/workspace/audit?kind=approval.rejected&limit=1000');
      t.ok(audit.json.data.length + rejected.json.data.length >= 50, 'every transition audited once');
    });

    await t.test('a long-poll returns within 200 ms of a decision', async (t) => {
      const a = await hold();
      const started = performance.now();
      const poll = http(sys.cp.url, 'GET', `/api/v1/firewall/approvals/${a.id}?wait=30`, { token: gk }).then((r) => ({ r, at: performance.now() }));
      await new Promise((r) => setTimeout(r, 500));
      const decidedAt = performance.now();
      await console_('POST', `/api/workspace/firewall/approvals/${a.id}/approve`, { reason: 'looks fine' });
      const { r, at } = await poll;
      t.equal(r.json.status, 'approved');
      t.ok(at - started >= 450, 'it did wait');
      t.comment(`long-poll answered ${(at - decidedAt).toFixed(1)} ms after the decision request was sent`);
      t.ok(at - decidedAt < 200);
      t.match(r.json.approval_token, /^apt_/);
      t.equal(r.json.resolved_by, 'console');
      t.equal(r.json.reason, 'looks fine');
    });

    await t.test('a long-poll through the sidecar\'s /api forward works the same', async (t) => {
      const a = await hold();
      const poll = http(sys.sidecar.url, 'GET', `/api/v1/firewall/approvals/${a.id}?wait=30`, { token: gk });
      await new Promise((r) => setTimeout(r, 200));
      await console_('POST', `/api/workspace/firewall/approvals/${a.id}/reject`, {});
      const r = await poll;
      t.equal(r.json.status, 'rejected');
      t.equal(r.json.approval_token, null, 'no token for a rejected call');
    });

    await t.test('the approval token is single-use and bound to tool name and arguments', async (t) => {
      const args = { path: '/tmp/report.txt' };
      const a = await hold('files.delete', args);
      await console_('POST', `/api/workspace/firewall/approvals/${a.id}/approve`, {});
      const token = (await http(sys.cp.url, 'GET', `/api/v1/firewall/approvals/${a.id}`, { token: gk })).json.approval_token as string;
      const consume = (tool: string, a2: unknown) => sys.call('cp', 'POST', '/api/v1/firewall/approvals/consume', { token: gk, body: { token, tool_name: tool, args_hash: canonicalHash(a2) } });
      t.equal((await consume('files.write', args)).json.consumed, false, 'another tool is refused');
      t.equal((await consume('files.delete', { path: '/etc/passwd' })).json.consumed, false, 'other arguments are refused');
      t.equal((await consume('files.delete', args)).json.consumed, true, 'the held call goes through once');
      t.equal((await consume('files.delete', args)).json.consumed, false, 'a second use is refused');
      t.equal((await http(sys.cp.url, 'GET', `/api/v1/firewall/approvals/${a.id}`, { token: gk })).json.approval_token, null, 'token gone once used');
      const list = await console_('GET', '/api/workspace/firewall/approvals');
      t.notMatch(list.text, /apt_/, 'the console never shows tokens');
    });

    await t.test('a lapsed hold expires (job under advisory lock) and cannot be approved afterwards', async (t) => {
      const a = await hold();
      await sys.cp.deps.pool.query(`UPDATE approvals SET expires_at = now() - interval '1 second' WHERE id = $1`, [a.id]);
      t.ok((await expireApprovals(sys.cp.deps)) >= 1);
      const r = (await http(sys.cp.url, 'GET', `/api/v1/firewall/approvals/${a.id}`, { token: gk })).json;
      t.equal(r.status, 'expired');
      t.equal(r.resolved_by, 'expiry');
      const late = await console_('POST', `/api/workspace/firewall/approvals/${a.id}/approve`, {});
      t.equal(late.json.already_resolved, true);
      t.equal(late.json.status, 'expired');
      const b = await hold();
      await sys.cp.deps.pool.query(`UPDATE approvals SET expires_at = now() - interval '1 second' WHERE id = $1`, [b.id]);
      t.equal((await http(sys.cp.url, 'GET', `/api/v1/firewall/approvals/${b.id}`, { token: gk })).json.status, 'expired', 'a read never reports a lapsed hold as pending');
    });

    await t.test('webhook delivery retries 5xx with back-off and records every attempt', async (t) => {
      receiver.statuses.length = 0;
      const base = receiver.received.length;
      for (let i = 0; i < base; i++) receiver.statuses.push(200);
      receiver.statuses.push(503, 502, 200);
      const a = await hold();
      await until(() => receiver.received.length >= base + 3, 10_000, 'three attempts');
      const rows = (await console_('GET', '/api/workspace/firewall/webhook_deliveries')).json.data.filter((d: { approval_id: string }) => d.approval_id === a.id);
      t.same(rows.map((d: { attempt: number; status_code: number }) => [d.attempt, d.status_code]).sort(), [[1, 503], [2, 502], [3, 200]]);
    });

    await t.test('another workspace\'s gateway key cannot read or decide an approval', async (t) => {
      const a = await hold();
      const ws2 = await console_('POST', '/api/workspaces', { name: 'two' });
      const gk2 = (await sys.call('cp', 'POST', '/api/workspace/gateway_keys', { token: admin, headers: { 'x-workspace-id': String(ws2.json.id) }, body: { name: 'g' } })).json.key;
      t.equal((await http(sys.cp.url, 'GET', `/api/v1/firewall/approvals/${a.id}`, { token: gk2 })).status, 404);
      const other = await sys.call('cp', 'POST', `/api/workspace/firewall/approvals/${a.id}/approve`, { token: admin, headers: { 'x-workspace-id': String(ws2.json.id) }, body: {} });
      t.equal(other.status, 404);
    });

    await t.test('the webhook secret appears in no response and no log line', async (t) => {
      t.notMatch(sys.seen.join('\n'), SECRET);
      t.notMatch(sys.logs.join('\n'), SECRET);
    });
  });
});
