/**
 * A request body's numbers mean exactly what the client wrote (functions/http/json.ts): a number whose text
 * says more than its double is refused. Bodies without an exponent or a run of more than 15 digits skip the
 * per-number check; these cases sit on both sides of that line.
 */
import { describe, expect, it } from 'vitest';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { parseJsonBody } from '../../functions/http/json.ts';
import { DomainError } from '../../functions/shared/errors.ts';

const parse = (body: string) => parseJsonBody({ body, isBase64Encoded: false } as APIGatewayProxyEvent);

const refusal = (body: string) => {
  try {
    parse(body);
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
  return undefined;
};

describe('JSON body numbers', () => {
  it('accepts numbers of up to 15 digits as written, and exact ones of more', () => {
    expect(parse('{"Quantity":123456789012345,"UnitPrice":-0.5,"Zero":-0.0}')).toEqual({
      Quantity: 123456789012345,
      UnitPrice: -0.5,
      Zero: -0,
    });
    expect(parse('{"Price":1234567.12345678,"Big":1e3,"Near":0.30000000000000004}')).toEqual({
      Price: 1234567.12345678,
      Big: 1000,
      Near: 0.30000000000000004,
    });
    expect(parse('{"Name":"1e5 and 1234567890123456789"}')).toEqual({ Name: '1e5 and 1234567890123456789' });
  });

  it('refuses numbers whose text says more than the double they read as', () => {
    for (const text of ['1234567890123456789', '0.1000000000000000000001', '19.990000000000001', '1e400', '1e-400'])
      expect(refusal(`{"UnitPrice":${text}}`), text).toBe('ValidationFailed');
  });
});
