// Bounded JSON body reading: oversize → 413, malformed → 400, both in the
// documented envelope; nothing is parsed past the limit.
import type { IncomingMessage } from 'node:http';
import { AppError } from '@agentwall/shared/errors';
import { BodyTooLargeError, readBody } from '@agentwall/shared/http-body';

export async function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  try {
    return await readBody(req, limit);
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw new AppError('request_too_large', err.message);
    throw err;
  }
}

export function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('invalid_request', 'Request body is not valid JSON.');
  }
}
