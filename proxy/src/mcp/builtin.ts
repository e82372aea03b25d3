// The bundled in-process server (`builtin.<tool>`): small tools every agent
// can use. http_fetch resolves the host itself, refuses internal
// addresses, and connects to the address it checked (no DNS rebinding).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BUILTIN_TOOLS } from '@agentwall/shared/builtin-tools';
import { createPinnedLookup, resolveAndCheck } from '../firewall/dns.js';

const MAX_BYTES = 100 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

export const BUILTIN_DEFINITIONS = BUILTIN_TOOLS;

function text(t: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) };
}

async function time(args: Record<string, unknown>): Promise<CallToolResult> {
  const now = new Date();
  const zone = typeof args['timezone'] === 'string' ? args['timezone'] : 'UTC';
  let local: string;
  try {
    local = new Intl.DateTimeFormat('en-CA', { timeZone: zone, dateStyle: 'short', timeStyle: 'long', hourCycle: 'h23' }).format(now);
  } catch {
    return text(`unknown time zone: ${zone.slice(0, 64)}`, true);
  }
  return { content: [{ type: 'text', text: `${now.toISOString()} (${zone}: ${local})` }], structuredContent: { iso: now.toISOString(), timezone: zone, local } };
}

async function httpFetch(args: Record<string, unknown>): Promise<CallToolResult> {
  let url: URL;
  try {
    url = new URL(String(args['url']));
  } catch {
    return text('firewall deny: not a valid URL', true);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return text('firewall deny: only http and https URLs can be fetched', true);
  const checked = await resolveAndCheck(url.hostname);
  if (!checked.ok) return text(`firewall deny: ssrf (${checked.detail})`, true);
  const method = args['method'] === 'HEAD' ? 'HEAD' : 'GET';
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const req = lib.request(url, { method, lookup: createPinnedLookup(checked.address, checked.family), timeout: FETCH_TIMEOUT_MS, headers: { 'user-agent': 'agentwall-builtin/0.1' } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size < MAX_BYTES) chunks.push(c.subarray(0, MAX_BYTES - size));
        size += c.length;
      });
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({
          content: [{ type: 'text', text: body }],
          structuredContent: { status: res.statusCode ?? 0, content_type: String(res.headers['content-type'] ?? ''), truncated: size > MAX_BYTES },
        });
      });
      res.on('error', () => resolve(text('fetch failed while reading the response', true)));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve(text(`fetch failed: ${err.message}`, true)));
    req.end();
  });
}

const HANDLERS: Record<string, (args: Record<string, unknown>) => Promise<CallToolResult>> = {
  time,
  http_fetch: httpFetch,
  uuid: async () => ({ content: [{ type: 'text', text: randomUUID() }] }),
};

export async function callBuiltin(tool: string, args: Record<string, unknown>): Promise<CallToolResult | undefined> {
  const handler = HANDLERS[tool];
  return handler ? handler(args) : undefined;
}
