// The egress surface: an HTTP forward proxy (plain HTTP and CONNECT) on its
// own port for the agent's own outbound traffic. Each destination is judged
// by the firewall (egress lists, SSRF, rules), then resolved once, checked,
// and connected to at the checked address, so DNS rebinding cannot swap it.
// The proxy demands a relay key (Proxy-Authorization: Bearer or Basic with
// the key as password).
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { AppError, toApiError } from '@agentwall/shared/errors';
import { authenticateRelayKey } from '../../auth.js';
import type { Snapshot } from '../../sync/snapshot.js';
import type { FirewallRuntime } from '../runtime.js';
import { createPinnedLookup, resolveAndCheck } from '../dns.js';
import { egressAllowsAddress } from '../detectors/egress.js';

function proxyKey(req: http.IncomingMessage): string | undefined {
  const h = req.headers['proxy-authorization'];
  if (!h) return undefined;
  const bearer = /^Bearer\s+(\S+)$/i.exec(h);
  if (bearer) return bearer[1];
  const basic = /^Basic\s+(\S+)$/i.exec(h);
  if (!basic?.[1]) return undefined;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  return decoded.slice(decoded.indexOf(':') + 1) || undefined;
}

function errorBody(err: unknown): { status: number; body: string } {
  const shaped = toApiError(err);
  return { status: shaped.status, body: JSON.stringify(shaped.body) };
}

export function createEgressProxy(opts: { log: Logger; snapshot: () => Snapshot | undefined; runtime: FirewallRuntime }) {
  async function admit(req: http.IncomingMessage, host: string, port: number, args: Record<string, unknown>): Promise<{ address: string; family: 4 | 6 }> {
    const snapshot = opts.snapshot();
    if (!snapshot) throw new AppError('service_unavailable', 'No verified config bundle yet.');
    let key;
    try {
      key = authenticateRelayKey(snapshot, proxyKey(req));
    } catch {
      throw new AppError('unauthorized', 'The egress proxy needs a relay key in Proxy-Authorization.', { headers: { 'proxy-authenticate': 'Basic realm="agentwall"' } });
    }
    const token = req.headers['x-service-firewall-approval'];
    const out = await opts.runtime.judge({ surface: 'egress', tool_name: host, arguments: args, relay_key_id: key.id, ...(typeof token === 'string' ? { approval_token: token } : {}) });
    const v = out.verdict;
    if (out.action === 'deny') {
      throw new AppError('firewall_blocked', out.message, { metadata: { reason_code: v.reason_code ?? 'rule_match', risk_score: v.risk_score, factors: v.factors, policy_id: v.policy_id ?? null, rule_id: v.rule_id ?? null, tool_name: host } });
    }
    if (out.action === 'pending') throw new AppError('firewall_approval_pending', out.message, { metadata: { ...out.approval, tool_name: host } });
    void port;
    const eg = opts.runtime.egress();
    const checked = await resolveAndCheck(host);
    if (!checked.ok) {
      // An internal address is reachable only when an allowlist names it by CIDR, explicitly.
      const literal = net.isIP(host.replace(/^\[|\]$/g, '')) !== 0 ? host.replace(/^\[|\]$/g, '') : undefined;
      if (literal && eg?.mode === 'allowlist' && egressAllowsAddress(eg, literal)) return { address: literal, family: net.isIP(literal) === 6 ? 6 : 4 };
      throw new AppError('firewall_blocked', `firewall deny: ssrf: ${checked.detail}`, { metadata: { reason_code: 'ssrf', risk_score: 1, factors: [checked.reason], policy_id: null, rule_id: null, tool_name: host } });
    }
    if (eg?.mode === 'denylist' && !egressAllowsAddress(eg, checked.address)) {
      throw new AppError('firewall_blocked', `firewall deny: egress_denied: ${host} resolves into a denied range`, { metadata: { reason_code: 'egress_denied', risk_score: 0.8, factors: ['resolved_address_denied'], policy_id: null, rule_id: null, tool_name: host } });
    }
    return checked;
  }

  const server = http.createServer(async (req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('scheme');
    } catch {
      const e = errorBody(new AppError('invalid_request', 'The egress proxy takes absolute http:// URLs, or CONNECT for https.'));
      res.writeHead(e.status, { 'content-type': 'application/json' }).end(e.body);
      return;
    }
    const port = Number(target.port || 80);
    try {
      const pinned = await admit(req, target.hostname, port, { host: target.hostname, port, url: target.href, method: req.method ?? 'GET' });
      const headers = { ...req.headers };
      delete headers['proxy-authorization'];
      delete headers['proxy-connection'];
      delete headers['x-service-firewall-approval'];
      const upstream = http.request({ host: target.hostname, port, path: `${target.pathname}${target.search}`, method: req.method, headers, lookup: createPinnedLookup(pinned.address, pinned.family) }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on('error', () => {
        if (!res.headersSent) {
          const e = errorBody(new AppError('upstream_error', 'The destination could not be reached.'));
          res.writeHead(e.status, { 'content-type': 'application/json' }).end(e.body);
        } else res.destroy();
      });
      res.on('close', () => upstream.destroy());
      req.pipe(upstream);
    } catch (err) {
      const e = errorBody(err);
      res.writeHead(e.status, { 'content-type': 'application/json', ...((err as AppError).headers ?? {}) }).end(e.body);
    }
  });

  server.on('connect', async (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(req.url ?? '');
    const refuse = (err: unknown) => {
      const e = errorBody(err);
      const extra = Object.entries((err as AppError).headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join('');
      socket.end(`HTTP/1.1 ${e.status} Refused\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(e.body)}\r\n${extra}\r\n${e.body}`);
    };
    if (!m) return refuse(new AppError('invalid_request', 'CONNECT needs host:port.'));
    const host = m[1]!;
    const port = Number(m[2]);
    try {
      const pinned = await admit(req, host, port, { host, port });
      const upstream = net.connect({ host: pinned.address, port, family: pinned.family });
      upstream.on('connect', () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => refuse(new AppError('upstream_error', 'The destination could not be reached.')));
      socket.on('close', () => upstream.destroy());
    } catch (err) {
      refuse(err);
    }
  });

  return {
    async listen(port: number, host: string): Promise<number> {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
      return (server.address() as AddressInfo).port;
    },
    close(): Promise<void> {
      return new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
