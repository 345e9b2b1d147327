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

/** The value at `path` in `value`, or undefined when some step of it is missing. */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/**
 * The key of the same object that differs from the missing field `path` only in case (`projectGuid`,
 * `projectguid` for `ProjectGuid`): what a client sends that forgot the contract's PascalCase.
 */
function twinOf(value: unknown, path: readonly PropertyKey[]): string | undefined {
  const name = path.at(-1);
  const parent = valueAt(value, path.slice(0, -1));
  if (typeof name !== 'string' || parent === null || typeof parent !== 'object' || Array.isArray(parent))
    return undefined;
  return Object.keys(parent).find((key) => key !== name && key.toLowerCase() === name.toLowerCase());
}

const fieldOf = (where: string, issue: z.core.$ZodIssue) => (issue.path.length > 0 ? issue.path.join('.') : where);

/** One failing field in words; `twinned` when it was sent under another case. */
function describeIssue(where: string, value: unknown, issue: z.core.$ZodIssue): { text: string; twinned: boolean } {
  const field = fieldOf(where, issue);
  const missing = issue.path.length > 0 && valueAt(value, issue.path) === undefined;
  const twin = missing ? twinOf(value, issue.path) : undefined;
  if (twin !== undefined)
    return { text: `${field}: missing; send \`${String(issue.path.at(-1))}\`, not \`${twin}\``, twinned: true };
  return { text: `${field}: ${missing ? `missing (${issue.message})` : issue.message}`, twinned: false };
}

/**
 * Parses `value` with `schema`, or refuses it with one 400 that names every failing field in its message and
 * in `Fields`, and says so when a field was sent under another case.
 */
export function validate<S extends z.ZodMiniType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issues = result.error.issues;
    const described = issues.map((issue) => describeIssue(where, value, issue));
    const message = described.map(({ text }) => text).join('; ') || `${where}: invalid`;
    const hint = described.some(({ twinned }) => twinned)
      ? ' (field names are PascalCase, as in the API reference)'
      : '';
    throw badRequest('ValidationFailed', `${message}${hint}`, {
      Fields: [...new Set(issues.map((issue) => fieldOf(where, issue)))],
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

/**
 * Text in which some number may say more than its double: one with an exponent or more than 15 digits. A
 * number of at most 15 digits without one always reads back as written (a double holds 15 significant
 * digits), so a body without such text skips the per-value reviver, which costs more than the parse.
 */
const MAY_NOT_HOLD = /\d[eE]|\d[\d.]{15}/;

export function parseJsonBody(event: APIGatewayProxyEvent): unknown {
  const text = bodyText(event);
  if (text.trim() === '') throw badRequest('InvalidJson', 'body: a JSON object is required.');
  try {
    return MAY_NOT_HOLD.test(text)
      ? JSON.parse(text, exactNumbers as Parameters<typeof JSON.parse>[1])
      : JSON.parse(text);
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw badRequest('InvalidJson', 'body: not valid JSON.');
  }
}
