// Writing replies on the sidecar's plain node:http surfaces, each error in
// the envelope of the surface the client speaks (CONTRACT §8).
import type { ServerResponse } from 'node:http';
import { toAnthropicError, toApiError, toGoogleError, toOpenAIError } from '@agentwall/shared/errors';

export type Surface = 'openai' | 'anthropic' | 'google' | 'api';

export function surfaceOf(path: string): Surface {
  if (path.startsWith('/v1beta/') || path === '/v1beta') return 'google';
  if (path === '/v1/messages' || path.startsWith('/v1/messages/')) return 'anthropic';
  if (path === '/v1' || path.startsWith('/v1/')) return 'openai';
  return 'api';
}

const SHAPERS = { openai: toOpenAIError, anthropic: toAnthropicError, google: toGoogleError, api: toApiError } as const;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers });
  res.end(payload);
}

export function sendError(res: ServerResponse, surface: Surface, err: unknown): void {
  const shaped = SHAPERS[surface](err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, shaped.status, shaped.body, shaped.headers);
}
