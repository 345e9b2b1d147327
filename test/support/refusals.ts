/**
 * Domain errors carry a kind, not an HTTP status; tests that state the status a refusal is answered with
 * read it through the edge's one table (functions/http/errors.ts).
 */
import { DomainError } from '../../functions/shared/errors.ts';
import { statusOf } from '../../functions/http/errors.ts';

/** A domain error as the HTTP edge answers it: status, code, message, details (anything else as it is). */
export function answered(error: unknown): unknown {
  if (!(error instanceof DomainError)) return error;
  return { status: statusOf(error), code: error.code, message: error.message, details: error.details };
}

/** What `promise` is refused with, as answered; undefined when it resolves. */
export const refusalOf = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => undefined, answered);

/** What `action` throws, as answered; undefined when it returns. */
export function thrownBy(action: () => unknown): unknown {
  try {
    action();
    return undefined;
  } catch (error) {
    return answered(error);
  }
}
