// Bounded JSON body reading: oversize → 413, malformed → 400, both in the
// documented envelope; nothing is parsed past the limit.
import type { IncomingMessage } from 'node:http';
import { AppError } from '@agentwall/shared/errors';

export async function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw new AppError('request_too_large', `Request body exceeds ${limit} bytes.`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw new AppError('request_too_large', `Request body exceeds ${limit} bytes.`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('invalid_request', 'Request body is not valid JSON.');
  }
}
