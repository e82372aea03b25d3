import type { IncomingMessage } from 'node:http';

/** Reads a body up to `limit` bytes; rejects beyond it without buffering the rest. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw new Error('body too large');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw new Error('body too large');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
