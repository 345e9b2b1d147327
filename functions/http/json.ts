/**
 * JSON in and out of the HTTP adapter: requests are parsed and validated against zod schemas (the one
 * source of the request types); answers are written with the contract's `\/Date(ms)\/` escaping.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { badRequest, DomainError } from '../shared/errors.ts';
import { escapeDateSolidus } from '../shared/dates.ts';
import { holdsExactly } from '../shared/decimal.ts';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

// zod/mini has no messages of its own; the English ones name what was expected ("expected number, received string").
z.config(en());

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'Content-Type': JSON_CONTENT_TYPE, ...headers },
    body: escapeDateSolidus(JSON.stringify(body)),
  };
}

function describeIssue(where: string, issue: z.core.$ZodIssue): string {
  const field = issue.path.length > 0 ? issue.path.join('.') : where;
  return `${field}: ${issue.message}`;
}

export function validate<S extends z.ZodMiniType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issues = result.error.issues;
    const first = issues[0];
    throw badRequest('ValidationFailed', first ? describeIssue(where, first) : `${where}: invalid`, {
      Fields: issues.map((issue) => (issue.path.length > 0 ? issue.path.join('.') : where)),
    });
  }
  return result.data;
}

function bodyText(event: APIGatewayProxyEvent): string {
  if (event.body === null || event.body === undefined) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

/** Node's reviver sees each primitive's source text (JSON.parse source text access). */
type Reviver = (this: unknown, key: string, value: unknown, context: { source?: string }) => unknown;

/**
 * Refuses a number whose text says more than the double it parses to (0.1000000000000000000001 is not
 * 0.1): every number the contracts see then means exactly what the client wrote, and money can be
 * decided on its decimal text (functions/shared/money.ts).
 */
const exactNumbers: Reviver = (key, value, context) => {
  if (typeof value === 'number' && context.source !== undefined && !holdsExactly(value, context.source)) {
    throw badRequest(
      'ValidationFailed',
      `${key || 'body'}: the number ${context.source.slice(0, 40)} has more digits than can be held exactly.`,
      { Fields: [key || 'body'] },
    );
  }
  return value;
};

export function parseJsonBody(event: APIGatewayProxyEvent): unknown {
  const text = bodyText(event);
  if (text.trim() === '') throw badRequest('InvalidJson', 'body: a JSON object is required.');
  try {
    return JSON.parse(text, exactNumbers as Parameters<typeof JSON.parse>[1]);
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw badRequest('InvalidJson', 'body: not valid JSON.');
  }
}
