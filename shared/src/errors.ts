// The one registry of error codes (CONTRACT §8). Every surface turns an
// AppError into its own envelope through the functions below; the README's
// error table is checked against this registry by a test, both ways.

export const ERROR_CODES = {
  invalid_request: { status: 400, remedy: 'Fix the request: the message names the field.' },
  guardrail_blocked: { status: 400, remedy: 'Change the input or the guardrail policy; do not retry unchanged.' },
  firewall_blocked: { status: 400, remedy: 'Choose another action; the firewall denied this tool call.' },
  firewall_approval_pending: { status: 400, remedy: 'Wait for the approval, then re-send once with X-Service-Firewall-Approval.' },
  not_implemented: { status: 400, remedy: 'Use the native endpoint named in the message.' },
  unauthorized: { status: 401, remedy: 'Send a valid credential for this surface in Authorization: Bearer.' },
  invalid_api_key: { status: 401, remedy: 'Send a valid, unrevoked relay key.' },
  invalid_signature: { status: 401, remedy: 'Sign the request as the spec says (X-Service-Signature).' },
  forbidden: { status: 403, remedy: 'Ask a workspace admin for a role that allows this action.' },
  not_found: { status: 404, remedy: 'Check the id, path and workspace.' },
  method_not_allowed: { status: 405, remedy: 'Use one of the methods in the Allow header.' },
  conflict: { status: 409, remedy: 'Pick another name or reload the record.' },
  request_too_large: { status: 413, remedy: 'Send a smaller body.' },
  insufficient_quota: { status: 429, remedy: 'Raise the relay key quota_limit or use another key.' },
  rate_limit_exceeded: { status: 429, remedy: 'Wait for Retry-After seconds, or raise rate_limit_rpm.' },
  asset_upload_limit_exceeded: { status: 429, remedy: 'Wait for the next UTC day or raise the upload limit.' },
  upstream_error: { status: 502, remedy: 'The upstream failed; retry later or check the channel.' },
  upstream_timeout: { status: 504, remedy: 'The upstream did not answer in time; retry later.' },
  service_unavailable: { status: 503, remedy: 'Not ready yet (no database or no verified bundle); retry shortly.' },
  internal_error: { status: 500, remedy: 'A bug on our side; report it with the X-Request-Id.' },
} as const satisfies Record<string, { status: number; remedy: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export type ErrorMetadata = Record<string, unknown>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly metadata: ErrorMetadata | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { metadata?: ErrorMetadata; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.metadata = options.metadata;
    this.headers = options.headers;
  }
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}

/** Any thrown value as an AppError; foreign errors become internal_error and keep nothing of their message. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new AppError('internal_error', 'Internal error.', { cause: err });
}

interface Shaped {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

function base(err: unknown): { e: AppError; headers: Record<string, string> } {
  const e = toAppError(err);
  return { e, headers: { ...(e.headers ?? {}) } };
}

function core(e: AppError, type: string): Record<string, unknown> {
  const out: Record<string, unknown> = { type, code: e.code, message: e.message };
  if (e.metadata !== undefined) out['metadata'] = e.metadata;
  return out;
}

/** `/v1` surfaces: `{error:{type:"openai_error", code, message, metadata?}}`. */
export function toOpenAIError(err: unknown): Shaped {
  const { e, headers } = base(err);
  return { status: e.status, headers, body: { error: core(e, 'openai_error') } };
}

/** `/api` surfaces: `{error:{type:"api_error", code, message, metadata?}}`. */
export function toApiError(err: unknown): Shaped {
  const { e, headers } = base(err);
  return { status: e.status, headers, body: { error: core(e, 'api_error') } };
}

/** `/v1/messages`: Anthropic's error shape with our code beside its type. */
export function toAnthropicError(err: unknown): Shaped {
  const { e, headers } = base(err);
  const type = anthropicType(e.status);
  return { status: e.status, headers, body: { type: 'error', error: core(e, type) } };
}

function anthropicType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'INVALID_ARGUMENT',
  409: 'ALREADY_EXISTS',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** `/v1beta`: Google's `{error:{code, message, status, details:[ErrorInfo]}}`. */
export function toGoogleError(err: unknown): Shaped {
  const { e, headers } = base(err);
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(e.metadata ?? {})) metadata[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return {
    status: e.status,
    headers,
    body: {
      error: {
        code: e.status,
        message: e.message,
        status: GOOGLE_STATUS[e.status] ?? 'UNKNOWN',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: e.code, domain: 'agentwall', metadata }],
      },
    },
  };
}
