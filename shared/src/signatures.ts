// The two HMAC-SHA256 constructions of the spec ("Authentication",
// Signatures). Outbound webhook: over the exact raw body. Inbound callback:
// over the approval id, one newline, then the raw body, so a captured
// signature cannot be replayed across approvals or directions.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-service-signature';

export function signWebhook(secret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

export function signCallback(secret: string, approvalId: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(`${approvalId}\n`).update(rawBody).digest('hex')}`;
}

/** Constant-time comparison of a presented `sha256=<hex>` header with the expected one. */
export function signatureMatches(expected: string, presented: string | undefined): boolean {
  if (!presented || !/^sha256=[0-9a-fA-F]{64}$/.test(presented.trim())) return false;
  const a = Buffer.from(expected.slice(7), 'hex');
  const b = Buffer.from(presented.trim().slice(7).toLowerCase(), 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
