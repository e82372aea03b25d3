import type { z } from 'zod';
import { AppError } from '@agentwall/shared/errors';

/** Parses with a schema; the error names the first failing field. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'params'): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue ? issue.path.map(String) : [];
  if (issue?.code === 'unrecognized_keys' && issue.keys[0]) path.push(issue.keys[0]);
  const field = path.length > 0 ? path.join('.') : where;
  const message = issue ? describe(issue) : 'is invalid';
  throw new AppError('invalid_request', `${field}: ${message}`, { metadata: { field } });
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown field(s) ${issue.keys.join(', ')}`;
  if (issue.code === 'invalid_type') return `expected ${issue.expected}`;
  return issue.message;
}
