// One logger factory for both processes. Redaction is by path (headers and
// fields that may carry credentials) and is a second line of defence: code
// never hands a secret to the logger in the first place.
import { pino, type Logger, type DestinationStream } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-goog-api-key"]',
  'req.headers["x-service-signature"]',
  'req.headers["x-service-firewall-approval"]',
  'req.headers["x-agentwall-sidecar-key"]',
  'req.headers.cookie',
  'headers.authorization',
  '*.password',
  '*.api_key',
  '*.secret',
  '*.secret_key',
  '*.token',
  '*.access_token',
  '*.auth_json',
  '*.webhook_secret',
  '*.key',
  'password',
  'token',
  'key',
];

export function createLogger(opts: { name: string; level?: string; destination?: DestinationStream }): Logger {
  return pino(
    {
      name: opts.name,
      level: opts.level ?? process.env['AGENTWALL_LOG_LEVEL'] ?? 'info',
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      base: { service: opts.name },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    opts.destination,
  );
}

/** Strips the query string: `?key=` carries a relay key for Gemini SDKs. */
export function safePath(url: string | undefined): string {
  if (!url) return '';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
