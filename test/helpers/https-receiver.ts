// An HTTPS webhook receiver on loopback with a throwaway self-signed
// certificate (made with openssl), recording the exact bytes it receives.
import https from 'node:https';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { T } from './tap.js';

export interface Received {
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
}

export interface Receiver {
  url: string;
  caFile: string;
  received: Received[];
  /** Status to answer with, per request index (default 200). */
  statuses: number[];
}

export async function certificate(t: T): Promise<{ key: string; cert: string; caFile: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentwall-tls-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
  return { key: await readFile(path.join(dir, 'key.pem'), 'utf8'), cert: await readFile(path.join(dir, 'cert.pem'), 'utf8'), caFile: path.join(dir, 'cert.pem') };
}

export async function startReceiver(t: T, tls: { key: string; cert: string; caFile: string }): Promise<Receiver> {
  const r: Receiver = { url: '', caFile: tls.caFile, received: [], statuses: [] };
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const i = r.received.push({ headers: req.headers, raw: Buffer.concat(chunks) }) - 1;
      res.writeHead(r.statuses[i] ?? 200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  r.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/agentwall`;
  return r;
}
